// libppe: starts before main when PPE_ON is set, samples the program counter of every thread into
// a histogram of the main executable's code, and writes NAME.ppe when the program ends.
#include "image.h"
#include "live_profile.h"
#include "messages.h"
#include "process_end.h"
#include "report.h"
#include "retired_objects.h"
#include "sampler.h"

#pragma GCC visibility push(default)
#include "ppe.h"
#pragma GCC visibility pop
#include "ppe/core/output_file.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

namespace ppe {

namespace {

    enum class Phase { Off, Ready, Running, Stopped };

    struct Collector {
        Config config;
        std::atomic<Phase> phase { Phase::Off };
        std::atomic<LiveProfile*> live { nullptr };
        ReportScratch* scratch = nullptr;
        Mechanism mechanism = Mechanism::None;
        char basePath[PATH_MAX] = {}; // the output name before any fork
        char outputPath[PATH_MAX] = {};
        char livePath[PATH_MAX] = {}; // the file-backed live profile; "" when anonymous
        uint64_t activeNs = 0; // sampling time accumulated over finished periods
        uint64_t periodStartNs = 0;
        uint64_t wallStartNs = 0;
        std::atomic<int64_t> nextCheckpoint { 0 }; // CLOCK_REALTIME_COARSE seconds; 0 = none
        std::atomic<bool> writing { false }; // a checkpoint or the final profile is being written
        bool checkpointWritten = false; // the plain output name holds this run's own checkpoint
        pthread_mutex_t control = PTHREAD_MUTEX_INITIALIZER; // serialises the control calls (never the sampler)
    };

    Collector g_ppe;

    uint64_t nowNs(clockid_t clock)
    {
        timespec t {};
        clock_gettime(clock, &t);
        return uint64_t(t.tv_sec) * 1'000'000'000 + uint64_t(t.tv_nsec);
    }

    clockid_t activeClock()
    {
        return g_ppe.config.mode == SampleMode::Cpu ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC;
    }

    // ---- the sampler's hooks: signal handler context ----

    void checkpoint();

    void onSample(uintptr_t pc, uint64_t weight)
    {
        LiveProfile* live = g_ppe.live.load(std::memory_order_acquire);
        if (!live)
            return;
        recordSample(*live, pc, weight);
        timespec now {};
        clock_gettime(CLOCK_REALTIME_COARSE, &now);
        std::atomic_ref<int64_t>(live->file.lastSampleTime).store(now.tv_sec, std::memory_order_relaxed);
        int64_t due = g_ppe.nextCheckpoint.load(std::memory_order_relaxed);
        if (due && now.tv_sec >= due
            && g_ppe.nextCheckpoint.compare_exchange_strong(due, now.tv_sec + int64_t(g_ppe.config.checkpoint)))
            checkpoint();
    }

    void onTick(uint64_t expirations)
    {
        if (const LiveProfile* live = g_ppe.live.load(std::memory_order_acquire))
            std::atomic_ref<uint64_t>(live->record->ticks).fetch_add(expirations, std::memory_order_relaxed);
    }

    // ---- identity of the run ----

    void readSmallFile(const char* path, char* out, size_t capacity, uint32_t* used)
    {
        *used = 0;
        const int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return;
        while (*used < capacity) {
            const ssize_t n = read(fd, out + *used, capacity - *used);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            *used += uint32_t(n);
        }
        close(fd);
    }

    // "model name : Intel(R) ..." (x86), else the first "Hardware"/"cpu model"/"uarch" line, else "".
    void readCpuModel(char* out, size_t capacity)
    {
        static char info[16384];
        uint32_t used = 0;
        readSmallFile("/proc/cpuinfo", info, sizeof(info) - 1, &used);
        info[used] = '\0';
        for (const char* key : { "model name", "cpu model", "Hardware", "uarch", "cpu" }) {
            const char* at = std::strstr(info, key);
            const char* colon = at ? std::strchr(at, ':') : nullptr;
            if (!colon)
                continue;
            const char* start = colon + 1 + (colon[1] == ' ');
            size_t n = 0;
            while (start[n] && start[n] != '\n' && n + 1 < capacity) {
                out[n] = start[n];
                ++n;
            }
            out[n] = '\0';
            return;
        }
    }

