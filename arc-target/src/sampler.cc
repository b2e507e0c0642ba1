#include "ppe/arc/sampler.h"

#include <algorithm>
#include <random>

namespace ppe::arc {

using gdbremote::Clock;
using gdbremote::StopReply;

const char* endReasonName(SamplingEnd end)
{
    switch (end) {
    case SamplingEnd::Duration:
        return "duration";
    case SamplingEnd::TargetExited:
        return "exit";
    case SamplingEnd::Interrupted:
        return "interrupted";
    case SamplingEnd::PeerError:
        return "peer error";
    }
    return "duration";
}

namespace {

    constexpr auto kSlice = std::chrono::milliseconds(50); // how often a wait looks at the stop flag
    // Non-stop: how often a wait for one thread's stop looks whether the thread is still listed.
    constexpr auto kThreadSlice = std::chrono::milliseconds(20);

    // GDB's signal numbers: 0 none, 2 SIGINT (0x03 or our SIGINT), 5 SIGTRAP. Others are the
    // program's own signals, passed on when it runs again.
    int programSignal(const StopReply& stop)
    {
        return stop.code == 0 || stop.code == 2 || stop.code == 5 ? 0 : stop.code;
    }

    double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

    enum class Wake { Deadline, TargetSpoke, StopAsked };

    class Loop {
    public:
        Loop(gdbremote::TargetControl& control, gdbremote::PcReader& reader, const SamplerOptions& options,
            const std::function<void(uint64_t)>& sample)
            : m_control(control)
            , m_session(control.session())
            , m_reader(reader)
            , m_options(options)
            , m_sample(sample)
            , m_random(options.seed ? options.seed : uint64_t(Clock::now().time_since_epoch().count()))
        {
        }

        SamplingResult run();

    private:
        bool stopAsked() const { return m_options.stop && m_options.stop->load(std::memory_order_relaxed); }
        Clock::time_point tick(uint64_t k);
        Result<Wake> runUntil(Clock::time_point when);
        Result<StopReply> interruptTarget();
        Status sampleOnce(bool last);
        Status sampleRunning();
        Status readThreads(const StopReply& stop, bool last);
        void count(uint64_t pc, bool last);
        Status ownStop();
        Status passOn(const StopReply& stop);
        Result<std::string> nextThread();
        Result<std::optional<StopReply>> waitForThread(const std::string& thread);
        Status sampleThread(bool last);
        Status stopAndDetach();
        void fail(const Error& error);

        gdbremote::TargetControl& m_control;
        gdbremote::Session& m_session;
        gdbremote::PcReader& m_reader;
        const SamplerOptions& m_options;
        const std::function<void(uint64_t)>& m_sample;
        std::mt19937_64 m_random;
        SamplingResult m_result;
        Clock::time_point m_start;
        Clock::time_point m_interrupted; // when the interrupt that worked was sent
        Clock::time_point m_stopSeen; // non-stop: when the stop of the thread came
        std::vector<std::string> m_threads; // non-stop: the thread list, round-robin
        size_t m_nextThread = 0;
        Clock::time_point m_listed {};
        bool m_relist = false;
    };

    // Tick k's time: k intervals from the start, moved by up to ± jitter/2 intervals. The schedule
    // is absolute: a late sample does not move the later ones.
    Clock::time_point Loop::tick(uint64_t k)
    {
        const double u = std::uniform_real_distribution<double>(-0.5, 0.5)(m_random);
        const double at = (double(k) + u * m_options.jitter) * double(m_options.interval.count());
        return m_start + std::chrono::microseconds(int64_t(at));
    }

    // Lets the target run until `when`, watching for a stop it makes itself and for the stop flag.
    Result<Wake> Loop::runUntil(Clock::time_point when)
    {
        for (Clock::time_point now = Clock::now(); now < when; now = Clock::now()) {
            if (stopAsked())
                return Wake::StopAsked;
            auto got = m_session.incoming(std::min(when, now + kSlice));
            if (!got)
                return got.error();
            if (*got)
                return Wake::TargetSpoke;
        }
        return stopAsked() ? Wake::StopAsked : Wake::Deadline;
    }

