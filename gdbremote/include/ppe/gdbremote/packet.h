// The packet layer of the GDB remote serial protocol ("Overview" and "Packets" in the GDB
// manual, appendix E): `$data#cs` frames, `%name:data#cs` notifications, `+`/`-` acks and the
// interrupt byte 0x03. Pure: bytes in, events out; no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ppe::gdbremote {

constexpr char kInterruptByte = '\x03';

// The modulo-256 sum of the frame's bytes between `$` and `#`, as sent (escaped).
std::uint8_t checksum(std::string_view raw);
// `}` escapes for the four bytes a frame cannot carry plainly: `#`, `$`, `}`, `*`.
std::string escapeBinary(std::string_view data);
// A complete `$data#cs` frame for `data` (escaped); `%data#cs` when `notification`.
std::string frame(std::string_view data, bool notification = false);

enum class EventKind {
    Packet, // a `$` frame with a good checksum: `data` is unescaped and run-length decoded
    Notification, // a `%` frame (non-stop `%Stop:...`), checksum good; never acknowledged
    BadChecksum, // a frame whose checksum did not match: NAK it in ack mode
    Oversized, // a frame longer than the decoder's bound: dropped
    Ack,
    Nak,
    Interrupt, // 0x03 (what a server receives)
    Garbage, // bytes outside any frame
};

const char* eventKindName(EventKind kind);

struct Event {
    EventKind kind;
    std::string data; // decoded payload (Packet, Notification)
    std::string raw; // the bytes exactly as received, for transcripts
};

struct DecoderStats {
    std::size_t packets = 0;
    std::size_t badChecksums = 0;
    std::size_t oversized = 0;
    std::size_t garbageBytes = 0;
};

// An incremental decoder: bytes arrive in arbitrary chunks; it keeps what it has of a frame until
// the rest comes. A `$` inside a frame restarts it (the earlier part was truncated, as GDB's
// read_frame does); garbage between frames is reported and skipped.
class PacketDecoder {
public:
    // `maxPacket` bounds both the raw frame and its decoded payload (qSupported's PacketSize).
    explicit PacketDecoder(std::size_t maxPacket = 65536);

    void feed(std::string_view bytes, std::vector<Event>& out);
    // True while a frame has begun but not ended.
    bool inFrame() const { return m_state != State::Idle; }
    const DecoderStats& stats() const { return m_stats; }
    void setMaxPacket(std::size_t maxPacket) { m_maxPacket = maxPacket; }
    std::size_t maxPacket() const { return m_maxPacket; }

private:
    enum class State { Idle, Data, Check1, Check2, Skip, Skip1, Skip2 };

    void idle(char c, std::vector<Event>& out);
    void data(char c, std::vector<Event>& out);
    void finish(std::vector<Event>& out);
    void startFrame(char c, std::vector<Event>& out);
    void flushGarbage(std::vector<Event>& out);

    std::size_t m_maxPacket;
    State m_state = State::Idle;
    bool m_notification = false;
    std::string m_raw;
    std::string m_garbage;
    DecoderStats m_stats;
};

// Undoes `}` escapes and `*` run-length encoding (GDB manual, "Overview"): `X*n` repeats X
// n - 29 more times. Nothing if the payload is malformed (a trailing `}`, `*` first, a bad count)
// or decodes to more than `limit` bytes.
bool decodePayload(std::string_view raw, std::size_t limit, std::string& out);

} // namespace ppe::gdbremote