    void describeRun(ProfileRecord& r, const ObjectImage& image)
    {
        copyString(r.producer, sizeof(r.producer), "libppe " PPE_VERSION);
        utsname u {};
        uname(&u);
        copyString(r.host, sizeof(r.host), u.nodename);
        copyString(r.arch, sizeof(r.arch), u.machine);
        copyString(r.os, sizeof(r.os), u.sysname);
        size_t used = std::strlen(r.os);
        if (used + 1 < sizeof(r.os)) {
            r.os[used] = ' ';
            copyString(r.os + used + 1, sizeof(r.os) - used - 1, u.release);
        }
        readCpuModel(r.cpu, sizeof(r.cpu));
        readSmallFile("/proc/self/cmdline", r.command, sizeof(r.command), &r.commandSize);
        copyString(r.image, sizeof(r.image), image.path);
        std::memcpy(r.buildId, image.buildId, image.buildIdSize);
        r.buildIdSize = image.buildIdSize;
        r.pid = uint64_t(getpid());
        r.parentPid = uint64_t(getppid());
        r.startTime = int64_t(time(nullptr));
        r.granularity = instructionGranularity();
        r.mode = uint32_t(g_ppe.config.mode);
        r.interval = g_ppe.config.interval;
        copyString(r.mechanism, sizeof(r.mechanism), mechanismName(g_ppe.mechanism));
    }

    // ---- output name ----

    // Appends to a PATH_MAX buffer.
    void appendTo(char* path, const char* text)
    {
        const size_t used = std::strlen(path);
        copyString(path + used, PATH_MAX - used, text);
    }

    // `value` in decimal, written at the end of [buffer, buffer + size); returns where it starts.
    const char* decimal(uint64_t value, char* buffer, size_t size)
    {
        char* p = buffer + size - 1;
        *p = '\0';
        do {
            *--p = char('0' + value % 10);
            value /= 10;
        } while (value && p > buffer);
        return p;
    }

    void chooseOutputPath(const char* imagePath)
    {
        char* path = g_ppe.basePath;
        const char* wanted = g_ppe.config.output;
        if (!wanted) {
            copyString(path, PATH_MAX, imagePath);
            appendTo(path, ".ppe");
        } else if (wanted[0] == '/' || !getcwd(path, PATH_MAX)) {
            copyString(path, PATH_MAX, wanted); // resolved now: the program may chdir before it ends
        } else {
            appendTo(path, "/");
            appendTo(path, wanted);
        }
        copyString(g_ppe.outputPath, PATH_MAX, path);
    }

    // NAME.ppe -> NAME.PID.ppe (or NAME -> NAME.PID without an extension).
    void outputPathForChild()
    {
        const char* base = g_ppe.basePath;
        const char* slash = std::strrchr(base, '/');
        const char* dot = std::strrchr(slash ? slash : base, '.');
        if (dot && (dot == base || dot[-1] == '/'))
            dot = nullptr; // a leading dot is not an extension
        const size_t stem = dot ? size_t(dot - base) : std::strlen(base);
        char pid[24];
        const char* p = decimal(uint64_t(getpid()), pid, sizeof(pid));
        char* out = g_ppe.outputPath;
        copyString(out, stem + 1 < PATH_MAX ? stem + 1 : PATH_MAX, base);
        appendTo(out, ".");
        appendTo(out, p);
        if (dot)
            appendTo(out, dot);
    }

    // ---- one collector per process ----

    // Every copy of the collector carries this note. When the program has two (libppe.a linked in and
    // libppe.so preloaded), the copy in the earliest loaded object (the executable) runs.
    asm(".pushsection .note.ppe,\"a\",@note\n"
        ".balign 4\n"
        ".long 4\n" // namesz
        ".long 4\n" // descsz
        ".long 0x50504531\n" // type: "PPE1"
        ".asciz \"PPE\"\n"
        ".long 1\n"
        ".popsection\n");

