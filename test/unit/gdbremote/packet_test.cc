// The packet layer: exact bytes of frames, and a decoder fed in every way a socket can feed it.
#include "ppe/gdbremote/hex.h"
#include "ppe/gdbremote/packet.h"

#include <gtest/gtest.h>

using namespace ppe::gdbremote;

namespace {

std::vector<Event> decode(std::string_view bytes, std::size_t chunk = 0, std::size_t max = 65536)
{
    PacketDecoder decoder(max);
    std::vector<Event> events;
    std::size_t step = chunk ? chunk : bytes.size();
    for (std::size_t at = 0; at < bytes.size(); at += step)
        decoder.feed(bytes.substr(at, step), events);
    return events;
}

std::vector<std::string> packets(const std::vector<Event>& events)
{
    std::vector<std::string> out;
    for (const auto& e : events) {
        if (e.kind == EventKind::Packet)
            out.push_back(e.data);
    }
    return out;
}

} // namespace

TEST(Packet, FramesWithTheModulo256Checksum)
{
    EXPECT_EQ(frame("g"), "$g#67");
    EXPECT_EQ(frame("?"), "$?#3f");
    EXPECT_EQ(frame("qSupported:multiprocess+;vContSupported+;xmlRegisters=i386"),
        "$qSupported:multiprocess+;vContSupported+;xmlRegisters=i386#87");
    EXPECT_EQ(frame(""), "$#00");
    EXPECT_EQ(frame("Stop:T05", true), "%Stop:T05#99");
}

TEST(Packet, EscapesTheFourReservedBytes)
{
    EXPECT_EQ(escapeBinary("a#b$c}d*e"),
        std::string("a}\x03"
                    "b}\x04"
                    "c}]d}\x0a"
                    "e"));
    std::string back;
    ASSERT_TRUE(decodePayload(escapeBinary("#$}*"), 100, back));
    EXPECT_EQ(back, "#$}*");
}

TEST(Packet, DecodesRunLengths)
{
    // GDB manual: "0* " means "0000" (a space is 32, 32 - 29 = 3 more).
    std::string out;
    ASSERT_TRUE(decodePayload("0* ", 100, out));
    EXPECT_EQ(out, "0000");
    // From gdbserver's `?` reply in gdbserver-launch.txt: "0*," is 16 zeros (',' is 44).
    ASSERT_TRUE(decodePayload("06:0*,;", 100, out));
    EXPECT_EQ(out, "06:" + std::string(16, '0') + ";");
    EXPECT_FALSE(decodePayload("*a", 100, out)) << "nothing to repeat";
    EXPECT_FALSE(decodePayload("0*", 100, out)) << "no count";
    EXPECT_FALSE(decodePayload("0*\x01", 100, out)) << "count below 3";
    EXPECT_FALSE(decodePayload("0*~", 10, out)) << "beyond the limit";
    EXPECT_FALSE(decodePayload("ab}", 10, out)) << "trailing escape";
}

TEST(Decoder, ReadsPacketsAcksAndInterrupts)
{
    auto events = decode("+$OK#9a-\x03%Stop:T05#99");
    ASSERT_EQ(events.size(), 5u);
    EXPECT_EQ(events[0].kind, EventKind::Ack);
    EXPECT_EQ(events[1].kind, EventKind::Packet);
    EXPECT_EQ(events[1].data, "OK");
    EXPECT_EQ(events[1].raw, "$OK#9a");
    EXPECT_EQ(events[2].kind, EventKind::Nak);
    EXPECT_EQ(events[3].kind, EventKind::Interrupt);
    EXPECT_EQ(events[4].kind, EventKind::Notification);
    EXPECT_EQ(events[4].data, "Stop:T05");
}

TEST(Decoder, SameResultWhateverTheChunks)
{
    std::string stream = "+" + frame("T0506:0123;thread:p1.1;") + "+" + frame(std::string(300, 'a')) + frame("l<x/>");
    auto whole = packets(decode(stream));
    ASSERT_EQ(whole.size(), 3u);
    for (std::size_t chunk : { 1, 2, 3, 7, 64 })
        EXPECT_EQ(packets(decode(stream, chunk)), whole) << "chunks of " << chunk;
}

TEST(Decoder, SkipsGarbageBetweenPackets)
{
    PacketDecoder decoder;
    std::vector<Event> events;
    decoder.feed("junk\r\n$OK#9a Welcome\n$E01#a6", events);
    EXPECT_EQ(packets(events), (std::vector<std::string> { "OK", "E01" }));
    EXPECT_EQ(decoder.stats().garbageBytes, 15u);
    EXPECT_EQ(events.front().kind, EventKind::Garbage);
}

TEST(Decoder, CountsBadChecksums)
{
    PacketDecoder decoder;
    std::vector<Event> events;
    decoder.feed("$OK#00$OK#zz$OK#9a", events);
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(events[0].kind, EventKind::BadChecksum);
    EXPECT_EQ(events[1].kind, EventKind::BadChecksum);
    EXPECT_EQ(events[2].kind, EventKind::Packet);
    EXPECT_EQ(decoder.stats().badChecksums, 2u);
    EXPECT_EQ(decoder.stats().packets, 1u);
}

TEST(Decoder, ATruncatedPacketGivesWayToTheNext)
{
    PacketDecoder decoder;
    std::vector<Event> events;
    decoder.feed("$T05thr", events);
    EXPECT_TRUE(decoder.inFrame());
    EXPECT_TRUE(events.empty());
    decoder.feed("$OK#9a", events);
    EXPECT_EQ(packets(events), (std::vector<std::string> { "OK" }));
    EXPECT_FALSE(decoder.inFrame());
    EXPECT_EQ(decoder.stats().garbageBytes, 7u);
}

TEST(Decoder, DropsHugePacketsAndCarriesOn)
{
    PacketDecoder decoder(64);
    std::vector<Event> events;
    decoder.feed(frame(std::string(1000, 'x')) + frame("OK"), events);
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].kind, EventKind::Oversized);
    EXPECT_EQ(events[1].data, "OK");
    EXPECT_EQ(decoder.stats().oversized, 1u);
    // A run-length payload that expands beyond the bound is refused too.
    events.clear();
    std::string body = "0*~0*~0*~0*~";
    decoder.feed("$" + body + "#" + toHex(std::string(1, static_cast<char>(checksum(body)))), events);
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].kind, EventKind::BadChecksum);
}
