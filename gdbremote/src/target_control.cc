#include "ppe/gdbremote/target_control.h"

#include "ppe/gdbremote/hex.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>

namespace ppe::gdbremote {

const char* targetStateName(TargetState state)
{
    switch (state) {
    case TargetState::Stopped:
        return "stopped";
    case TargetState::Running:
        return "running";
    case TargetState::Ended:
        return "ended";
    case TargetState::Detached:
        return "detached";
    }
    return "stopped";
}

TargetControl::TargetControl(Session& session, ControlOptions options)
    : m_session(session)
    , m_options(std::move(options))
{
}

std::string TargetControl::meansName() const
{
    switch (m_means) {
    case StopMeans::Unknown:
        return "none needed";
    case StopMeans::InterruptByte:
        return "0x03";
    case StopMeans::ServerSignal:
        return "SIGINT to the server process";
    case StopMeans::ProgramSignal:
        return "SIGINT to the program (traced on this machine)";
    case StopMeans::None:
        return "none: the server ignores 0x03";
    }
    return "none needed";
}

std::optional<bool> TargetControl::interruptByte() const
{
    if (!m_byteTried)
        return std::nullopt;
    return m_means == StopMeans::InterruptByte;
}

uint64_t TargetControl::pid() const
{
    const auto& last = m_session.lastStop();
    if (!last || last->thread.size() < 2 || last->thread[0] != 'p')
        return 0;
    const std::string_view thread(last->thread);
    return parseHexNumber(thread.substr(1, thread.find('.') - 1)).value_or(0);
}

void TargetControl::interruptByteIgnored()
{
    if (m_means != StopMeans::Unknown || !m_options.fallbackInterrupt)
        return;
    m_byteTried = true;
    m_means = StopMeans::ServerSignal;
}

Result<std::string> TargetControl::request(std::string_view packet)
{
    if (m_state == TargetState::Running && !m_session.nonStop())
        return Error { m_session.peer(), 0,
            "'" + std::string(packet.substr(0, 20)) + "' not sent: the target runs in all-stop mode" };
    if (m_state == TargetState::Ended || m_state == TargetState::Detached)
        return Error { m_session.peer(), 0,
            "'" + std::string(packet.substr(0, 20)) + "' not sent: the target is " + targetStateName(m_state) };
    return m_session.request(packet);
}

Status TargetControl::resume(int signal)
{
    if (m_state != TargetState::Stopped)
        return Error { m_session.peer(), 0, std::string("cannot resume: the target is ") + targetStateName(m_state) };
    auto resumed = m_session.resume(signal);
    if (resumed)
        m_state = TargetState::Running;
    return resumed;
}

Result<StopReply> TargetControl::step(const std::string& thread, int signal)
{
    if (m_state != TargetState::Stopped)
        return Error { m_session.peer(), 0, std::string("cannot step: the target is ") + targetStateName(m_state) };
    if (auto stepped = m_session.step(thread, signal); !stepped)
        return stepped.error();
    m_state = TargetState::Running;
    return stopped(m_session.waitForStop(m_options.stopWait));
}

// Sends the stop request of `means`; the stop itself comes as a reply.
Status TargetControl::send(StopMeans means)
{
    m_interruptSent = Clock::now();
    if (means == StopMeans::InterruptByte)
        return m_session.interrupt();
    if (means == StopMeans::ServerSignal)
        return m_options.fallbackInterrupt();
    if (means == StopMeans::ProgramSignal) {
        if (::kill(pid_t(pid()), SIGINT) != 0)
            return Error { {}, 0, "cannot signal the program " + std::to_string(pid()) + ": " + std::strerror(errno) };
        return std::monostate {};
    }
    return Error { m_session.peer(), 0,
        "the server ignores 0x03 while the target runs and ppe-arc has no other way to stop it: start the server "
        "with --spawn, use --mode non-stop, or (gdbserver --attach) attach to a program that leads its process "
        "group (setsid)" };
}

bool TargetControl::programIsLocalTracee() const
{
    const uint64_t program = pid();
    const std::string& peer = m_session.peer();
    const bool loopback
        = peer.rfind("localhost:", 0) == 0 || peer.rfind("127.", 0) == 0 || peer.rfind("[::1]:", 0) == 0;
    if (!m_options.signalLocalProgram || !program || !loopback)
        return false;
    std::ifstream status("/proc/" + std::to_string(program) + "/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("TracerPid:", 0) == 0)
            return std::strtoull(line.c_str() + 10, nullptr, 10) != 0;
    return false;
}

// The first stop: 0x03, and when the server ignored it for interruptWait, the fallbacks in turn.
Result<StopReply> TargetControl::probeStop()
{
    m_byteTried = true;
    if (auto sent = send(StopMeans::InterruptByte); !sent)
        return sent.error();
    // Garbage on the line is no stop: wait for the stop reply itself. A broken connection fails
    // the fallback's wait as well, with its own message.
    auto stop = m_session.waitForStop(m_options.interruptWait);
    if (stop) {
        m_means = StopMeans::InterruptByte;
        return stop;
    }
    m_means = m_options.fallbackInterrupt ? StopMeans::ServerSignal
        : programIsLocalTracee()          ? StopMeans::ProgramSignal
                                          : StopMeans::None;
    return stopBy(m_means);
}

Result<StopReply> TargetControl::stopBy(StopMeans means)
{
    if (auto sent = send(means); !sent)
        return sent.error();
    return m_session.waitForStop(m_options.stopWait);
}

Result<StopReply> TargetControl::stopped(Result<StopReply> stop)
{
    if (!stop)
        return stop;
    if (stop->ended()) {
        m_state = TargetState::Ended;
        m_exit = *stop;
        return stop;
    }
    m_state = TargetState::Stopped;
    drainStale();
    return stop;
}

Result<StopReply> TargetControl::stop()
{
    if (m_state != TargetState::Running || m_session.nonStop())
        return Error { m_session.peer(), 0,
            std::string("cannot stop the target: it is ")
                + (m_session.nonStop() ? "in non-stop mode" : targetStateName(m_state)) };
    return stopped(m_means == StopMeans::Unknown ? probeStop() : stopBy(m_means));
}

Result<StopReply> TargetControl::ownStop()
{
    auto stop = m_session.waitForStop(m_options.stopWait);
    if (m_session.nonStop()) { // one thread's stop: the target as a whole runs on
        if (stop && stop->ended()) {
            m_state = TargetState::Ended;
            m_exit = *stop;
        }
        return stop;
    }
    return stopped(std::move(stop));
}

// Stop replies that came unasked after a stop and are already received (QEMU repeats its reply
// when it reads the 0x03 that it ignored as a bad acknowledgement): read and dropped, so that they
// answer no later request. Later ones are set aside by Session: before an ack as unsolicited,
// after it in place of the reply as late stops. Nothing is read from the connection here: a wait
// would cost every sample its time.
void TargetControl::drainStale()
{
    for (int i = 0; i < 8 && !m_session.nonStop() && m_session.stopReceived(); ++i) {
        if (!m_session.waitForStop(m_options.stopWait))
            return;
        ++m_stale;
    }
}

Status TargetControl::detach()
{
    if (m_state == TargetState::Ended || m_state == TargetState::Detached)
        return std::monostate {};
    if (m_state == TargetState::Running && !m_session.nonStop()) {
        auto stop = this->stop();
        if (!stop)
            return stop.error();
        if (m_state == TargetState::Ended)
            return std::monostate {};
    }
    auto detached = m_session.detach();
    if (detached)
        m_state = TargetState::Detached;
    return detached;
}

Status TargetControl::kill()
{
    if (m_state == TargetState::Running && !m_session.nonStop()) {
        if (auto stop = this->stop(); !stop)
            return stop.error();
    }
    auto killed = m_session.kill();
    if (killed)
        m_state = TargetState::Ended;
    return killed;
}

} // namespace ppe::gdbremote
