// libFuzzer target: the GDB remote client's parsers (arc-target/): the incremental packet decoder
// fed in input-chosen chunks, the stop replies and qSupported replies it yields, transcripts, and
// target descriptions (every xi:include resolves to the input itself, so nesting is bounded by the
// reader, not by the fuzzer); the sampler's (ppe_arc) SVR4 library lists and auxiliary vectors; and
// the undo journals `ppe-arc restore` reads.
#include "ppe/arc/libraries.h"
#include "ppe/gdbremote/packet.h"
#include "ppe/gdbremote/session.h"
#include "ppe/gdbremote/stop_reply.h"
#include "ppe/gdbremote/target_description.h"
#include "ppe/gdbremote/transcript.h"
#include "ppe/gdbremote/undo_journal.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

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
    return 0;
}
