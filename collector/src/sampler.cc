#include "sampler.h"

#include "dispositions.h"
#include "messages.h"
#include "perf_events.h"
#include "task_list.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

namespace ppe {

namespace {

#ifndef TRAP_PERF
    constexpr int TRAP_PERF = 6; // include/uapi/asm-generic/siginfo.h, Linux 5.13
#endif

    constexpr uint64_t kPerfCookie = 0x7070652d73696774ull; // "ppe-sigt": perf_event_attr::sig_data
    constexpr int kMaxPerfEvents = 256;
    constexpr int kMaxThreads = 4096;
    constexpr unsigned kThreadRefreshTicks = 16;

    struct State {
        Mechanism mechanism = Mechanism::None;
        SamplerHooks hooks {};
        uint64_t intervalNs = 0;
        int signal = 0;
        void (*ending)(int signal) = nullptr; // writes the profile before a default-fatal signal kills
        int snapshotSignal = 0; // PPE_SNAPSHOT_SIGNAL: asks for a snapshot, never ends the program
        void (*snapshot)() = nullptr;
        std::atomic<bool> running { false };
        std::atomic<bool> armed { false };
        pid_t pid = 0;
        // perf-task-clock
        int perfFds[kMaxPerfEvents] = {};
        int perfCount = 0;
        // posix-timer
        timer_t timer {};
        bool haveTimer = false;
        std::atomic<bool> fanOutBusy { false };
        unsigned ticksToRefresh = 0; // 0: the thread list is refreshed at the next tick
        pid_t threads[kMaxThreads] = {};
        int threadCount = 0;
    };

    State g_sampler;
    int g_timerCookie; // its address is the posix timer's sigev_value

    pid_t currentTid() { return pid_t(syscall(SYS_gettid)); }

    uintptr_t interruptedPc(const void* context)
    {
        const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
        return uintptr_t(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__i386__)
        return uintptr_t(uc->uc_mcontext.gregs[REG_EIP]);
#elif defined(__aarch64__)
        return uintptr_t(uc->uc_mcontext.pc);
#elif defined(__riscv)
        return uintptr_t(uc->uc_mcontext.__gregs[REG_PC]);
#elif defined(__powerpc64__)
        return uintptr_t(uc->uc_mcontext.gp_regs[32]);
#else
#error "ppe: add the program counter of ucontext_t for this architecture"
#endif
    }

    // siginfo_t::si_perf_data is not in every C library's siginfo_t; it sits right after si_addr.
    uint64_t perfData(const siginfo_t* info)
    {
        unsigned long data;
        std::memcpy(&data, reinterpret_cast<const char*>(&info->si_addr) + sizeof(void*), sizeof(data));
        return data;
    }

    // Forwards a tick of `weight` intervals to `tid` (rt_tgsigqueueinfo: unlike tgkill it carries a value).
    void forward(pid_t pid, pid_t tid, int signal, uint64_t weight)
    {
        siginfo_t info {};
        info.si_signo = signal;
        info.si_code = SI_QUEUE;
        info.si_pid = pid;
        info.si_uid = getuid();
        info.si_value.sival_ptr = reinterpret_cast<void*>(uintptr_t(weight));
        syscall(SYS_rt_tgsigqueueinfo, pid, tid, signal, &info);
    }

    void fanOut(uint64_t weight)
    {
        State& s = g_sampler;
        if (s.fanOutBusy.exchange(true, std::memory_order_acquire))
            return; // another thread is forwarding this tick's predecessor
        if (s.ticksToRefresh == 0) {
            const int n = listThreads(s.threads, kMaxThreads);
            s.threadCount = n > 0 ? n : 0;
            s.ticksToRefresh = kThreadRefreshTicks;
        }
        --s.ticksToRefresh;
        const pid_t self = currentTid();
        const pid_t quiet = s.hooks.quietThread ? s.hooks.quietThread() : 0;
        for (int i = 0; i < s.threadCount; ++i) {
            if (s.threads[i] != self && s.threads[i] != quiet)
                forward(s.pid, s.threads[i], s.signal, weight);
        }
        s.fanOutBusy.store(false, std::memory_order_release);
    }

