#include "ppe/gdbremote/stop_reply.h"

#include "ppe/gdbremote/hex.h"

namespace ppe::gdbremote {

static Error bad(std::string_view text, const char* what)
{
    std::string shown(text.substr(0, 60));
    return Error { {}, 0, std::string(what) + " in stop reply '" + shown + "'" };
}

static bool parseCode(std::string_view text, int& code)
{
    auto value = parseHexNumber(text.substr(0, 2));
    if (text.size() < 2 || !value)
        return false;
    code = static_cast<int>(*value);
    return true;
}

static bool parseRegister(std::string_view key, std::string_view value, StopReply& reply)
{
    auto number = parseHexNumber(key);
    auto bytes = fromHex(value);
    if (!number || !bytes || *number > 0xffff)
        return false;
    reply.registers[static_cast<unsigned>(*number)] = *bytes;
    return true;
}

// One `key:value` pair of a T reply; unknown keys are kept as the reason (GDB ignores them).
static bool parsePair(std::string_view pair, StopReply& reply)
{
    auto colon = pair.find(':');
    std::string_view key = pair.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? std::string_view() : pair.substr(colon + 1);
    if (key == "thread") {
        reply.thread = std::string(value);
        return true;
    }
    if (isHex(key) && !key.empty())
        return parseRegister(key, value, reply);
    if (reply.reason.empty())
        reply.reason = std::string(key);
    return true;
}

static Result<StopReply> parseT(std::string_view text, StopReply reply)
{
    std::string_view rest = text.substr(3);
    while (!rest.empty()) {
        auto semi = rest.find(';');
        if (!parsePair(rest.substr(0, semi), reply))
            return bad(text, "bad register value");
        rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
    }
    return reply;
}

static void parseProcess(std::string_view rest, StopReply& reply)
{
    constexpr std::string_view key = ";process:";
    if (rest.substr(0, key.size()) == key)
        reply.process = std::string(rest.substr(key.size()));
}

// `W AA` and `X AA`, where gdbserver writes the status in as few digits as it takes ("W0").
static Result<StopReply> parseEnd(std::string_view text, StopReply& reply)
{
    const std::string_view code = text.substr(1, text.find(';') - 1);
    auto value = code.size() <= 2 ? parseHexNumber(code) : std::nullopt;
    if (!value)
        return bad(text, "bad code");
    reply.code = static_cast<int>(*value);
    reply.kind = text[0] == 'W' ? StopReply::Kind::Exited : StopReply::Kind::Terminated;
    parseProcess(text.substr(1 + code.size()), reply);
    return reply;
}

Result<StopReply> parseStopReply(std::string_view text)
{
    StopReply reply;
    if (text == "N") {
        reply.kind = StopReply::Kind::NoResumed;
        return reply;
    }
    if (!text.empty() && (text[0] == 'W' || text[0] == 'X'))
        return parseEnd(text, reply);
    if (text.empty() || !parseCode(text.substr(1), reply.code))
        return bad(text, "bad code");
    switch (text[0]) {
    case 'S':
        return reply;
    case 'T':
        return parseT(text, reply);
    case 'w':
        reply.kind = StopReply::Kind::ThreadExited;
        return reply;
    }
    return bad(text, "unknown kind");
}

} // namespace ppe::gdbremote
