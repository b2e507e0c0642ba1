// The one owner of the target's run state: whether it runs or stands stopped, how it is stopped
// (the 0x03 byte, probed once; SIGINT to a `--spawn`ed server; SIGINT to the program itself when
// it is traced on this machine), how it runs again and how the session ends. The sampler, the
// probe and the counters (issue 37) stop and run the target only through it, so that an error
// path cannot reach a way to stop the target that is not there (the `std::bad_function_call` of
// an attached program that does not lead its process group, issue 36).
//
// In all-stop mode a server reads nothing but 0x03 while the target runs (gdbserver discards the
// packet, QEMU queues it and answers it later with a stale stop): `request()` refuses then. After
// every stop, stop replies already queued (QEMU repeats its stop reply) are drained; one that
// comes later, in place of a request's reply, is read past by Session::request.
#pragma once

#include "ppe/gdbremote/session.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace ppe::gdbremote {

struct ControlOptions {
    std::chrono::milliseconds interruptWait { 1000 }; // for a stop after the first 0x03 byte
    std::chrono::milliseconds stopWait { 5000 }; // for a stop once the way to stop the target is known
    // Stops a server that ignores 0x03 while the target runs (QEMU's user-mode stubs): SIGINT to
    // the server ppe-arc started.
    std::function<Status()> fallbackInterrupt;
    // Whether SIGINT may go to the program itself when the server ignored 0x03 and has no
    // fallback: only when the server is on this machine (a loopback peer) and the process is
    // traced (gdbserver --attach to a program that does not lead its process group: gdbserver
    // sends SIGINT to the group and fails).
    bool signalLocalProgram = true;
};

enum class TargetState { Stopped, Running, Ended, Detached };
const char* targetStateName(TargetState state);

// How the running target was stopped; Unknown until the first stop by ppe-arc.
enum class StopMeans { Unknown, InterruptByte, ServerSignal, ProgramSignal, None };

class TargetControl {
public:
    // The target is stopped on entry (a server's first stop). In non-stop mode it runs: stops are
    // of one thread at a time, asked by the sampler, and `stop()` is not used.
    TargetControl(Session& session, ControlOptions options = {});

    TargetState state() const { return m_state; }
    bool running() const { return m_state == TargetState::Running; }
    StopMeans means() const { return m_means; }
    std::string meansName() const;
    // Whether 0x03 stopped the target (known after the first stop; nullopt before).
    std::optional<bool> interruptByte() const;
    Clock::time_point interruptSent() const { return m_interruptSent; }
    std::optional<StopReply> exit() const { return m_exit; }
    Session& session() { return m_session; }
    // Stop replies drained after stops, and those that came late in place of a reply.
    uint64_t staleStops() const { return m_stale + m_session.stats().lateStops; }

    // The server is known to ignore 0x03 while the target runs (QEMU's user-mode stub, known by its
    // own query): the fallback is used from the first stop, without a second's wait for the byte.
    // Nothing changes without a fallback.
    void interruptByteIgnored();
    // A request to the stopped target; an error, with nothing sent, while an all-stop target runs.
    Result<std::string> request(std::string_view packet);
    Status resume(int signal = 0);
    // Runs one instruction of `thread` ("" the current one) of the stopped target (all-stop) and
    // returns the stop after it (the program may have ended).
    Result<StopReply> step(const std::string& thread = {}, int signal = 0);
    // Stops the running target (all-stop): by the known means, probed the first time. The reply
    // may say the target ended (state Ended). Drains stale stop replies afterwards.
    Result<StopReply> stop();
    // The stop the running target made by itself (the server spoke while it ran).
    Result<StopReply> ownStop();
    // Ends the session with the program running on: stops it first when it runs (all-stop),
    // then `D`. Nothing to do when it has ended or was detached.
    Status detach();
    Status kill();
    // The pid of the program ("pPID.TID" in the last stop, multiprocess), 0 when unknown.
    uint64_t pid() const;

private:
    Result<StopReply> stopBy(StopMeans means);
    Result<StopReply> probeStop();
    Status send(StopMeans means);
    Result<StopReply> stopped(Result<StopReply> stop);
    void drainStale();
    bool programIsLocalTracee() const;

    Session& m_session;
    ControlOptions m_options;
    TargetState m_state = TargetState::Stopped;
    StopMeans m_means = StopMeans::Unknown;
    bool m_byteTried = false;
    Clock::time_point m_interruptSent {};
    std::optional<StopReply> m_exit;
    uint64_t m_stale = 0;
};

} // namespace ppe::gdbremote