    // The real-time timer's own signal: a real-time signal queues and is nobody's convention, so a
    // program's SIGPROF (its own ITIMER_PROF profiler) never collides with the collector's ticks.
    // (Two pending standard signals merge into one: sharing SIGPROF lost the program's ticks.)
    int timerSignal() { return SIGRTMAX - 3; }

    // ---- the handler ----

    enum class Origin { Foreign, Sample, Tick, Forwarded };

    Origin originOf(int signal, const siginfo_t* info)
    {
        const State& s = g_sampler;
        if (signal != SIGTRAP && signal != SIGPROF && signal != timerSignal())
            return Origin::Foreign;
        if (signal == SIGTRAP)
            return info->si_code == TRAP_PERF && perfData(info) == kPerfCookie ? Origin::Sample : Origin::Foreign;
        if (s.mechanism == Mechanism::ItimerProf && info->si_code == SI_KERNEL
            && s.armed.load(std::memory_order_relaxed))
            return Origin::Sample;
        if (info->si_code == SI_TIMER && info->si_value.sival_ptr == &g_timerCookie)
            return Origin::Tick;
        if (info->si_code == SI_QUEUE && info->si_pid == s.pid && s.mechanism == Mechanism::PosixTimer)
            return Origin::Forwarded;
        return Origin::Foreign;
    }

    // A synchronous fault re-executes its instruction when the handler returns, and faults again.
    bool isSynchronousFault(int signal, const siginfo_t* info)
    {
        return (signal == SIGSEGV || signal == SIGBUS || signal == SIGFPE || signal == SIGILL) && info->si_code > 0;
    }

    // The signal arrived while the program's action was the default, which terminates the process:
    // the profile first (the ending hook, O(1) here: the collector thread writes it), then the
    // default action, core dump included. The kernel gets SIG_DFL; an asynchronous signal is sent
    // again (it stays pending while this handler runs and kills on return), a fault re-executes.
    void endByDefault(int signal, const siginfo_t* info)
    {
        if (g_sampler.ending)
            g_sampler.ending(signal);
        takeDefaultAction(signal);
        if (!isSynchronousFault(signal, info))
            syscall(SYS_tgkill, getpid(), currentTid(), signal);
    }

    bool handles(const struct sigaction& action)
    {
        return action.sa_handler != SIG_DFL && action.sa_handler != SIG_IGN;
    }

    // The program's handler, run as the kernel would have run it: with its sa_mask added to the
    // interrupted thread's mask and the signal blocked unless SA_NODEFER, its action reset to the
    // default first with SA_RESETHAND. (SA_RESTART and SA_ONSTACK are the collector's: see sampler.h.)
    void callProgram(int signal, siginfo_t* info, void* context, const struct sigaction& action)
    {
        if (action.sa_flags & SA_RESETHAND)
            resetProgramAction(signal);
        sigset_t during = static_cast<const ucontext_t*>(context)->uc_sigmask;
        sigorset(&during, &during, &action.sa_mask);
        if ((action.sa_flags & SA_ONSTACK) && quietSignal())
            sigaddset(&during, quietSignal()); // as for the program's other handlers (dispositions.h)
        if (action.sa_flags & SA_NODEFER)
            sigdelset(&during, signal);
        else
            sigaddset(&during, signal);
        sigset_t saved;
        pthread_sigmask(SIG_SETMASK, &during, &saved);
        if (action.sa_flags & SA_SIGINFO)
            action.sa_sigaction(signal, info, context);
        else
            action.sa_handler(signal);
        pthread_sigmask(SIG_SETMASK, &saved, nullptr);
    }

    // A signal of an owned number that is not a sample gets what the program's action gives it.
    void passOn(int signal, siginfo_t* info, void* context)
    {
        struct sigaction action;
        programAction(signal, &action);
        if (handles(action))
            callProgram(signal, info, context, action);
        else if (action.sa_handler == SIG_DFL)
            endByDefault(signal, info);
    }

    // The snapshot signal asks for a snapshot, then goes to the program's handler if it has one; its
    // default action (ending the program) is what the user asked the collector to replace.
    void takeSnapshotSignal(int signal, siginfo_t* info, void* context)
    {
        g_sampler.snapshot();
        struct sigaction action;
        programAction(signal, &action);
        if (handles(action))
            callProgram(signal, info, context, action);
    }