    // The target's stop by the means TargetControl found; when it had ended instead, its exit is
    // recorded (the caller sees ended()).
    Result<StopReply> Loop::interruptTarget()
    {
        Result<StopReply> stop = m_control.stop();
        m_interrupted = m_control.interruptSent();
        m_result.interruptByte = m_control.interruptByte();
        if (stop && stop->ended())
            m_result.exit = *stop;
        return stop;
    }

    // A stop the target made by itself while running: it ended, or the program got a signal.
    Status Loop::ownStop()
    {
        auto stop = m_control.ownStop();
        if (!stop)
            return stop.error();
        if (stop->ended()) {
            m_result.exit = *stop;
            return std::monostate {};
        }
        if (m_session.nonStop())
            return passOn(*stop);
        ++m_result.programSignals;
        return m_control.resume(programSignal(*stop));
    }

    // Non-stop mode: a thread's own stop (a signal of the program) runs it again with its signal.
    Status Loop::passOn(const StopReply& stop)
    {
        if (!stop.stopped() || stop.thread.empty())
            return std::monostate {}; // a thread that exited, no thread resumed: nothing to run again
        const int signal = programSignal(stop);
        m_result.programSignals += signal != 0;
        return m_session.resumeThread(stop.thread, signal);
    }

    void Loop::count(uint64_t pc, bool last)
    {
        m_sample(pc);
        ++m_result.samples;
        if (m_options.whileStopped && !last)
            m_options.whileStopped(false, pc);
    }

    // All-stop: the PC of every thread (or the stopped one's), each counted.
    Status Loop::readThreads(const StopReply& stop, bool last)
    {
        // The stopped thread first, without Hg: the server selected it when it reported the stop.
        auto pc = m_reader.read();
        if (!pc)
            return pc.error();
        count(*pc, last);
        if (!m_result.everyThread)
            return std::monostate {};
        auto threads = m_session.threadList();
        if (!threads)
            return threads.error();
        m_result.threadsMax = std::max<uint64_t>(m_result.threadsMax, std::max<size_t>(threads->size(), 1));
        for (const std::string& thread : *threads) {
            if (thread == stop.thread)
                continue;
            auto pc = m_reader.readThread(thread);
            if (!pc)
                return pc.error();
            count(*pc, last);
        }
        return std::monostate {};
    }

    // Stops the target, reads and counts its PC, runs it again (or detaches it after the last).
    Status Loop::sampleOnce(bool last)
    {
        auto stop = interruptTarget();
        if (!stop)
            return stop.error();
        if (stop->ended())
            return std::monostate {};
        const int signal = programSignal(*stop);
        last = last || stopAsked();
        if (auto read = readThreads(*stop, last); !read)
            return read;
        if (m_options.whileStopped && last)
            m_options.whileStopped(true, 0);
        auto next = last ? m_control.detach() : m_control.resume(signal);
        m_result.stopSeconds.push_back(seconds(Clock::now() - m_interrupted));
        m_result.detached = last && next.ok();
        return next;
    }

    // Running mode: the PC read while the target runs. A stop that came before the answer is the
    // target's own (taken at the next wait), an end too.
    Status Loop::sampleRunning()
    {
        const Clock::time_point asked = Clock::now();
        auto pc = m_reader.readRunning();
        if (!pc) {
            auto stopped = m_session.incoming(Clock::now());
            return stopped && *stopped ? ownStop() : Status(pc.error());
        }
        m_result.readSeconds.push_back(seconds(Clock::now() - asked));
        m_sample(*pc);
        ++m_result.samples;
        return std::monostate {};
    }

    // Non-stop: the next thread in turn; the list is read again when a round is over and it is
    // older than threadListAge, or a thread had gone. "" when the target has no thread.
    Result<std::string> Loop::nextThread()
    {
        const bool stale = Clock::now() - m_listed >= m_options.threadListAge;
        if (m_threads.empty() || m_relist || (m_nextThread >= m_threads.size() && stale)) {
            auto threads = m_session.threadList();
            if (!threads)
                return threads.error();
            m_threads = std::move(*threads);
            m_listed = Clock::now();
            m_relist = false;
            m_nextThread = 0;
            m_result.threadsMax = std::max<uint64_t>(m_result.threadsMax, m_threads.size());
        }
        if (m_threads.empty())
            return std::string();
        if (m_nextThread >= m_threads.size())
            m_nextThread = 0;
        return m_threads[m_nextThread++];
    }

