// libppe: starts before main when PPE_ON is set, samples the program counter of every thread into
// a histogram of the main executable's code, and writes NAME.ppe when the program ends.
#include "lifecycle.h"

#include "blocked_scan.h"
#include "call_paths.h"
#include "checkpoints.h"
#include "collector_state.h"
#include "first_collector.h"
#include "forked_child.h"
#include "live_directory.h"
#include "messages.h"
#include "output_names.h"
#include "ppe/core/missing_samples.h"
#include "ppe/core/output_file.h"
#include "ppe/core/output_patterns.h"
#include "ppe/core/ppe_writer.h"
#include "process_end.h"
#include "retired_objects.h"
#include "run_identity.h"
#include "service_thread.h"
#include "threads.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <pthread.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

namespace ppe {

Collector g_ppe;

uint64_t nowNs(clockid_t clock)
{
    timespec t {};
    clock_gettime(clock, &t);
    return uint64_t(t.tv_sec) * 1'000'000'000 + uint64_t(t.tv_nsec);
}

clockid_t activeClock()
{
    return g_ppe.mechanism == Mechanism::PosixTimer ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID;
}

namespace {

    // ---- the sampler's hooks: signal handler context ----

    void onSample(uintptr_t pc, uint64_t weight)
    {
        LiveProfile* live = g_ppe.live.load(std::memory_order_acquire);
        if (!live || onServiceThread())
            return; // the collector's own thread is not the program
        recordSample(live->histogram, pc, weight);
        countThreadSample(weight);
        markSampleTime(*live);
    }

    // perf-ring: a sample from the collector thread's drain of the ring buffers (ring_sampler.h).
    void onRingSample(uintptr_t pc, pid_t tid, uint64_t weight)
    {
        LiveProfile* live = g_ppe.live.load(std::memory_order_acquire);
        if (!live)
            return;
        recordSample(live->histogram, pc, weight);
        countSampleOf(tid, weight);
        markSampleTime(*live);
    }

    void onRingDropped(uint64_t lost, uint64_t foreign, uint64_t throttled)
    {
        if (const LiveProfile* live = g_ppe.live.load(std::memory_order_acquire)) {
            ProfileRecord* r = live->histogram.record;
            std::atomic_ref<uint64_t>(r->ringLost).fetch_add(lost, std::memory_order_relaxed);
            std::atomic_ref<uint64_t>(r->ringForeign).fetch_add(foreign, std::memory_order_relaxed);
            std::atomic_ref<uint64_t>(r->ringThrottled).fetch_add(throttled, std::memory_order_relaxed);
        }
    }

    void onTick(uint64_t expirations)
    {
        if (const LiveProfile* live = g_ppe.live.load(std::memory_order_acquire))
            std::atomic_ref<uint64_t>(live->histogram.record->ticks).fetch_add(expirations, std::memory_order_relaxed);
    }

    // itimer-prof: a sample of `weight` intervals taken (the ticks count the samples taken).
    void onWeighed(uint64_t weight)
    {
        if (const LiveProfile* live = g_ppe.live.load(std::memory_order_acquire)) {
            ProfileRecord* r = live->histogram.record;
            std::atomic_ref<uint64_t>(r->ticks).fetch_add(1, std::memory_order_relaxed);
            std::atomic_ref<uint64_t>(r->weightSquares).fetch_add(weight * weight, std::memory_order_relaxed);
        }
    }

    void removeLiveFile()
    {
        // Through the directory held before a chroot when there is one (live_directory.h).
        if (g_ppe.livePath[0] && !removeHeldLiveFile(g_ppe.livePath))
            unlink(g_ppe.livePath);
        g_ppe.livePath[0] = '\0';
    }