    // The guard of an ending signal (dispositions.h): only in the kernel while the program's action
    // is the default, so the default action is what happens.
    void onEnding(int signal, siginfo_t* info, void*)
    {
        const int savedErrno = errno;
        endByDefault(signal, info);
        errno = savedErrno;
    }

    // A sample of the interrupted thread, weighted by what it stands for.
    void takeSample(Origin origin, const siginfo_t* info, void* context)
    {
        const State& s = g_sampler;
        uint64_t weight = 1;
        if (s.mechanism == Mechanism::ItimerProf) {
            const pid_t tid = currentTid();
            if (tid == s.hooks.quietThread())
                return; // the collector's own thread, which takes SIGPROF so that no waiting thread does
            weight = s.hooks.cpuCredit(tid, s.intervalNs);
            if (!weight)
                return; // under an interval of the thread's CPU time since its last sample
            s.hooks.weighed(weight);
        } else if (origin == Origin::Tick) {
            weight += uint64_t(info->si_overrun > 0 ? info->si_overrun : 0);
            s.hooks.tick(weight);
            fanOut(weight);
        } else if (origin == Origin::Forwarded) {
            weight = uintptr_t(info->si_value.sival_ptr);
        }
        s.hooks.sample(interruptedPc(context), weight);
    }

    void onSignal(int signal, siginfo_t* info, void* context)
    {
        const int savedErrno = errno;
        const State& s = g_sampler;
        const Origin origin = originOf(signal, info);
        if (origin == Origin::Foreign && signal == s.snapshotSignal && s.snapshot) {
            takeSnapshotSignal(signal, info, context);
        } else if (origin == Origin::Foreign) {
            passOn(signal, info, context);
        } else if (s.running.load(std::memory_order_relaxed)) {
            takeSample(origin, info, context);
        }
        errno = savedErrno;
    }

    // The collector's disposition: onSignal, on the program's alternate stack if it has one.
    struct sigaction collectorAction(int extraFlags)
    {
        struct sigaction action { };
        action.sa_sigaction = onSignal;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK | extraFlags;
        sigemptyset(&action.sa_mask);
        return action;
    }

    bool installHandler(int signal, const char** why)
    {
        g_sampler.signal = signal;
        if (ownsSignal(signal))
            return true; // still ours from an earlier arming
        struct sigaction previous { };
        __sigaction(signal, nullptr, &previous);
        if (handles(previous) && signal != SIGTRAP) {
            *why = signal == SIGPROF ? "SIGPROF already has a handler (another profiler?)"
                                     : "the program already handles the real-time signal SIGRTMAX-3";
            return false;
        }
        if (!ownSignal(signal, collectorAction(SA_RESTART))) {
            *why = "cannot install the signal handler";
            return false;
        }
        return true;
    }

    // ---- perf-task-clock ----

    int openTaskClock(pid_t tid, uint64_t periodNs)
    {
        perf_event_attr attr = taskClockAttr(periodNs);
        attr.inherit_thread = 1; // forked processes are not counted: they arm their own
        attr.remove_on_exec = 1; // required with sigtrap: the new image does not expect SIGTRAP
        attr.sigtrap = 1;
        attr.sig_data = kPerfCookie;
        return openPerfEvent(attr, tid, -1);
    }

    void closePerfEvents()
    {
        for (int i = 0; i < g_sampler.perfCount; ++i)
            closePerfEvent(g_sampler.perfFds[i]); // only if still ours (perf_events.h)
        g_sampler.perfCount = 0;
    }

    // One event per existing thread (normally just this one, before main); later threads inherit.
    bool openPerfEvents(bool allThreads, const char** why)
    {
        State& s = g_sampler;
        pid_t tids[kMaxPerfEvents];
        int count = allThreads ? listThreads(tids, kMaxPerfEvents) : -1;
        if (count <= 0) {
            tids[0] = currentTid();
            count = 1;
        }
        for (int i = 0; i < count; ++i) {
            const int fd = openTaskClock(tids[i], s.intervalNs);
            if (fd >= 0) {
                s.perfFds[s.perfCount++] = fd;
                continue;
            }
            if (tids[i] == currentTid()) {
                *why = errno == EACCES || errno == EPERM ? "perf events not permitted (kernel.perf_event_paranoid > 2?)"
                    : errno == EMFILE                    ? perfNoRoom // perf_events.h
                                                         : "perf_event_open failed (kernel older than 5.13?)";
                closePerfEvents();
                return false;
            }
        }
        return true;
    }