    bool hasPpeNote(const dl_phdr_info* info)
    {
        for (unsigned i = 0; i < info->dlpi_phnum; ++i) {
            const ElfW(Phdr)& ph = info->dlpi_phdr[i];
            if (ph.p_type != PT_NOTE)
                continue;
            const char* at = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
            const char* end = at + ph.p_memsz;
            while (at + sizeof(ElfW(Nhdr)) <= end) {
                const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(at);
                const char* name = at + sizeof(*note);
                if (note->n_type == 0x50504531 && note->n_namesz == 4 && std::memcmp(name, "PPE", 4) == 0)
                    return true;
                at = name + ((note->n_namesz + 3) & ~3u) + ((note->n_descsz + 3) & ~3u);
            }
        }
        return false;
    }

    bool objectContains(const dl_phdr_info* info, uintptr_t address)
    {
        for (unsigned i = 0; i < info->dlpi_phnum; ++i) {
            const ElfW(Phdr)& ph = info->dlpi_phdr[i];
            const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
            if (ph.p_type == PT_LOAD && address >= start && address - start < ph.p_memsz)
                return true;
        }
        return false;
    }

    int findFirstCollector(dl_phdr_info* info, size_t, void* result)
    {
        if (!hasPpeNote(info))
            return 0;
        *static_cast<bool*>(result) = objectContains(info, reinterpret_cast<uintptr_t>(&g_ppe));
        return 1;
    }

    bool isFirstCollector()
    {
        bool first = true; // no note found (stripped of notes?): run
        dl_iterate_phdr(findFirstCollector, &first);
        return first;
    }

    // ---- the live file: the histogram outlives a SIGKILL ----

    // Creates OUTPUT.PID.live (or NAME.PID.live in the current directory) for the live profile.
    int openLiveFile()
    {
        char pid[24];
        const char* p = decimal(uint64_t(getpid()), pid, sizeof(pid));
        char* path = g_ppe.livePath;
        for (int attempt = 0; attempt < 2; ++attempt) {
            const char* base = g_ppe.outputPath;
            if (attempt == 1) {
                const char* slash = std::strrchr(base, '/');
                base = slash ? slash + 1 : base;
            }
            copyString(path, PATH_MAX, base);
            appendTo(path, ".");
            appendTo(path, p);
            appendTo(path, ".live");
            const int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
            if (fd >= 0)
                return fd;
        }
        path[0] = '\0';
        return -1;
    }

    void removeLiveFile()
    {
        if (g_ppe.livePath[0])
            unlink(g_ppe.livePath);
        g_ppe.livePath[0] = '\0';
    }

    // ---- life cycle ----

    void disabled(const char* why) { say({ "disabled: ", why }); }

    LiveProfile* prepareLive(const ObjectImage& image, uint64_t codeStart, uint64_t codeEnd, uint64_t pages)
    {
        BinLayout layout;
        if (!computeBinLayout(codeStart, codeEnd, instructionGranularity(), pages * kPageBytes, &layout)) {
            disabled("cannot fit the histogram of the monitored range in PPE_MEM");
            return nullptr;
        }
        removeLiveFile();
        const int fd = openLiveFile();
        LiveProfile* live = createLiveProfile(layout, image.bias, image.loadedStart, image.loadedEnd, fd);
        if (fd >= 0)
            close(fd);
        if (!live || fd < 0) {
            if (!live)
                removeLiveFile();
            say({ "no live file next to ", g_ppe.outputPath, ": a SIGKILL would lose the profile" });
        }
        if (!live)
            live = createLiveProfile(layout, image.bias, image.loadedStart, image.loadedEnd);
        if (!live) {
            disabled("cannot map memory for the histogram");
            return nullptr;
        }
        describeRun(*live->record, image);
        return live;
    }

    void announce(const LiveProfile& live)
    {
        const BinLayout& layout = live.record->layout;
        say({ "monitored address range is ", Part::hex(layout.start), " - ", Part::hex(layout.end - 1), " (hex), ",
            mechanismName(g_ppe.mechanism), ", ", Part::dec(layout.width), "-byte bins" });
    }

