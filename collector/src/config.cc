#include "config.h"

#include "ppe/core/env_value.h"

#include <csignal>
#include <initializer_list>

namespace ppe {

namespace {

    bool same(const char* a, const char* b)
    {
        while (*a && *a == *b) {
            ++a;
            ++b;
        }
        return *a == *b;
    }

    void readNumber(LookupFn lookup, WarnFn warn, const char* name, uint64_t minimum, uint64_t maximum,
        const char* kept, uint64_t* value)
    {
        const char* text = lookup(name);
        if (!text)
            return;
        const ValueError error = parseDecimal(text, minimum, maximum, value);
        if (error != ValueError::None)
            warn(name, text, describe(error), kept);
    }

    TimerChoice readTimer(LookupFn lookup, WarnFn warn)
    {
        const char* text = lookup("PPE_TIMER");
        if (!text || same(text, "auto"))
            return TimerChoice::Auto;
        if (same(text, "perf"))
            return TimerChoice::Perf;
        if (same(text, "itimer"))
            return TimerChoice::Itimer;
        if (same(text, "posix"))
            return TimerChoice::Posix;
        if (same(text, "ring"))
            return TimerChoice::Ring;
        warn("PPE_TIMER", text, "not one of auto, perf, itimer, posix, ring", "auto");
        return TimerChoice::Auto;
    }

    // PPE's 0 (real time) and 1 (CPU time), or the launcher's words for them.
    SampleMode readMode(LookupFn lookup, WarnFn warn)
    {
        const char* text = lookup("PPE_MODE");
        if (text && same(text, "real"))
            return SampleMode::Real;
        if (text && same(text, "cpu"))
            return SampleMode::Cpu;
        uint64_t mode = 0;
        readNumber(lookup, warn, "PPE_MODE", 0, 1, "0", &mode);
        return SampleMode(mode);
    }

    // The signals a snapshot may be asked with: those a batch system or a user sends on purpose and
    // that mean nothing else to the collector. The ending signals (TERM, INT, HUP, XCPU, ...) end the
    // run with its profile already; taking one for a snapshot would stop it ending the program.
    struct SignalName {
        const char* name;
        int number;
    };
    constexpr SignalName kSnapshotSignals[]
        = { { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "URG", SIGURG }, { "WINCH", SIGWINCH }, { "PWR", SIGPWR } };

    bool allowedSnapshotSignal(int number)
    {
        for (const SignalName& s : kSnapshotSignals) {
            if (s.number == number)
                return true;
        }
        return number >= SIGRTMIN && number < SIGRTMAX - 3; // SIGRTMAX-3 samples under posix-timer
    }

    // "RTMIN+N" (N from 0) or "RTMAX-N" (N from 4: the last four are the collector's and libc's).
    int realTimeSignal(const char* text)
    {
        const bool fromMin = text[0] == 'R' && text[1] == 'T' && text[2] == 'M' && text[3] == 'I' && text[4] == 'N';
        const bool fromMax = text[0] == 'R' && text[1] == 'T' && text[2] == 'M' && text[3] == 'A' && text[4] == 'X';
        if (!fromMin && !fromMax)
            return 0;
        uint64_t offset = 0;
        if (text[5] && ((fromMin && text[5] != '+') || (fromMax && text[5] != '-')))
            return 0;
        if (text[5] && parseDecimal(text + 6, 0, 64, &offset) != ValueError::None)
            return 0;
        return fromMin ? SIGRTMIN + int(offset) : SIGRTMAX - int(offset);
    }

    // The first rank variable that is set to a decimal number (a bad one is skipped with a warning).
    // SLURM_PROCID counts in the tasks of an srun step (SLURM_STEP_NUM_TASKS) only: a batch script
    // has SLURM_PROCID=0 too, but it is one process, whose PPE_OUT is taken as written.
    const char* readRank(LookupFn lookup, WarnFn warn)
    {
        for (const char* name : { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID" }) {
            const char* text = lookup(name);
            if (text && same(name, "SLURM_PROCID") && !lookup("SLURM_STEP_NUM_TASKS"))
                continue;
            uint64_t rank = 0;
            if (!text)
                continue;
            const ValueError error = parseDecimal(text, 0, UINT64_MAX, &rank);
            if (error == ValueError::None)
                return text;
            warn(name, text, describe(error), "the next rank variable");
        }
        return nullptr;
    }

    const char* readJob(LookupFn lookup)
    {
        for (const char* name : { "SLURM_JOB_ID", "PBS_JOBID" }) {
            const char* text = lookup(name);
            if (text && *text)
                return text;
        }
        return nullptr;
    }

} // namespace

int parseSnapshotSignal(const char* text)
{
    if (text[0] == 'S' && text[1] == 'I' && text[2] == 'G')
        text += 3;
    int number = 0;
    uint64_t value = 0;
    if (parseDecimal(text, 1, uint64_t(NSIG - 1), &value) == ValueError::None)
        number = int(value);
    for (const SignalName& s : kSnapshotSignals) {
        if (same(text, s.name))
            number = s.number;
    }
    if (!number)
        number = realTimeSignal(text);
    return allowedSnapshotSignal(number) ? number : 0;
}

Config readConfig(LookupFn lookup, WarnFn warn)
{
    Config config;
    config.enabled = lookup("PPE_ON") != nullptr;
    if (!config.enabled)
        return config;
    config.output = lookup("PPE_OUT");
    if (config.output && !*config.output) {
        warn("PPE_OUT", config.output, "empty value", "the default name");
        config.output = nullptr;
    }
    readNumber(lookup, warn, "PPE_MEM", 1, kMaxPages, "2048", &config.pages);
    readNumber(lookup, warn, "PPE_INT", kMinInterval, kMaxInterval, "5000", &config.interval);
    config.mode = readMode(lookup, warn);
    config.timer = readTimer(lookup, warn);
    readNumber(lookup, warn, "PPE_RING_PAGES", 1, 1024, "pages for 0.2 s of samples", &config.ringPages);
    readNumber(lookup, warn, "PPE_RING_DRAIN_MS", 1, 10'000, "an adapted period", &config.ringDrainMs);
    config.calls = lookup("PPE_CALLS") != nullptr;
    readNumber(lookup, warn, "PPE_CALL_STACK", 512, 65000, "8192", &config.callStack);
    readNumber(lookup, warn, "PPE_CALL_NODES", 1024, kMaxCallNodes, "262144", &config.callNodes);
    readNumber(lookup, warn, "PPE_CHECKPOINT", 1, kMaxCheckpointSeconds, "no checkpoints", &config.checkpoint);
    if (const char* signal = lookup("PPE_SNAPSHOT_SIGNAL")) {
        config.snapshotSignal = parseSnapshotSignal(signal);
        if (!config.snapshotSignal)
            warn("PPE_SNAPSHOT_SIGNAL", signal,
                "not a signal the collector can take (USR1, USR2, URG, WINCH, PWR, RTMIN+N, RTMAX-N from 4, or "
                "their numbers)",
                "no snapshots");
    }
    readNumber(lookup, warn, "PPE_LAUNCHED", 1, UINT64_MAX, "not launched", &config.launchedPid);
    config.object = lookup("PPE_OBJECT");
    if (config.object && !*config.object) {
        warn("PPE_OBJECT", config.object, "empty value", "the executable");
        config.object = nullptr;
    }
    config.defaultDirectory = lookup("PPE_DEFAULT_DIR");
    const char* children = lookup("PPE_CHILDREN");
    config.children = !children || !same(children, "0");
    config.rank = readRank(lookup, warn);
    config.job = readJob(lookup);
    return config;
}

} // namespace ppe