    // ---- posix-timer ----

    bool createTimer(const char** why)
    {
        sigevent event {};
        event.sigev_notify = SIGEV_SIGNAL;
        event.sigev_signo = timerSignal();
        event.sigev_value.sival_ptr = &g_timerCookie;
        if (timer_create(CLOCK_MONOTONIC, &event, &g_sampler.timer) != 0) {
            *why = "timer_create failed";
            return false;
        }
        g_sampler.haveTimer = true;
        return true;
    }

    void setTimer(uint64_t ns)
    {
        itimerspec spec {};
        spec.it_interval.tv_sec = time_t(ns / 1'000'000'000);
        spec.it_interval.tv_nsec = long(ns % 1'000'000'000);
        spec.it_value = spec.it_interval;
        timer_settime(g_sampler.timer, 0, &spec, nullptr);
    }

    void setItimer(uint64_t ns)
    {
        itimerval spec {};
        spec.it_interval.tv_sec = time_t(ns / 1'000'000'000);
        spec.it_interval.tv_usec = suseconds_t(ns % 1'000'000'000 / 1000);
        spec.it_value = spec.it_interval;
        rawSetitimer(ITIMER_PROF, &spec, nullptr);
    }

    bool armMechanism(Mechanism mechanism, bool allThreads, const char** why)
    {
        const State& s = g_sampler;
        switch (mechanism) {
        case Mechanism::PerfTaskClock:
            return openPerfEvents(allThreads, why);
        case Mechanism::PosixTimer:
            return createTimer(why);
        case Mechanism::PerfRing:
            if (!allThreads)
                return reopenRingsInChild(why);
            if (!openRings(s.intervalNs, s.hooks.ringSize, s.hooks.ring, why))
                return false;
            if (startRingDrain(why))
                return true;
            closeRings();
            return false;
        case Mechanism::ItimerProf:
        case Mechanism::None:
        case Mechanism::GdbRemote: // not the collector's
        case Mechanism::Unknown:
            return true;
        }
        return true;
    }

    Mechanism firstChoice(TimerChoice choice)
    {
        switch (choice) {
        case TimerChoice::Perf:
            return Mechanism::PerfTaskClock;
        case TimerChoice::Itimer:
            return Mechanism::ItimerProf;
        case TimerChoice::Posix:
            return Mechanism::PosixTimer;
        case TimerChoice::Ring:
        case TimerChoice::Auto:
            break;
        }
        // Both modes: running threads by their CPU time, no signal at all (real time adds the
        // collector thread's scan of blocked threads, blocked_scan.h).
        return Mechanism::PerfRing;
    }

    // What is tried when `mechanism` cannot be armed: PPE_TIMER=auto and =ring go from perf-ring
    // to perf-task-clock (the kernel lets no ring be mapped, e.g. locked memory) and from there to
    // the tick-bound process timer (perf events refused). A mechanism asked for by name has none.
    Mechanism fallback(TimerChoice choice, Mechanism mechanism)
    {
        if (choice != TimerChoice::Auto && choice != TimerChoice::Ring)
            return Mechanism::None;
        return mechanism == Mechanism::PerfRing     ? Mechanism::PerfTaskClock
            : mechanism == Mechanism::PerfTaskClock ? Mechanism::ItimerProf
                                                    : Mechanism::None;
    }

    int signalOf(Mechanism mechanism)
    {
        switch (mechanism) {
        case Mechanism::PerfTaskClock:
            return SIGTRAP;
        case Mechanism::PosixTimer:
            return timerSignal();
        case Mechanism::ItimerProf:
            return SIGPROF;
        case Mechanism::PerfRing:
        case Mechanism::None:
        case Mechanism::GdbRemote:
        case Mechanism::Unknown:
            break;
        }
        return 0;
    }

} // namespace

int rawSetitimer(int which, const struct itimerval* value, struct itimerval* old)
{
    return int(syscall(SYS_setitimer, which, value, old));
}

void yieldProfTimer()
{
    State& s = g_sampler;
    if (s.mechanism != Mechanism::ItimerProf || !s.armed.exchange(false, std::memory_order_acq_rel))
        return;
    s.running.store(false, std::memory_order_release);
    s.mechanism = Mechanism::None; // from now on every SIGPROF is the program's
    const char message[] = "ppe: the program sets ITIMER_PROF itself: CPU-time sampling stops here\n";
    write(2, message, sizeof(message) - 1);
}

bool guardSnapshot(int signal, void (*snapshot)())
{
    State& s = g_sampler;
    if (!ownsSignal(signal) && !ownSignal(signal, collectorAction(SA_RESTART)))
        return false;
    s.snapshot = snapshot;
    s.snapshotSignal = signal;
    return true;
}

void guardEndings(const int* signals, int count, void (*ending)(int signal))
{
    g_sampler.ending = ending;
    // SA_RESTART: a system call the signal interrupts is never seen failing (the default action
    // ends the process anyway). Every signal blocked: nothing runs on top of it on the program's
    // alternate stack while it waits for the profile.
    struct sigaction guard { };
    guard.sa_sigaction = onEnding;
    guard.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    sigfillset(&guard.sa_mask);
    for (int i = 0; i < count; ++i)
        guardSignal(signals[i], guard);
}

Mechanism armSampler(uint64_t intervalNs, TimerChoice choice, SamplerHooks hooks, const char** why)
{
    State& s = g_sampler;
    closePerfEvents(); // from an earlier arming (ppe_set)
    closeRings();
    if (s.haveTimer)
        timer_delete(s.timer);
    s.haveTimer = false;
    s.hooks = hooks;
    s.intervalNs = intervalNs;
    s.pid = getpid();
    Mechanism mechanism = firstChoice(choice);
    const char* ringRefused = nullptr;
    for (;;) {
        const int signal = signalOf(mechanism);
        if ((!signal || installHandler(signal, why)) && armMechanism(mechanism, true, why))
            break;
        if (mechanism == Mechanism::PerfRing)
            ringRefused = *why;
        mechanism = fallback(choice, mechanism);
        if (mechanism == Mechanism::None)
            return Mechanism::None;
    }
    // Asked for by name, perf-ring says why it is not used (by default the mechanism in the
    // profile's header is enough).
    if (ringRefused && choice == TimerChoice::Ring)
        say({ "perf-ring: ", ringRefused, "; sampling by ", mechanismName(mechanism), " instead" });
    if (const int signal = signalOf(mechanism); signal && signal != quietSignal())
        quietOnAlternateStacks(signal);
    s.mechanism = mechanism;
    s.armed.store(true, std::memory_order_release);
    return mechanism;
}

void runSampler(bool on)
{
    State& s = g_sampler;
    if (!s.armed.load(std::memory_order_acquire))
        return;
    s.running.store(on, std::memory_order_release);
    switch (s.mechanism) {
    case Mechanism::PerfTaskClock:
        for (int i = 0; i < s.perfCount; ++i)
            controlPerfEvent(s.perfFds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
        break;
    case Mechanism::ItimerProf:
        setItimer(on ? s.intervalNs : 0);
        break;
    case Mechanism::PosixTimer:
        setTimer(on ? s.intervalNs : 0);
        break;
    case Mechanism::PerfRing:
        enableRings(on);
        break;
    case Mechanism::None:
    case Mechanism::GdbRemote: // not the collector's
    case Mechanism::Unknown:
        break;
    }
}

void drainSampler()
{
    if (g_sampler.mechanism == Mechanism::PerfRing)
        drainRings();
}

void disarmSampler()
{
    runSampler(false);
    g_sampler.armed.store(false, std::memory_order_release);
}

bool rearmSamplerInChild(const char** why)
{
    State& s = g_sampler;
    if (!s.armed.load(std::memory_order_acquire))
        return true;
    const bool wasRunning = s.running.load(std::memory_order_relaxed);
    s.running.store(false, std::memory_order_relaxed);
    s.pid = getpid();
    s.threadCount = 0;
    s.ticksToRefresh = 0;
    s.fanOutBusy.store(false, std::memory_order_relaxed);
    // The parent's descriptors name the parent's events: ioctls on them would pause the parent.
    closePerfEvents();
    s.haveTimer = false;
    if (!armMechanism(s.mechanism, false, why)) {
        s.armed.store(false, std::memory_order_release);
        return false;
    }
    if (wasRunning)
        runSampler(true);
    return true;
}

} // namespace ppe