    void startPeriod()
    {
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

    // Stops sampling and writes the profile. Safe from a signal handler; runs once.
    void finish(const char* reason)
    {
        // A vfork() child shares this memory and runs no atfork handler: its exec or _exit must not
        // end the parent's profile. (glibc's getpid() is a system call, not a cache.)
        const LiveProfile* owner = g_ppe.live.load(std::memory_order_acquire);
        if (owner && owner->record->pid != uint64_t(getpid()))
            return;
        Phase phase = g_ppe.phase.load(std::memory_order_acquire);
        do {
            if (phase == Phase::Off || phase == Phase::Stopped)
                return;
        } while (!g_ppe.phase.compare_exchange_weak(phase, Phase::Stopped, std::memory_order_acq_rel));
        disarmSampler();
        g_ppe.nextCheckpoint.store(0, std::memory_order_relaxed);
        if (phase == Phase::Running)
            g_ppe.activeNs += nowNs(activeClock()) - g_ppe.periodStartNs;
        // A checkpoint being written in another thread finishes in milliseconds; never wait forever
        // (this may run in a signal handler that interrupted that very checkpoint).
        for (int spins = 0; g_ppe.writing.exchange(true, std::memory_order_acquire) && spins < 2000; ++spins)
            usleep(1000);
        LiveProfile* live = g_ppe.live.load(std::memory_order_acquire);
        const uint64_t wallUs = (nowNs(CLOCK_MONOTONIC) - g_ppe.wallStartNs) / 1000;
        char written[PATH_MAX];
        const int error = writeReport(*live, g_ppe.scratch, g_ppe.outputPath, reason, ProfileStatus::Complete,
            g_ppe.activeNs / 1000, wallUs, written, g_ppe.checkpointWritten);
        if (error) {
            say({ "cannot write ", written, ": ", strerrordesc_np(error) });
            if (g_ppe.livePath[0])
                say({ "the profile stays in ", g_ppe.livePath, " (ppe --recover)" });
            return;
        }
        removeLiveFile();
        say({ "output file is ", written });
    }

    void onExit() { finish("exit"); }

    // A snapshot of a long run: the profile so far, status "checkpoint", atomically renamed over the
    // previous one; and the live file pushed to disk, so that even a node crash loses at most one
    // interval. Runs in the signal handler of whichever thread's sample found it due.
    void checkpoint()
    {
        if (g_ppe.phase.load(std::memory_order_acquire) != Phase::Running
            || g_ppe.writing.exchange(true, std::memory_order_acquire))
            return;
        LiveProfile* live = g_ppe.live.load(std::memory_order_acquire);
        if (g_ppe.livePath[0])
            msync(live, live->mappingSize, MS_SYNC);
        const uint64_t activeNs = g_ppe.activeNs + nowNs(activeClock()) - g_ppe.periodStartNs;
        const uint64_t wallUs = (nowNs(CLOCK_MONOTONIC) - g_ppe.wallStartNs) / 1000;
        char written[PATH_MAX];
        if (writeReport(*live, g_ppe.scratch, g_ppe.outputPath, "checkpoint", ProfileStatus::Checkpoint,
                activeNs / 1000, wallUs, written, g_ppe.checkpointWritten)
            == 0)
            g_ppe.checkpointWritten = true;
        g_ppe.writing.store(false, std::memory_order_release);
    }

    void scheduleCheckpoints()
    {
        if (!g_ppe.config.checkpoint)
            return;
        timespec now {};
        clock_gettime(CLOCK_REALTIME_COARSE, &now);
        g_ppe.nextCheckpoint.store(now.tv_sec + int64_t(g_ppe.config.checkpoint), std::memory_order_relaxed);
    }

    // The signals that end batch jobs and crashed programs (PPE wrote its file on all of these):
    // fatal errors, queue time limits and job deletion, terminal and shutdown signals.
    constexpr int kEndingSignals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTERM, SIGINT, SIGHUP,
        SIGQUIT, SIGXCPU, SIGXFSZ, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE };

    void onEndingSignal(int signal)
    {
        char number[24];
        char reason[32] = "signal ";
        copyString(reason + 7, sizeof(reason) - 7, decimal(uint64_t(signal), number, sizeof(number)));
        finish(reason);
    }

    void onForkChild()
    {
        LiveProfile* live = g_ppe.live.load(std::memory_order_acquire);
        const Phase phase = g_ppe.phase.load(std::memory_order_acquire);
        if (!live || phase == Phase::Off || phase == Phase::Stopped)
            return;
        g_ppe.control = PTHREAD_MUTEX_INITIALIZER;
        outputPathForChild();
        if (g_ppe.livePath[0]) {
            // The parent's live file is shared with the parent: the child gets its own.
            const int fd = openLiveFile();
            LiveProfile* own = cloneEmpty(*live, fd);
            if (fd >= 0)
                close(fd);
            if (!own) {
                g_ppe.phase.store(Phase::Off, std::memory_order_release);
                disabled("cannot map the forked child's histogram");
                return;
            }
            g_ppe.live.store(own, std::memory_order_release);
            munmap(live, live->mappingSize);
            live = own;
        } else {
            clearCounters(*live);
        }
        forgetRetiredObjects();
        ProfileRecord& r = *live->record;
        r.pid = uint64_t(getpid());
        r.parentPid = uint64_t(getppid());
        r.startTime = int64_t(time(nullptr));
        g_ppe.activeNs = 0;
        g_ppe.periodStartNs = nowNs(activeClock());
        g_ppe.wallStartNs = nowNs(CLOCK_MONOTONIC);
        const char* why = nullptr;
        if (!rearmSamplerInChild(&why)) {
            g_ppe.phase.store(Phase::Off, std::memory_order_release);
            disabled(why);
        }
    }

    void warnValue(const char* name, const char* value, const char* problem, const char* kept)
    {
        say({ name, "=\"", value, "\": ", problem, "; using ", kept });
    }

    bool arm()
    {
        const char* why = nullptr;
        g_ppe.mechanism = armSampler(g_ppe.config.mode, g_ppe.config.interval * 100, g_ppe.config.timer,
            SamplerHooks { onSample, onTick }, &why);
        if (g_ppe.mechanism == Mechanism::None) {
            disabled(why);
            return false;
        }
        return true;
    }

    // The automatic start: the whole code of the main executable, sampling at once.
    void load()
    {
        g_ppe.config = readConfig([](const char* name) -> const char* { return getenv(name); }, warnValue);
        if (!g_ppe.config.enabled || !isFirstCollector())
            return;
        ObjectImage image;
        if (!findMainImage(&image)) {
            disabled("cannot find the code of the main executable");
            return;
        }
        g_ppe.scratch = createReportScratch();
        if (!g_ppe.scratch || !arm())
            return;
        chooseOutputPath(image.path);
        LiveProfile* live = prepareLive(image, image.codeStart, image.codeEnd, g_ppe.config.pages);
        if (!live)
            return;
        g_ppe.wallStartNs = nowNs(CLOCK_MONOTONIC);
        g_ppe.live.store(live, std::memory_order_release);
        g_ppe.phase.store(Phase::Ready, std::memory_order_release);
        atexit(onExit);
        pthread_atfork(nullptr, nullptr, onForkChild);
        guardEndings(kEndingSignals, int(sizeof(kEndingSignals) / sizeof(kEndingSignals[0])), onEndingSignal);
        announce(*live);
        scheduleCheckpoints();
        startPeriod();
    }

    // ---- the control calls ----

    struct ControlLock {
        ControlLock() { pthread_mutex_lock(&g_ppe.control); }
        ~ControlLock() { pthread_mutex_unlock(&g_ppe.control); }
        ControlLock(const ControlLock&) = delete;
        ControlLock& operator=(const ControlLock&) = delete;
    };

    bool active()
    {
        const Phase phase = g_ppe.phase.load(std::memory_order_acquire);
        return phase == Phase::Ready || phase == Phase::Running;
    }