    // Non-stop: the stop of `thread` after vCont;t. Stops of other threads on the way are passed
    // on; nothing when the thread has gone (no stop within threadStopWait and no longer listed, or
    // reported exited); the target's end sets m_result.exit.
    Result<std::optional<StopReply>> Loop::waitForThread(const std::string& thread)
    {
        const Clock::time_point until = Clock::now() + m_options.threadStopWait;
        for (;;) {
            auto got = m_session.incoming(std::min(until, Clock::now() + kThreadSlice));
            if (!got)
                return got.error();
            if (!*got) { // gdbserver accepts vCont;t for a thread that has exited, and nothing comes
                auto threads = m_session.threadList();
                if (!threads)
                    return threads.error();
                if (std::find(threads->begin(), threads->end(), thread) == threads->end())
                    return std::optional<StopReply>();
                if (Clock::now() >= until)
                    return Error { m_session.peer(), 0, "thread " + thread + " did not stop" };
                continue;
            }
            auto stop = m_session.waitForStop(m_options.stopWait);
            if (!stop)
                return stop.error();
            if (stop->ended()) {
                m_result.exit = *stop;
                return std::optional<StopReply>();
            }
            if (stop->thread == thread)
                return stop->kind == StopReply::Kind::ThreadExited ? std::optional<StopReply>() : *stop;
            if (auto passed = passOn(*stop); !passed)
                return passed.error();
        }
    }

    // Non-stop: stops one thread, reads and counts its PC, runs it again; the others run on.
    Status Loop::sampleThread(bool last)
    {
        auto thread = nextThread();
        if (!thread)
            return thread.error();
        last = last || stopAsked();
        m_interrupted = Clock::now();
        auto asked = thread->empty() ? Result<bool>(false) : m_session.interruptThread(*thread);
        if (!asked)
            return asked.error();
        auto stop = *asked ? waitForThread(*thread) : Result<std::optional<StopReply>>(std::nullopt);
        if (!stop)
            return stop.error();
        if (m_result.exit)
            return std::monostate {};
        if (!*stop) {
            m_result.threadsGone += !thread->empty();
            m_relist = true;
        } else {
            m_stopSeen = Clock::now();
            auto pc = m_reader.readStopped(**stop);
            if (!pc)
                return pc.error();
            count(*pc, last);
        }
        if (m_options.whileStopped && last)
            m_options.whileStopped(true, 0);
        auto next = last ? m_control.detach()
            : *stop      ? m_session.resumeThread(*thread, programSignal(**stop))
                         : Status(std::monostate {});
        if (*stop) {
            m_result.stopSeconds.push_back(seconds(Clock::now() - m_interrupted));
            m_result.heldSeconds.push_back(seconds(Clock::now() - m_stopSeen));
        }
        m_result.detached = last && next.ok();
        return next;
    }

    // Ends sampling with the program running on; in all-stop mode the last library list is read
    // while it stands stopped for the detach.
    Status Loop::stopAndDetach()
    {
        if (m_control.running() && !m_session.nonStop()) {
            auto stop = interruptTarget();
            if (!stop)
                return stop.error();
            if (stop->ended())
                return std::monostate {};
        }
        if (m_options.whileStopped && !m_session.nonStop() && m_control.state() == gdbremote::TargetState::Stopped)
            m_options.whileStopped(true, 0);
        auto detached = m_control.detach();
        m_result.detached = detached.ok();
        return detached;
    }