    // The live profile in its file, or anonymous (saying that a SIGKILL would lose it).
    LiveProfile* mapLive(const BinLayout& layout, const ObjectImage& image)
    {
        removeLiveFile();
        const int fd = openLiveFile(g_ppe.outputPath, g_ppe.livePath);
        int error = fd < 0 ? errno : 0;
        const uint32_t callNodes = g_ppe.config.calls ? uint32_t(g_ppe.config.callNodes) : 0;
        LiveProfile* live = createLiveProfile(layout, image.bias, image.loadedStart, image.loadedEnd, fd, callNodes);
        error = error ? error : live ? 0 : errno; // fallocate's ENOSPC, EDQUOT; mmap's ENOMEM
        if (fd >= 0)
            close(fd);
        if (!live || fd < 0) {
            if (!live)
                removeLiveFile();
            say({ "no live file next to ", g_ppe.outputPath, " (", strerrordesc_np(error),
                "): a SIGKILL would lose the profile" });
        }
        if (!live)
            live = createLiveProfile(layout, image.bias, image.loadedStart, image.loadedEnd, -1, callNodes);
        return live;
    }

    void onExit() { endProcess("exit"); }

    // The samples the process's CPU time should have given at the asked rate (user time only for the
    // perf mechanisms, which exclude the kernel); 0 for the real-time timer, whose rate is wall time.
    uint64_t expectedSamples(uint64_t activeNs, uint64_t intervalNs, Mechanism mechanism)
    {
        if (countsTimerTicks(mechanism) || !intervalNs)
            return 0;
        rusage usage {};
        getrusage(RUSAGE_SELF, &usage);
        const uint64_t user = uint64_t(usage.ru_utime.tv_sec) * 1'000'000 + uint64_t(usage.ru_utime.tv_usec);
        const uint64_t all = user + uint64_t(usage.ru_stime.tv_sec) * 1'000'000 + uint64_t(usage.ru_stime.tv_usec);
        const bool userOnly = samplesUserTimeOnly(mechanism);
        const unsigned __int128 full = activeNs / intervalNs;
        return uint64_t(userOnly && all ? full * user / all : full);
    }

    // Samples a CPU second of one thread should give (the formatter's rule): the asked rate for the
    // real-time timer; what the threads whose CPU time is known achieved together for itimer-prof.
    double threadRate(const ProfileRecord& r, std::span<const ThreadRecord> threads, Mechanism mechanism)
    {
        if (countsTimerTicks(mechanism))
            return 1e7 / double(r.interval);
        double samples = 0;
        double cpu = 0;
        for (const ThreadRecord& t : threads)
            if (t.tid && t.cpuNs) {
                samples += double(t.samples);
                cpu += double(t.cpuNs) / 1e9;
            }
        return cpu > 0 ? samples / cpu : 0;
    }

    // The end message gives counts and leaves the reasons to the report (formatter/src/
    // missing_samples.cc, the one home of the words; the thresholds are core/missing_samples.h's),
    // so that a user who never formats still learns that samples are missing.
    void sayMissingThreads(const ProfileRecord& r, std::span<const ThreadRecord> threads, Mechanism mechanism)
    {
        if (!r.interval || !signalsProcessDirected(mechanism))
            return;
        const double rate = threadRate(r, threads, mechanism);
        uint64_t count = 0;
        const ThreadRecord* first = nullptr;
        for (const ThreadRecord& t : threads)
            if (t.tid && threadMissesSamples(double(t.cpuNs) / 1e9, t.samples, rate)) {
                first = first ? first : &t;
                ++count;
            }
        if (!first)
            return;
        say({ Part::dec(count), count == 1 ? " thread took" : " threads took",
            " under half the samples its CPU time should have given (thread ", Part::dec(first->tid), ": ",
            Part::dec(first->samples), " samples for ", Part::dec(first->cpuNs / 1'000'000), " ms of CPU, about ",
            Part::dec(uint64_t(double(first->cpuNs) / 1e9 * rate)), " expected): the report names each and says why" });
    }

