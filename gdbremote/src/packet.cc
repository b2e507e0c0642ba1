#include "ppe/gdbremote/packet.h"

#include "ppe/gdbremote/hex.h"

namespace ppe::gdbremote {

std::uint8_t checksum(std::string_view raw)
{
    unsigned sum = 0;
    for (unsigned char c : raw)
        sum += c;
    return static_cast<std::uint8_t>(sum);
}

std::string escapeBinary(std::string_view data)
{
    std::string out;
    out.reserve(data.size());
    for (char c : data) {
        if (c == '#' || c == '$' || c == '}' || c == '*') {
            out.push_back('}');
            c = static_cast<char>(c ^ 0x20);
        }
        out.push_back(c);
    }
    return out;
}

std::string frame(std::string_view data, bool notification)
{
    std::string body = escapeBinary(data);
    std::string sum = toHex(std::string(1, static_cast<char>(checksum(body))));
    return std::string(notification ? "%" : "$") + body + "#" + sum;
}

const char* eventKindName(EventKind kind)
{
    switch (kind) {
    case EventKind::Packet:
        return "packet";
    case EventKind::Notification:
        return "notification";
    case EventKind::BadChecksum:
        return "bad checksum";
    case EventKind::Oversized:
        return "oversized packet";
    case EventKind::Ack:
        return "ack";
    case EventKind::Nak:
        return "nak";
    case EventKind::Interrupt:
        return "interrupt";
    case EventKind::Garbage:
        return "garbage";
    }
    return "?";
}

static bool appendRun(std::string& out, char count, std::size_t limit)
{
    int repeat = static_cast<unsigned char>(count) - 29;
    // GDB never sends counts that would read as `#` or `$` (6 and 7), nor below 3; anything
    // printable is accepted here, anything else is malformed.
    if (out.empty() || repeat < 3 || repeat > 97 || out.size() + static_cast<std::size_t>(repeat) > limit)
        return false;
    out.append(static_cast<std::size_t>(repeat), out.back());
    return true;
}

bool decodePayload(std::string_view raw, std::size_t limit, std::string& out)
{
    out.clear();
    for (std::size_t i = 0; i < raw.size(); ++i) {
        char c = raw[i];
        if (c == '*') {
            if (i + 1 >= raw.size() || !appendRun(out, raw[++i], limit))
                return false;
            continue;
        }
        if (c == '}') {
            if (i + 1 >= raw.size())
                return false;
            c = static_cast<char>(raw[++i] ^ 0x20);
        }
        if (out.size() >= limit)
            return false;
        out.push_back(c);
    }
    return true;
}

PacketDecoder::PacketDecoder(std::size_t maxPacket)
    : m_maxPacket(maxPacket)
{
}

void PacketDecoder::feed(std::string_view bytes, std::vector<Event>& out)
{
    for (char c : bytes) {
        switch (m_state) {
        case State::Idle:
            idle(c, out);
            break;
        case State::Data:
        case State::Skip:
            data(c, out);
            break;
        case State::Check1:
        case State::Skip1:
            m_raw.push_back(c);
            m_state = m_state == State::Check1 ? State::Check2 : State::Skip2;
            break;
        case State::Check2:
        case State::Skip2:
            m_raw.push_back(c);
            finish(out);
            break;
        }
    }
    flushGarbage(out);
}

void PacketDecoder::idle(char c, std::vector<Event>& out)
{
    if (c == '$' || c == '%')
        return startFrame(c, out);
    if (c != '+' && c != '-' && c != kInterruptByte) {
        m_garbage.push_back(c);
        ++m_stats.garbageBytes;
        return;
    }
    flushGarbage(out);
    EventKind kind = c == '+' ? EventKind::Ack : c == '-' ? EventKind::Nak : EventKind::Interrupt;
    out.push_back({ kind, {}, std::string(1, c) });
}

void PacketDecoder::startFrame(char c, std::vector<Event>& out)
{
    flushGarbage(out);
    m_raw.assign(1, c);
    m_notification = c == '%';
    m_state = State::Data;
}

void PacketDecoder::data(char c, std::vector<Event>& out)
{
    if (c == '$' && m_state == State::Data) {
        // A new frame in the middle of one: the first was truncated (GDB's read_frame restarts
        // the same way). Its bytes count as garbage.
        m_garbage = m_raw;
        m_stats.garbageBytes += m_raw.size();
        return startFrame(c, out);
    }
    if (c == '#') {
        m_raw.push_back(c);
        m_state = m_state == State::Data ? State::Check1 : State::Skip1;
        return;
    }
    if (m_state == State::Data && m_raw.size() >= m_maxPacket) {
        // Drop the frame but keep skipping to its end, so its tail does not read as garbage.
        m_state = State::Skip;
        m_raw.clear();
    }
    if (m_state == State::Data)
        m_raw.push_back(c);
}

void PacketDecoder::finish(std::vector<Event>& out)
{
    State state = m_state;
    m_state = State::Idle;
    std::string raw;
    raw.swap(m_raw);
    if (state == State::Skip2) {
        ++m_stats.oversized;
        return out.push_back({ EventKind::Oversized, {}, std::string("(oversized)") + raw });
    }
    std::string_view body = std::string_view(raw).substr(1, raw.size() - 4);
    auto sent = parseHexNumber(std::string_view(raw).substr(raw.size() - 2));
    Event event { EventKind::BadChecksum, {}, raw };
    if (sent && *sent == checksum(body) && decodePayload(body, m_maxPacket, event.data)) {
        event.kind = m_notification ? EventKind::Notification : EventKind::Packet;
        ++m_stats.packets;
    } else {
        event.data.clear();
        ++m_stats.badChecksums;
    }
    out.push_back(std::move(event));
}

void PacketDecoder::flushGarbage(std::vector<Event>& out)
{
    if (m_garbage.empty())
        return;
    out.push_back({ EventKind::Garbage, {}, std::move(m_garbage) });
    m_garbage.clear();
}

} // namespace ppe::gdbremote
