#include "ppe/formatter/merged_profile.h"

#include "ppe/profile/profile_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

namespace ppe::formatter {

namespace {

    // The .ppe's quoted string (docs/ppe-format.md, Syntax).
    std::string quoted(const std::string& text)
    {
        std::string out = "\"";
        for (const char c : text) {
            const auto byte = static_cast<unsigned char>(c);
            if (c == '\\' || c == '"')
                out += { '\\', c };
            else if (c == '\n')
                out += "\\n";
            else if (c == '\t')
                out += "\\t";
            else if (byte < 0x20 || byte > 0x7e)
                out += fmt::format("\\x{:02x}", byte);
            else
                out += c;
        }
        return out + "\"";
    }

    std::string utc(int64_t seconds)
    {
        const time_t t = seconds;
        struct tm tm { };
        gmtime_r(&t, &tm);
        return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
            tm.tm_hour, tm.tm_min, tm.tm_sec);
    }

    std::string place(const CodeLocation& l)
    {
        switch (l.kind) {
        case CodeLocation::Kind::None:
            return "-";
        case CodeLocation::Kind::Image:
            return fmt::format("image+{:#x}", l.address);
        case CodeLocation::Kind::Object:
            return fmt::format("{}+{:#x}", l.object, l.address);
        case CodeLocation::Kind::Address:
            break;
        }
        return fmt::format("{:#x}", l.address);
    }

    // Version 1, or 3 with call paths (whose nodes are named as the blocked places are).
    void identity(std::string& out, const Profile& p)
    {
        out += fmt::format("ppe-profile {}\nproducer {}\nstatus {}\nend-reason {}\n", p.calls.nodes.size() > 1 ? 3 : 1,
            quoted(p.producer), statusName(p.status), quoted(p.endReason));
        out += fmt::format(
            "host {}\ncpu {}\narch {}\nos {}\n", quoted(p.host), quoted(p.cpu), quoted(p.arch), quoted(p.os));
        out += fmt::format("pid {}\nparent-pid {}\n", p.pid, p.parentPid);
        if (p.rank)
            out += fmt::format("rank {}\n", *p.rank);
        out += fmt::format("start-time {}\nend-time {}\nimage {}\nbuild-id {}\ncommand", utc(p.startTime),
            utc(p.endTime), quoted(p.image), p.buildId.empty() ? "none" : p.buildId);
        for (const std::string& arg : p.command)
            out += " " + quoted(arg);
        out += "\n";
        if (p.mergedProfiles > 1)
            out += fmt::format("merged-profiles {}\nmerged-pids {}\nmerged-end-reasons {}\n", p.mergedProfiles,
                quoted(p.mergedPids), quoted(p.mergedEndReasons));
    }

    void sampling(std::string& out, const Profile& p)
    {
        out += fmt::format("load-bias {:#x}\nrange {:#x} {:#x}\n", p.loadBias, p.rangeStart, p.rangeEnd);
        for (const ImageSection& s : p.codeSections)
            out += fmt::format("code-section {} {:#x} {:#x}\n", quoted(s.name), s.address, s.size);
        out += fmt::format("mechanism {}\nmode {}\ninterval {}\n", quoted(p.mechanism.name()),
            p.mode == SampleMode::Cpu ? "1 cpu" : "0 real", p.interval);
        out += fmt::format("requested-rate {:.3f}\nachieved-rate {:.3f}\ngranularity {}\n", p.requestedRate,
            p.achievedRate, p.granularity);
        out += fmt::format("bin-width {}\nbin-count {}\nmax-bin {}\n", p.binWidth, p.binCount, p.maxBin);
        out += fmt::format("cpu-time {:.9f} {:.9f}\n", p.cpuUser, p.cpuSystem);
        if (p.cpuTimeAsOf)
            out += fmt::format("cpu-time-as-of {}\n", utc(p.cpuTimeAsOf));
        if (p.collectorCpuTime > 0)
            out += fmt::format("collector-cpu-time {:.9f}\n", p.collectorCpuTime);
        out += fmt::format("wall-time {:.9f}\nactive-time {:.9f}\nticks {}\n", p.wallTime, p.activeTime, p.ticks);
        for (unsigned c = 0; c < kCategoryCount; ++c)
            out += fmt::format("count {} {}\n", categoryName(c), p.counts[c]);
        out += fmt::format("count saturated {}\ncount total {}\n", p.saturated, p.total);
        if (p.mechanism == Mechanism::ItimerProf && p.weightSquares)
            out += fmt::format("weight-squares {}\n", p.weightSquares);
        if (p.mechanism == Mechanism::PerfRing)
            out += fmt::format("ring-dropped {} {}\n", p.ringLost, p.ringForeign);
        if (p.mechanism == Mechanism::PerfRing && p.ringThrottledKnown)
            out += fmt::format("ring-throttled {}\n", p.ringThrottled);
    }

