// libFuzzer target: the GDB remote client's parsers (arc-target/): the incremental packet decoder
// fed in input-chosen chunks, the stop replies and qSupported replies it yields, transcripts, and
// target descriptions (every xi:include resolves to the input itself, so nesting is bounded by the
// reader, not by the fuzzer); the sampler's (ppe_arc) SVR4 library lists and auxiliary vectors; and
// the undo journals `ppe-arc restore` reads. And a whole client session over a socketpair: the
// input's lines are the server's replies (each framed, after its ack; a line starting with `!` goes
// raw), answering the typed accesses of TargetAccess in turn: registers (`p`/`P`, `g`/`G`), memory
// (`m`, `X`/`M` chunked and escaped), breakpoints (`Z0`/`z0`), a monitor command (`qRcmd`, `O`
// output until `OK`), the undo of what was journaled, and the late stop replies read past.
#include "ppe/arc/libraries.h"
#include "ppe/gdbremote/packet.h"
#include "ppe/gdbremote/session.h"
#include "ppe/gdbremote/stop_reply.h"
#include "ppe/gdbremote/target_access.h"
#include "ppe/gdbremote/target_description.h"
#include "ppe/gdbremote/transcript.h"
#include "ppe/gdbremote/undo_journal.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <sys/socket.h>
#include <unistd.h>

using namespace ppe::gdbremote;

static void decodePackets(std::string_view text)
{
    PacketDecoder decoder(text.size() % 2 ? 512 : 65536);
    std::vector<Event> events;
    std::size_t step = text.empty() ? 1 : static_cast<unsigned char>(text[0]) % 13 + 1;
    for (std::size_t at = 0; at < text.size(); at += step)
        decoder.feed(text.substr(at, step), events);
    for (const auto& e : events) {
        if (e.kind != EventKind::Packet && e.kind != EventKind::Notification)
            continue;
        (void)parseStopReply(e.data);
        (void)parseFeatures(e.data);
    }
}

// The server's side: every reply there is, written before the client asks (a stream socket's
// buffer holds them), then end of stream, so that no wait of the client's lasts.
static std::string serverBytes(std::string_view text)
{
    std::string out;
    while (!text.empty()) {
        const std::size_t end = std::min(text.find('\n'), text.size());
        const std::string_view line = text.substr(0, end);
        out += !line.empty() && line[0] == '!' ? std::string(line.substr(1)) : "+" + frame(line);
        text.remove_prefix(std::min(end + 1, text.size()));
    }
    return out;
}

static const char kDescription[] = R"(<?xml version="1.0"?>
<target><architecture>arc:HS</architecture>
<feature name="org.gnu.gdb.arc.core"><reg name="r0" bitsize="32" regnum="0"/>
<reg name="pc" bitsize="32" regnum="1" type="code_ptr"/><reg name="wide" bitsize="64" regnum="2"/></feature>
</target>)";

static void accessTarget(std::string_view text)
{
    int fds[2];
    const std::string bytes = serverBytes(text);
    if (bytes.size() > 100000 || ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
        return;
    if (::write(fds[1], bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())
        || ::shutdown(fds[1], SHUT_WR))
        return (void)::close(fds[0]), (void)::close(fds[1]);
    DocumentFetcher fetch = [](const std::string&) -> ppe::Result<std::string> { return std::string(kDescription); };
    auto description = readTargetDescription("target.xml", fetch);
    SessionOptions options;
    options.ackTimeout = std::chrono::milliseconds(20);
    options.requestTimeout = std::chrono::milliseconds(50);
    Session session(Connection(fds[0], "fuzz"), options);
    (void)session.negotiate();
    TargetControl control(session);
    const std::string journalPath = "/dev/shm/ppe-fuzz-undo." + std::to_string(::getpid());
    UndoJournal journal(journalPath, "fuzz");
    TargetAccess access(control, *description, text.size() % 3 == 0, &journal);
    // The first byte picks the access to start from, so that each one gets the first replies in
    // some inputs; the rest follow in order.
    const std::function<void()> accesses[] = {
        [&] { (void)access.readRegister("pc"); },
        [&] { (void)access.readRegisterBytes("wide"); },
        [&] { (void)access.writeRegister("r0", 0x12345678); },
        [&] { (void)access.readMemory(0x1000, 700); },
        [&] { (void)access.writeMemory(0x2000, std::string("#$}*\x7d\0ab", 8)); },
        [&] { (void)access.writeMemory(0x2100, std::string(600, '}')); },
        [&] { (void)access.insertBreakpoint(0x3000, 2); },
        [&] { (void)access.removeBreakpoint(0x3000, 2); },
        [&] { (void)access.monitor("arc get-aux-reg 0x254"); },
        [&] { // --mode running: a register read while the target runs, stops queued before its answer
            if (control.resume())
                (void)session.readRegisterRunning(1);
            (void)session.incoming(Clock::now());
        },
    };
    const std::size_t count = sizeof accesses / sizeof accesses[0];
    for (std::size_t i = text.empty() ? 0 : static_cast<unsigned char>(text[0]) % count; i < count; ++i)
        accesses[i]();
    (void)access.undoAll();
    (void)control.detach();
    ::close(fds[1]);
    ::unlink(journalPath.c_str());
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    decodePackets(text);
    (void)parseStopReply(text);
    (void)parseTranscript(text, "fuzz.txt");
    const std::string document(text);
    DocumentFetcher fetch = [&document](const std::string&) -> ppe::Result<std::string> { return document; };
    auto tdesc = readTargetDescription("target.xml", fetch);
    if (tdesc)
        (void)tdesc->pc();
    (void)ppe::arc::parseLibraryList(text, "libraries-svr4");
    for (bool is64 : { false, true })
        (void)ppe::arc::auxvEntry(text, is64, size % 2);
    (void)UndoJournal::parse(text, "fuzz.undo"); // what `ppe-arc restore` reads
    accessTarget(text);
    return 0;
}
