// What each server the simulated ARC target imitates says and refuses (from the real transcripts in
// test/data/gdb-remote/ and OpenOCD's ARC scripts), and its registers:
//  - openocd: one target.xml with explicit regnums (r0-r31, lp_count 60, pcl 63, pc 64, status32
//    65) and the PCT registers a board script adds (`arc add-reg ... -feature`) as a third
//    feature; no-ack mode; `qRcmd` "arc jtag get-aux-reg N" / "set-aux-reg N V"; `p` and `m`
//    answered while the core runs (OpenOCD reads over JTAG); no vCont; `S05` to `?`; the end of
//    the program halts the core (a bare-metal `brk`): a stop, not an exit.
//  - qemu: Synopsys qemu-arc 7.0's shape: target.xml including arc-v2-core.xml (r0 0 ... pcl 35)
//    and arc-v2-aux.xml (pc 36 and a few of its 73 aux registers, none of them PCT); `g` stops
//    before pc (144 bytes); ack mode only; `X` not supported, `M` to code E14; no `qRcmd`;
//    nothing is read while the guest runs (0x03 waits, unread, and is then taken as a bad ack:
//    the stop reply comes twice); an outside interrupt (SIGINT) stops it.
//  - gdbserver: Debian gdbserver 13's replies, registers as its ARC Linux description (no
//    regnums, pc 34): no `p`/`P` (empty replies: `g`/`G`), `X` on code and data, no-ack mode,
//    `qRcmd` answered with its help text, stop replies expediting sp and pc, multiprocess.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ppe::arc::sim {

enum class Personality { OpenOcd, Qemu, Gdbserver };
const char* personalityName(Personality p);
bool parsePersonality(const std::string& name, Personality& out);

struct SimRegister {
    enum class Kind { Core, Pc, Status32, Aux, Plain } kind;
    std::string name;
    unsigned regnum = 0;
    uint32_t index = 0; // Core: r0..r31; Aux: the aux address
    std::string feature;
    std::string type = "int";
};

struct Layout {
    std::vector<SimRegister> registers; // by regnum
    size_t inG = 0; // the first this many are in a `g` reply
    // The documents, by name; "target.xml" first.
    std::vector<std::pair<std::string, std::string>> documents;
};

// `pctFeature`: openocd only: whether the PCT registers are in the description.
Layout makeLayout(Personality p, bool pctFeature);

struct Replies {
    std::string supported; // qSupported
    std::string vCont; // vCont? ("" not supported)
    bool noAck = false;
    bool multiprocess = false;
    bool registerPackets = true; // p and P
    bool binaryWrite = true; // X
    bool codeWritable = true; // M/X to code (qemu-arc: E14)
    bool monitor = false; // qRcmd
    bool readsWhileRunning = false; // 0x03 (and, openocd, p and m) read while running
    bool haltAtEnd = false; // the end is a stop, not an exit
};
Replies repliesOf(Personality p);

} // namespace ppe::arc::sim
