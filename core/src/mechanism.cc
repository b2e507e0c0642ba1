#include "ppe/core/mechanism.h"

#include <cstring>

namespace ppe {

namespace {

    struct Named {
        Mechanism mechanism;
        const char* name;
    };

    constexpr Named kNames[] = {
        { Mechanism::PerfTaskClock, "perf-task-clock" },
        { Mechanism::ItimerProf, "itimer-prof" },
        { Mechanism::PosixTimer, "posix-timer" },
        { Mechanism::PerfRing, "perf-ring" },
        { Mechanism::GdbRemote, "gdb-remote" },
    };

} // namespace

const char* mechanismName(Mechanism mechanism)
{
    for (const Named& n : kNames)
        if (n.mechanism == mechanism)
            return n.name;
    return mechanism == Mechanism::None ? "none" : "unknown";
}

Mechanism parseMechanism(const char* name)
{
    for (const Named& n : kNames)
        if (std::strcmp(name, n.name) == 0)
            return n.mechanism;
    return Mechanism::Unknown;
}

bool countsTimerTicks(Mechanism mechanism) { return mechanism == Mechanism::PosixTimer; }

bool samplesUserTimeOnly(Mechanism mechanism)
{
    return mechanism == Mechanism::PerfTaskClock || mechanism == Mechanism::PerfRing;
}

bool signalsProcessDirected(Mechanism mechanism)
{
    return mechanism == Mechanism::ItimerProf || mechanism == Mechanism::PosixTimer;
}

uint64_t samplesTaken(Mechanism mechanism, uint64_t ticks, uint64_t total)
{
    return mechanism == Mechanism::ItimerProf && ticks > 0 ? ticks : total;
}

} // namespace ppe