    void sayMissingSamples(const ProfileRecord& r, uint64_t activeNs, Mechanism mechanism)
    {
        if (r.ringLost || r.ringForeign)
            say({ "perf-ring: ", Part::dec(r.ringLost), " samples lost (a ring buffer was full), ",
                Part::dec(r.ringForeign), " of other processes dropped" });
        const uint64_t expected = expectedSamples(activeNs, r.interval * 100, mechanism);
        const uint64_t taken = samplesTaken(mechanism, r.ticks, totalSamples(r));
        if (!samplesMissing(double(expected), double(taken), kMissingPercent))
            return; // too few to tell, or at least 80 %
        say({ "only ", Part::dec(taken * 100 / expected),
            "% of the samples the process's CPU time should have given were taken (", Part::dec(taken), " of ",
            Part::dec(expected), "): the report says why" });
    }

    // The signals that end batch jobs and crashed programs (PPE wrote its file on all of these):
    // fatal errors, queue time limits and job deletion, terminal and shutdown signals.
    constexpr int kEndingSignals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTERM, SIGINT, SIGHUP,
        SIGQUIT, SIGXCPU, SIGXFSZ, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE };

    // "signal N" for every N, made at compile time: an ending names its reason with a pointer.
    struct SignalReasons {
        char text[NSIG][12] = {};
    };

    constexpr SignalReasons makeSignalReasons()
    {
        SignalReasons reasons;
        for (int n = 0; n < NSIG; ++n) {
            const char prefix[] = "signal ";
            int i = 0;
            for (; prefix[i]; ++i)
                reasons.text[n][i] = prefix[i];
            if (n >= 10)
                reasons.text[n][i++] = char('0' + n / 10);
            reasons.text[n][i] = char('0' + n % 10);
        }
        return reasons;
    }

    constexpr SignalReasons kSignalReasons = makeSignalReasons();

    void onEndingSignal(int signal) { endProcess(kSignalReasons.text[signal]); }

    // The parent's live file is shared with the parent: a file-backed child gets its own.
    bool ownLiveProfileInChild()
    {
        LiveProfile* live = g_ppe.live.load(std::memory_order_acquire);
        if (!g_ppe.livePath[0]) {
            clearCounters(*live);
            return true;
        }
        const int fd = openLiveFile(g_ppe.outputPath, g_ppe.livePath);
        LiveProfile* own = cloneEmpty(*live, fd);
        if (fd >= 0)
            close(fd);
        if (!own)
            return false;
        g_ppe.live.store(own, std::memory_order_release);
        munmap(live, live->mappingSize);
        return true;
    }

    void restartInChild()
    {
        ProfileRecord& r = *g_ppe.live.load(std::memory_order_acquire)->histogram.record;
        forgetRetiredObjects();
        clearThreads();
        clearBlockedScan();
        r.pid = uint64_t(getpid());
        r.parentPid = uint64_t(getppid());
        r.startTime = int64_t(time(nullptr));
        g_ppe.activeNs = 0;
        g_ppe.periodStartNs = nowNs(activeClock());
        g_ppe.wallStartNs = nowNs(CLOCK_MONOTONIC);
        restartSamplingInChild();
    }

    void onForkChild()
    {
        const Phase phase = g_ppe.phase.load(std::memory_order_acquire);
        if (!g_ppe.live.load(std::memory_order_acquire) || phase == Phase::Off || phase == Phase::Stopped)
            return;
        g_ppe.control = PTHREAD_MUTEX_INITIALIZER;
        outputPathForChild(g_ppe.basePath, g_ppe.outputPath);
        if (deferForkedChild())
            return; // perf-ring: the child's own profile waits (forked_child.h, issue 33)
        if (!ownLiveProfileInChild()) {
            g_ppe.phase.store(Phase::Off, std::memory_order_release);
            disabled("cannot map the forked child's histogram");
            return;
        }
        restartInChild();
    }

