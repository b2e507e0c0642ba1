#include "sampled_time.h"

namespace ppe::formatter {

bool samplesUserTimeOnly(const Profile& p) { return ppe::samplesUserTimeOnly(p.mechanism.kind()); }

void addSampledTime(const Profile& p, Totals& t)
{
    t.sampledSeconds = p.activeTime;
    t.sampledRate = p.achievedRate;
    t.unsampledKernelSeconds = 0;
    if (!samplesUserTimeOnly(p))
        return;
    // The active time is the process's CPU time while sampling; its user part is what the events
    // count. getrusage splits the whole run only: the active time is split in the same proportion.
    t.unsampledKernelSeconds = p.cpuSystem;
    const double cpu = p.cpuUser + p.cpuSystem;
    if (!(cpu > 0) || !(p.cpuUser > 0))
        return;
    const double userShare = p.cpuUser / cpu;
    t.sampledSeconds = p.activeTime * userShare;
    t.sampledRate = p.achievedRate / userShare;
    t.userTimeOnly = true;
}

double sampledRateOf(const Profile& p)
{
    Totals t;
    addSampledTime(p, t);
    return t.sampledRate;
}

bool rateOverUserTimeApart(const Totals& t) { return t.userTimeOnly && t.unsampledKernelSeconds >= 0.005; }

} // namespace ppe::formatter