    void objects(std::string& out, const Profile& p)
    {
        for (size_t i = 0; i < p.objects.size(); ++i) {
            const SharedObject& o = p.objects[i];
            out += fmt::format(
                "object {} {} {} {}\n", i, o.hits, o.buildId.empty() ? "none" : o.buildId, quoted(o.path));
        }
        for (size_t i = 0; i < p.objects.size(); ++i) {
            for (const ObjectSamples& s : p.objects[i].hitsByOffset)
                out += fmt::format("object-hit {} {:#x} {}\n", i, s.fileOffset, s.count);
        }
    }

    // Threads beyond what a profile may hold, folded into one line of tid 0 (the collector's own
    // line for threads its table could not hold).
    void foldThreads(Profile& p, Messages& messages)
    {
        if (p.threads.size() <= kMaxProfileThreads)
            return;
        std::stable_sort(p.threads.begin(), p.threads.end(),
            [](const ThreadSamples& a, const ThreadSamples& b) { return a.samples > b.samples; });
        ThreadSamples rest { 0, 0, 0, 0, fmt::format("{} more threads", p.threads.size() - kMaxProfileThreads + 1) };
        for (size_t i = kMaxProfileThreads - 1; i < p.threads.size(); ++i) {
            rest.samples += p.threads[i].samples;
            rest.cpuSeconds += p.threads[i].cpuSeconds;
            rest.blockedSeconds += p.threads[i].blockedSeconds;
        }
        addNote(messages,
            fmt::format("the merge has {} threads, more than a profile holds: the {} with fewest samples are one "
                        "thread line of tid 0 in the merged file",
                p.threads.size(), p.threads.size() - kMaxProfileThreads + 1));
        p.threads.resize(kMaxProfileThreads - 1);
        p.threads.push_back(std::move(rest));
    }

    // Blocked places beyond what a profile may hold (the shortest), kept as one place of "other
    // calls" without a site, as the collector keeps them once its table is full.
    void foldBlocked(Profile& p, Messages& messages)
    {
        if (p.blocked.size() <= kMaxProfileBlocked)
            return;
        BlockedPlace rest;
        rest.syscall = -2;
        for (size_t i = kMaxProfileBlocked - 1; i < p.blocked.size(); ++i) {
            rest.seconds += p.blocked[i].seconds;
            rest.observations += p.blocked[i].observations;
        }
        addNote(messages,
            fmt::format("the merge has {} blocked places, more than a profile holds: the shortest {} are one place "
                        "of other calls in the merged file",
                p.blocked.size(), p.blocked.size() - kMaxProfileBlocked + 1));
        p.blocked.resize(kMaxProfileBlocked - 1);
        p.blocked.push_back(rest);
    }

    void threads(std::string& out, const Profile& p)
    {
        if (p.scan)
            out += fmt::format("blocking-scan {} {:.9f} {:.9f}\n", p.scan->scans, p.scan->period, p.scan->cost);
        for (const ThreadSamples& t : p.threads)
            out += fmt::format(
                "thread {} {} {:.9f} {:.9f} {}\n", t.tid, t.samples, t.cpuSeconds, t.blockedSeconds, quoted(t.name));
        for (const BlockedPlace& b : p.blocked)
            out += fmt::format("blocked {} {:.9f} {} {} {} {}\n", b.syscall, b.seconds, b.observations, place(b.site),
                place(b.caller), b.tid);
    }

    // The merged calling-context tree: the `call-paths` line, then each node after its parent.
    void callPaths(std::string& out, const Profile& p)
    {
        const CallPaths& calls = p.calls;
        if (calls.nodes.size() < 2)
            return;
        out += fmt::format("call-paths {} {} {}\n", calls.samples, calls.cut, calls.nodes.size() - 1);
        for (size_t i = 1; i < calls.nodes.size(); ++i) {
            const CallPathNode& n = calls.nodes[i];
            out += fmt::format("call-node {} {} {} {}\n", i, n.parent,
                n.marker ? fmt::format("{:#x}", n.marker) : place(n.place), n.self);
        }
    }

} // namespace

Result<std::string> mergedProfileText(Profile sum, Messages& messages)
{
    size_t hits = 0;
    for (const SharedObject& o : sum.objects)
        hits += o.hitsByOffset.size();
    if (sum.objects.size() > kMaxProfileObjects || hits > kMaxProfileObjectHits)
        return Error { "", 0,
            fmt::format("the merge has {} shared objects with {} sampled offsets, more than a profile holds ({} and "
                        "{}): it cannot be written as one .ppe",
                sum.objects.size(), hits, kMaxProfileObjects, kMaxProfileObjectHits) };
    if (sum.calls.nodes.size() > kMaxProfileCallNodes + 1)
        return Error { "", 0,
            fmt::format("the merge's call paths have {} calling contexts, more than a profile holds ({}): it cannot "
                        "be written as one .ppe",
                sum.calls.nodes.size() - 1, kMaxProfileCallNodes) };
    foldThreads(sum, messages);
    foldBlocked(sum, messages);
    std::string out;
    out.reserve(64 * (sum.bins.size() + sum.threads.size() + 64));
    identity(out, sum);
    sampling(out, sum);
    objects(out, sum);
    threads(out, sum);
    callPaths(out, sum);
    for (const Bin& b : sum.bins)
        out += fmt::format("bin {:#x} {}\n", b.address, b.count);
    out += "end\n";
    return out;
}

} // namespace ppe::formatter