    // The object PPE_OBJECT names when it is loaded, else the executable (saying so).
    const ObjectImage& monitoredImage(const ObjectImage& executable, ObjectImage& object)
    {
        const char* name = g_ppe.config.object;
        if (!name || findNamedImage(name, &object))
            return name ? object : executable;
        say({ "PPE_OBJECT=", name,
            ": no such shared object is loaded at start (dlopen'ed later, or another name?); monitoring the "
            "executable. Its samples are kept by file offset if it loads: `ppeout --object ",
            name, "` formats them with its map and listings" });
        return executable;
    }

    void warnValue(const char* name, const char* value, const char* problem, const char* kept)
    {
        say({ name, "=\"", value, "\": ", problem, "; using ", kept });
    }

    void start(LiveProfile* live)
    {
        g_ppe.wallStartNs = nowNs(CLOCK_MONOTONIC);
        g_ppe.live.store(live, std::memory_order_release);
        g_ppe.phase.store(Phase::Ready, std::memory_order_release);
        atexit(onExit);
        pthread_atfork(nullptr, nullptr, onForkChild);
        announce(*live);
        const char* why = nullptr;
        if (!startCheckpoints(&why))
            say({ "no checkpoints: ", why });
        // After the checkpoint job exists (a snapshot asked for earlier was lost: mpirun passed an
        // early SIGUSR2 on), and before the endings: the snapshot signal may be one of them (USR1, USR2).
        if (g_ppe.config.snapshotSignal && !guardSnapshot(g_ppe.config.snapshotSignal, requestCheckpoint))
            say({ "PPE_SNAPSHOT_SIGNAL: cannot install its handler; no snapshots" });
        prepareProcessEnd();
        guardEndings(kEndingSignals, int(sizeof(kEndingSignals) / sizeof(kEndingSignals[0])), onEndingSignal);
        scanBlockedThreadsInRealTime();
        startPeriod();
        // A record of the live file taken now that sampling runs: a recovery reads the time after the
        // record as running time only when it says so (issue 34: a process killed in its first half
        // second kept the record taken before, "not running", and had no active time).
        refreshLiveStateNow();
    }

} // namespace

void disabled(const char* why) { say({ "disabled: ", why }); }

void restartSamplingInChild()
{
    const char* why = nullptr;
    // The sampler first: the restarted collector thread drains the child's rings, not the parent's.
    if (!rearmSamplerInChild(&why)) {
        g_ppe.phase.store(Phase::Off, std::memory_order_release);
        disabled(why);
    }
    if (!restartCheckpointsInChild(&why))
        say({ "no checkpoints in the forked child: ", why });
}

bool active()
{
    const Phase phase = g_ppe.phase.load(std::memory_order_acquire);
    return phase == Phase::Ready || phase == Phase::Running;
}

LiveProfile* prepareLive(const ObjectImage& image, uint64_t codeStart, uint64_t codeEnd, uint64_t pages)
{
    BinLayout layout;
    if (!computeBinLayout(codeStart, codeEnd, instructionGranularity(), pages * kPageBytes, &layout)) {
        disabled("cannot fit the histogram of the monitored range in PPE_MEM");
        return nullptr;
    }
    LiveProfile* live = mapLive(layout, image);
    if (!live) {
        disabled("cannot map memory for the histogram");
        return nullptr;
    }
    describeRun(*live->histogram.record, image, g_ppe.config, g_ppe.mechanism);
    return live;
}

bool scanningBlockedThreads()
{
    return g_ppe.config.mode == SampleMode::Real && g_ppe.mechanism != Mechanism::PosixTimer;
}

void scanBlockedThreadsInRealTime()
{
    const char* why = nullptr;
    if (scanningBlockedThreads() && !startBlockedScan(g_ppe.config.interval * 100, &why))
        say({ "blocked threads are not sampled: ", why });
}

void announce(const LiveProfile& live)
{
    const BinLayout& layout = live.histogram.record->layout;
    say({ "monitored address range is ", Part::hex(layout.start), " - ", Part::hex(layout.end - 1), " (hex), ",
        mechanismName(g_ppe.mechanism), ", ", Part::dec(layout.width), "-byte bins" });
}