    int initRange(uintptr_t start, uintptr_t end, unsigned pages)
    {
        ControlLock lock;
        if (!active())
            return -1;
        ObjectImage image;
        if (end <= start || !findImageContaining(start, &image)) {
            say({ "ppe_init: ", Part::hex(start), " - ", Part::hex(end), " is not in a loaded object's code" });
            return -1;
        }
        if (g_ppe.phase.load(std::memory_order_acquire) == Phase::Running)
            endPeriod();
        LiveProfile* live
            = prepareLive(image, start - image.bias, end - image.bias, pages ? pages : g_ppe.config.pages);
        if (!live)
            return -1;
        // The previous profile's memory stays mapped: a signal may still be on its way to it.
        g_ppe.live.store(live, std::memory_order_release);
        g_ppe.activeNs = 0;
        announce(*live);
        return 0;
    }

    int setSampling(unsigned interval, int mode)
    {
        ControlLock lock;
        if (!active())
            return -1;
        if (interval < kMinInterval || (mode != 0 && mode != 1)) {
            say({ "ppe_set: invalid interval ", Part::dec(interval), " or mode ", Part::dec(uint64_t(mode)),
                "; keeping the current ones" });
            return -1;
        }
        const bool running = g_ppe.phase.load(std::memory_order_acquire) == Phase::Running;
        if (running)
            endPeriod();
        g_ppe.config.interval = interval;
        g_ppe.config.mode = SampleMode(mode);
        disarmSampler();
        if (!arm()) {
            g_ppe.phase.store(Phase::Off, std::memory_order_release);
            return -1;
        }
        LiveProfile* live = g_ppe.live.load(std::memory_order_acquire);
        live->record->interval = interval;
        live->record->mode = uint32_t(mode);
        copyString(live->record->mechanism, sizeof(live->record->mechanism), mechanismName(g_ppe.mechanism));
        if (running)
            startPeriod();
        return 0;
    }

    int startSampling()
    {
        ControlLock lock;
        if (!active())
            return -1;
        if (g_ppe.phase.load(std::memory_order_acquire) == Phase::Ready)
            startPeriod();
        return 0;
    }

    int pauseSampling()
    {
        ControlLock lock;
        if (!active())
            return -1;
        if (g_ppe.phase.load(std::memory_order_acquire) == Phase::Running)
            endPeriod();
        return 0;
    }

    int stopSampling()
    {
        ControlLock lock;
        if (!active())
            return -1;
        finish("ppe_stop");
        return 0;
    }

    __attribute__((constructor)) void autoStart() { ppe_load(); }

} // namespace

void finishBeforeProcessEnds(const char* reason) { finish(reason); }

int closeSharedObject(void* handle, int (*realDlclose)(void*))
{
    const LiveProfile* live = g_ppe.live.load(std::memory_order_acquire);
    if (!live || !active() || live->record->pid != uint64_t(getpid()))
        return realDlclose(handle);
    return closeAndRetire(handle, realDlclose, live->pcs);
}

} // namespace ppe

extern "C" {

void ppe_load(void)
{
    static bool loaded = false;
    if (loaded)
        return;
    loaded = true;
    ppe::load();
}

int ppe_init(const void* start, const void* end, unsigned pages)
{
    return ppe::initRange(reinterpret_cast<uintptr_t>(start), reinterpret_cast<uintptr_t>(end), pages);
}

int ppe_set(unsigned interval, int mode) { return ppe::setSampling(interval, mode); }
int ppe_start(void) { return ppe::startSampling(); }
int ppe_pause(void) { return ppe::pauseSampling(); }
int ppe_stop(void) { return ppe::stopSampling(); }

void ppe_init_(const long long* start, const long long* end) { ppe_init_f(start, end, nullptr); }

void ppe_init_f(const long long* start, const long long* end, const int* pages)
{
    ppe::initRange(uintptr_t(*start), uintptr_t(*end), pages && *pages > 0 ? unsigned(*pages) : 0);
}

void ppe_set_(const int* interval, const int* mode) { ppe_set(unsigned(*interval), *mode); }
void ppe_start_(void) { ppe_start(); }
void ppe_pause_(void) { ppe_pause(); }
void ppe_stop_(void) { ppe_stop(); }
}
