// The sampling loop of ppe-arc: run the target, stop it on an absolute-deadline schedule with a
// little random jitter (so that it cannot alias with a periodic loop of the target), read its PC,
// run it again; measure how long each stop held the target. The GDB remote protocol reads
// registers of a stopped thread only ("halt-and-read"). All-stop mode: a stop holds every thread;
// every thread's PC is read (the thread list, then `Hg` + `p`/`g` each), or only the one that
// reported the stop. Non-stop mode (the session in it, QNonStop:1): a sample stops ONE thread
// (`vCont;t:TID`, round-robin over the thread list), reads its PC and runs it again (`vCont;c:TID`)
// while the others run on. Running mode (whileRunning): where the server reads registers while the
// core runs (OpenOCD, over JTAG), each sample is a `p` of the PC and the target never stops for one.
#pragma once

#include "ppe/gdbremote/pc_reader.h"
#include "ppe/gdbremote/session.h"
#include "ppe/gdbremote/target_control.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ppe::arc {

using gdbremote::Status;

struct SamplerOptions {
    std::chrono::microseconds interval { 10'000 };
    std::chrono::microseconds duration { 0 }; // 0: until the target ends or `stop` is set
    double jitter = 0.2; // each sample time is its tick ± jitter/2 intervals, uniformly
    uint64_t seed = 0; // of the jitter (0: from the clock)
    std::chrono::milliseconds interruptWait { 1000 }; // for a stop after the first 0x03 byte
    std::chrono::milliseconds stopWait { 5000 }; // for a stop once the way to stop the target is known
    // Stops a server that ignores 0x03 while the target runs (QEMU's user-mode stubs): SIGINT to
    // the emulator ppe-arc started. Without one, such a server is an error.
    std::function<Status()> fallbackInterrupt;
    const std::atomic<bool>* stop = nullptr; // set (by a SIGINT handler) to end sampling
    // Called while the target is stopped after each sample with its PC (`last`: before the
    // detach, PC 0 when the last stop took no sample), to read what changes as it runs, such as
    // its library list. Its time counts as intrusion.
    std::function<void(bool last, uint64_t pc)> whileStopped;
    bool everyThread = true; // all-stop: every thread's PC at each stop, else the stopped thread's
    bool whileRunning = false; // all-stop: the PC read while the target runs, no stop (--mode running)
    std::chrono::milliseconds threadListAge { 100 }; // non-stop: the thread list is read again after this
    std::chrono::milliseconds threadStopWait { 1000 }; // non-stop: for one thread's stop (gone when not)
};

enum class SamplingEnd { Duration, TargetExited, Interrupted, PeerError };
const char* endReasonName(SamplingEnd end); // the .ppe's end-reason

struct SamplingResult {
    SamplingEnd end = SamplingEnd::Duration;
    std::string error; // the peer's failure, one line (PeerError)
    std::optional<gdbremote::StopReply> exit; // W or X when the target ended
    uint64_t samples = 0; // PCs read and counted (several a stop with everyThread)
    bool nonStop = false; // the session was in non-stop mode
    bool everyThread = false; // all-stop and every thread's PC was read at each stop
    bool whileRunning = false; // every PC was read while the target ran
    std::vector<double> readSeconds; // running mode: per sample, from the `p` sent to its answer
    uint64_t threadsMax = 0; // the most threads a thread list had
    uint64_t threadsGone = 0; // non-stop: threads listed that had gone when asked to stop
    uint64_t missed = 0; // ticks skipped because the loop was late
    uint64_t programSignals = 0; // stops for the program's own signals, passed on to it
    std::optional<bool> interruptByte; // whether 0x03 stopped the target (probed at the first stop)
    std::string stopMeans; // how the target was stopped (TargetControl::meansName)
    // per stop, from the interrupt sent to the resume sent (in non-stop mode: of one thread)
    std::vector<double> stopSeconds;
    // non-stop: per stop, from the thread's stop notification to its resume sent (a lower bound:
    // after vCont;t the thread stops only once it is scheduled to take the signal)
    std::vector<double> heldSeconds;
    double wallSeconds = 0; // from the first resume to the end
    bool detached = false; // the session ended with `D` and the target runs on
};

// Samples until the duration ends, the target exits, `options.stop` is set or the peer fails;
// calls `sample(pc)` for each PC read. The target is stopped on entry and is never left stopped:
// at the end it is detached (continues) unless it ended. Errors end sampling; they are in the result.
SamplingResult sample(gdbremote::TargetControl& control, gdbremote::PcReader& reader, const SamplerOptions& options,
    const std::function<void(uint64_t pc)>& sample);
// The same with a TargetControl made from `options` (its waits and fallback).
SamplingResult sample(gdbremote::Session& session, gdbremote::PcReader& reader, const SamplerOptions& options,
    const std::function<void(uint64_t pc)>& sample);
gdbremote::ControlOptions controlOptions(const SamplerOptions& options);

// Runs the stopped target to its end with no stop of ppe-arc's (the program's own signals passed
// on): the wall seconds from the resume to its end, what `ppe-arc sample --baseline` compares the
// sampled run with. An error when `stop` is set first or the peer fails.
Result<double> runToEnd(gdbremote::TargetControl& control, const std::atomic<bool>* stop);

// Intrusion figures of a run: the mean and the 90th percentile of the stop times, their sum, and
// that sum ÷ wall time.
struct Intrusion {
    uint64_t stops = 0;
    double mean = 0, p90 = 0, stopped = 0, ratio = 0;
};
Intrusion intrusionOf(const SamplingResult& result);

} // namespace ppe::arc