void startPeriod()
{
    if (g_ppe.mechanism == Mechanism::ItimerProf)
        openCpuCredit(serviceThreadId());
    g_ppe.periodStartNs = nowNs(activeClock());
    g_ppe.phase.store(Phase::Running, std::memory_order_release);
    runSampler(true);
}

void endPeriod()
{
    runSampler(false);
    g_ppe.activeNs += nowNs(activeClock()) - g_ppe.periodStartNs;
    g_ppe.phase.store(Phase::Ready, std::memory_order_release);
}

namespace {

    // PPE_CALLS: the unwinder and the tree, before the rings can be drained into them; the stack
    // bytes asked with each sample, 0 when there are to be no call paths.
    uint32_t prepareCallPaths()
    {
        const Config& c = g_ppe.config;
        const char* why = nullptr;
        if (!c.calls)
            return 0;
        if (!startCallPaths(&why)) {
            say({ "PPE_CALLS: ", why, "; no call paths" });
            return 0;
        }
        return uint32_t(c.callStack);
    }

} // namespace

bool arm()
{
    const char* why = nullptr;
    const uint32_t stackBytes = prepareCallPaths();
    g_ppe.mechanism = armSampler(g_ppe.config.interval * 100, g_ppe.config.timer,
        SamplerHooks { onSample, onTick, creditThreadCpu, onWeighed, serviceThreadId,
            RingHooks { onRingSample, onRingDropped, serviceThreadId, stackBytes ? takeCallPath : nullptr },
            RingSize { g_ppe.config.ringPages, g_ppe.config.ringDrainMs * 1'000'000, stackBytes } },
        &why);
    if (g_ppe.mechanism == Mechanism::None) {
        disabled(why);
        return false;
    }
    if (stackBytes && g_ppe.mechanism != Mechanism::PerfRing)
        say({ "PPE_CALLS: call paths come with perf-ring's samples only; sampling by ", mechanismName(g_ppe.mechanism),
            ": no call paths" });
    acceptOnServiceThread(g_ppe.mechanism == Mechanism::ItimerProf ? SIGPROF : 0);
    return true;
}

namespace {

    // The final profile, once sampling has stopped (`was`: the phase it stopped in).
    void writeFinalProfile(Phase was, const char* reason)
    {
        disarmSampler();
        if (was == Phase::Running)
            g_ppe.activeNs += nowNs(activeClock()) - g_ppe.periodStartNs;
        endCheckpoints();
        waitForServiceJobs(2'000'000'000);
        drainSampler(); // the samples still in perf-ring's buffers
        LiveProfile* live = g_ppe.live.load(std::memory_order_acquire);
        // A process that execs before its first sample (a forked child that runs another program, as
        // Open MPI's singleton does with orted) leaves nothing and says nothing: the program it runs
        // has its own profile, and an empty one here would be the first line the user reads (issue 34).
        if (std::strcmp(reason, "exec") == 0 && !totalSamples(*live->histogram.record) && !g_ppe.checkpointWritten) {
            removeLiveFile();
            return;
        }
        const uint64_t wallUs = (nowNs(CLOCK_MONOTONIC) - g_ppe.wallStartNs) / 1000;
        live->histogram.record->collectorCpuMs = serviceThreadCpuMs(); // its own cost, in the header
        char written[PATH_MAX];
        const int error = writeProfileFile(*live, g_ppe.finalScratch, g_ppe.outputPath, reason, ProfileStatus::Complete,
            g_ppe.activeNs / 1000, wallUs, written, g_ppe.checkpointWritten);
        if (error) {
            say({ "cannot write ", written, ": ", strerrordesc_np(error) });
            if (g_ppe.livePath[0])
                say({ "the profile stays in ", g_ppe.livePath, " (ppe --recover)" });
            return;
        }
        removeLiveFile();
        sayMissingSamples(writtenRecord(g_ppe.finalScratch), g_ppe.activeNs, g_ppe.mechanism);
        sayMissingThreads(writtenRecord(g_ppe.finalScratch), writtenThreads(g_ppe.finalScratch), g_ppe.mechanism);
        say({ "output file is ", written });
    }

} // namespace

void finish(const char* reason)
{
    // A vfork() child shares this memory and runs no atfork handler: its exec or _exit must not
    // end the parent's profile. (glibc's getpid() is a system call, not a cache.)
    const LiveProfile* owner = g_ppe.live.load(std::memory_order_acquire);
    if (owner && owner->histogram.record->pid != uint64_t(getpid()))
        return;
    Phase phase = g_ppe.phase.load(std::memory_order_acquire);
    do {
        if (phase == Phase::Off || phase == Phase::Stopped)
            return;
    } while (!g_ppe.phase.compare_exchange_weak(phase, Phase::Stopped, std::memory_order_acq_rel));
    finalProfileStarted();
    writeFinalProfile(phase, reason);
    finalProfileDone();
}

namespace {