    // Never leave the target stopped: TargetControl stops it if it runs, then detaches, at best
    // effort (a target whose server cannot be made to stop it runs on, attached).
    void Loop::fail(const Error& error)
    {
        m_result.end = SamplingEnd::PeerError;
        m_result.error = error.str();
        m_result.detached = m_control.detach().ok();
    }

} // namespace

SamplingResult Loop::run()
{
    m_start = Clock::now();
    m_result.nonStop = m_session.nonStop();
    m_result.whileRunning = !m_result.nonStop && m_options.whileRunning;
    m_result.everyThread
        = !m_result.nonStop && !m_result.whileRunning && m_options.everyThread && m_reader.readsAnyThread();
    const Clock::time_point begin = m_start, end = m_start + m_options.duration;
    const bool timed = m_options.duration.count() > 0;
    Status status = m_control.resume();
    for (uint64_t k = 1; status && !m_result.exit && !m_result.detached;) {
        Clock::time_point when = tick(k);
        const bool last = timed && when + m_options.interval > end; // detach after this sample
        if (timed && when > end) {
            m_result.end = SamplingEnd::Duration;
            status = stopAndDetach();
            break;
        }
        auto wake = runUntil(when);
        if (!wake) {
            status = wake.error();
            break;
        }
        if (*wake == Wake::StopAsked) {
            m_result.end = SamplingEnd::Interrupted;
            status = stopAndDetach();
            break;
        }
        if (*wake == Wake::TargetSpoke) {
            status = ownStop();
            continue;
        }
        status = m_result.nonStop ? sampleThread(last) : m_result.whileRunning ? sampleRunning() : sampleOnce(last);
        if (m_result.detached)
            m_result.end = stopAsked() ? SamplingEnd::Interrupted : SamplingEnd::Duration;
        if (m_result.stopSeconds.size() == 1 && k == 1 && !m_result.nonStop) {
            m_start = Clock::now(); // the schedule starts once the way to stop the target is known
            k = 0;
        }
        const uint64_t due = k + 1;
        while (tick(++k) < Clock::now())
            ;
        m_result.missed += k - due;
    }
    if (m_result.exit)
        m_result.end = SamplingEnd::TargetExited;
    m_result.wallSeconds = seconds(Clock::now() - begin);
    m_result.stopMeans = m_control.meansName();
    if (!status)
        fail(status.error());
    return std::move(m_result);
}

SamplingResult sample(gdbremote::TargetControl& control, gdbremote::PcReader& reader, const SamplerOptions& options,
    const std::function<void(uint64_t pc)>& sample)
{
    return Loop(control, reader, options, sample).run();
}

gdbremote::ControlOptions controlOptions(const SamplerOptions& options)
{
    gdbremote::ControlOptions out;
    out.interruptWait = options.interruptWait;
    out.stopWait = options.stopWait;
    out.fallbackInterrupt = options.fallbackInterrupt;
    return out;
}

SamplingResult sample(gdbremote::Session& session, gdbremote::PcReader& reader, const SamplerOptions& options,
    const std::function<void(uint64_t pc)>& sample)
{
    gdbremote::TargetControl control(session, controlOptions(options));
    return Loop(control, reader, options, sample).run();
}

Result<double> runToEnd(gdbremote::TargetControl& control, const std::atomic<bool>* stop)
{
    const Clock::time_point start = Clock::now();
    for (int signal = 0;;) {
        if (auto resumed = control.resume(signal); !resumed)
            return resumed.error();
        for (bool spoke = false; !spoke;) {
            if (stop && stop->load(std::memory_order_relaxed))
                return Error { control.session().peer(), 0, "interrupted before the program ended" };
            auto got = control.session().incoming(Clock::now() + kSlice);
            if (!got)
                return got.error();
            spoke = *got;
        }
        auto own = control.ownStop();
        if (!own)
            return own.error();
        if (own->ended())
            return seconds(Clock::now() - start);
        signal = programSignal(*own);
    }
}

Intrusion intrusionOf(const SamplingResult& result)
{
    Intrusion out;
    std::vector<double> stops = result.stopSeconds;
    out.stops = stops.size();
    if (stops.empty())
        return out;
    for (double s : stops)
        out.stopped += s;
    out.mean = out.stopped / double(stops.size());
    const size_t at = std::min(stops.size() - 1, size_t(double(stops.size()) * 0.9));
    std::nth_element(stops.begin(), stops.begin() + long(at), stops.end());
    out.p90 = stops[at];
    out.ratio = result.wallSeconds > 0 ? out.stopped / result.wallSeconds : 0;
    return out;
}

} // namespace ppe::arc