    // The profile's name (and the template a forked child's name comes from), saying once what
    // PPE_OUT's patterns could not expand.
    void nameOutput(const char* imagePath, bool descendant)
    {
        char host[256];
        shortHostName(host, sizeof(host));
        const NameParts parts { host, g_ppe.config.rank, g_ppe.config.job, g_ppe.config.defaultDirectory };
        const unsigned issues = chooseOutputPath(g_ppe.config.output, imagePath, descendant, parts, g_ppe.basePath);
        outputPathOf(g_ppe.basePath, uint64_t(getpid()), g_ppe.outputPath);
        if (issues & kUnknownPattern)
            say({ "PPE_OUT=\"", g_ppe.config.output, "\": a '%' pattern other than ", kOutputPatternList.text,
                " is kept as it is" });
        if (issues & kNoRank)
            say({ "PPE_OUT=\"", g_ppe.config.output,
                "\": %r without a rank (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID); the pid stands for "
                "it" });
        if (issues & kNoJob)
            say({ "PPE_OUT=\"", g_ppe.config.output,
                "\": %j without a job id (SLURM_JOB_ID, PBS_JOBID); \"nojob\" stands for it" });
    }

} // namespace

void load()
{
    // A set-user-ID or set-group-ID program (or one with file capabilities) runs with rights its
    // caller lacks: PPE_OUT and every other variable are the caller's, so none is obeyed (what glibc's
    // secure_getenv does). The collector stays off; PPE_ON alone earns one line saying why.
    if (getauxval(AT_SECURE)) {
        if (getenv("PPE_ON"))
            say({ "disabled: the program runs set-user-ID, set-group-ID or with capabilities (AT_SECURE); the "
                  "collector does not take its settings from the caller's environment there" });
        return;
    }
    g_ppe.config = readConfig([](const char* name) -> const char* { return getenv(name); }, warnValue);
    if (!g_ppe.config.enabled || !isFirstCollector())
        return;
    // A program that the launched program ran (PPE_LAUNCHED names the launched process).
    const bool descendant = g_ppe.config.launchedPid && g_ppe.config.launchedPid != uint64_t(getpid());
    if (descendant && !g_ppe.config.children)
        return;
    ObjectImage image;
    if (!findMainImage(&image)) {
        disabled("cannot find the code of the main executable");
        return;
    }
    // The name first: a directory PPE_OUT names is made now, and a failure is the first line.
    nameOutput(image.path, descendant);
    g_ppe.finalScratch = createOutputScratch();
    if (!g_ppe.finalScratch || !arm())
        return;
    static ObjectImage object; // PPE_OBJECT: a shared object's code instead (static: 4 KiB of path)
    const ObjectImage& monitored = monitoredImage(image, object);
    if (LiveProfile* live = prepareLive(monitored, monitored.codeStart, monitored.codeEnd, g_ppe.config.pages))
        start(live);
}

} // namespace ppe
