#include "ppe/formatter/merge_profiles.h"

#include "ppe/core/ppe_writer.h"
#include "ppe/profile/input_file.h"
#include "ppe/profile/live_recovery.h"
#include "ppe/profile/profile_reader.h"

#include "ordered_pool.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <dirent.h>
#include <glob.h>
#include <iterator>
#include <optional>
#include <sys/stat.h>
#include <tuple>

namespace ppe::formatter {

namespace {

    bool isDirectory(const std::string& path)
    {
        struct stat st { };
        return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    }

    bool endsWith(const std::string& text, const std::string& end)
    {
        return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
    }

    bool isLiveFile(const std::string& path) { return !profilePathForLiveFile(path).empty(); }

    // A file a directory or a pattern found is read only when it is a regular file (after
    // symlinks): a FIFO or a device there would hang or flood the merge (input_file.h).
    bool keepFound(const std::string& path, Messages* messages)
    {
        struct stat st { };
        if (stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode))
            return true; // a file that vanished: reading it says so
        if (messages && !S_ISDIR(st.st_mode))
            addWarning(*messages,
                fmt::format("{}: {}, not a regular file: skipped (found in a directory or by a pattern; name it "
                            "alone to read it)",
                    path, fileKindOf(st.st_mode)));
        return false;
    }

    // The kinds of file a directory merge leaves out though their names say "profile" (issue 34),
    // each said in one line; other files (maps, reports) are not profiles and go unsaid.
    enum class Skipped { Backup, Temporary, OtherName };

    // NAME.ppe.~N~: a numbered backup the collector kept when a later profile took its name.
    bool isBackup(const std::string& name)
    {
        const size_t at = name.rfind(".ppe.~");
        return at != std::string::npos && at > 0 && endsWith(name, "~") && name.size() > at + 7
            && name.find_first_not_of("0123456789", at + 6) == name.size() - 1;
    }

    std::optional<Skipped> skippedKind(const std::string& name)
    {
        if (isBackup(name))
            return Skipped::Backup;
        if (name.starts_with(".ppe-") && endsWith(name, ".tmp"))
            return Skipped::Temporary;
        if (name.find(".ppe") != std::string::npos)
            return Skipped::OtherName;
        return std::nullopt;
    }

    std::string someNames(const std::vector<std::string>& names)
    {
        constexpr size_t kNamed = 3;
        std::string out;
        for (size_t i = 0; i < names.size() && i < kNamed; ++i)
            out += (i ? ", " : "") + names[i];
        return names.size() > kNamed ? out + fmt::format(" and {} more", names.size() - kNamed) : out;
    }

    // One note per kind of file skipped: how many, which, why, and how to merge them after all.
    void noteSkipped(const std::string& dir, std::array<std::vector<std::string>, 3>& skipped, Messages* messages)
    {
        static const char* const kWhy[] = {
            "numbered backups, older profiles whose name a later one took (an earlier run, or an earlier program of "
            "an exec chain); name them to merge them",
            "temporary files of profiles being written, or left by a process killed while writing",
            "not named NAME.ppe or NAME.ppe.PID.live; name them to merge them",
        };
        for (size_t k = 0; messages && k < skipped.size(); ++k) {
            if (skipped[k].empty())
                continue;
            std::sort(skipped[k].begin(), skipped[k].end());
            addNote(*messages,
                fmt::format("{}: {} file(s) skipped ({}): {}", dir, skipped[k].size(), someNames(skipped[k]), kWhy[k]));
        }
    }

    Result<std::vector<std::string>> filesInDirectory(const std::string& dir, Messages* messages)
    {
        DIR* d = opendir(dir.c_str());
        if (!d)
            return Error { dir, 0, "cannot read this directory" };
        std::vector<std::string> files;
        std::array<std::vector<std::string>, 3> skipped;
        const std::string prefix = endsWith(dir, "/") ? dir : dir + "/";
        while (const dirent* e = readdir(d)) {
            const std::string name = e->d_name;
            if (isDirectory(prefix + name))
                continue;
            if ((endsWith(name, ".ppe") && name != ".ppe") || isLiveFile(name))
                files.push_back(prefix + name);
            else if (const auto kind = skippedKind(name))
                skipped[size_t(*kind)].push_back(name);
        }
        closedir(d);
        noteSkipped(dir, skipped, messages);
        if (files.empty())
            return Error { dir, 0, "a directory without .ppe files" };
        std::sort(files.begin(), files.end());
        std::erase_if(files, [&](const std::string& f) { return !keepFound(f, messages); });
        return files;
    }

    // The pid in NAME.ppe.PID.live.
    uint64_t pidOfLiveFile(const std::string& live)
    {
        const size_t start = profilePathForLiveFile(live).size() + 1;
        return std::strtoull(live.c_str() + start, nullptr, 10);
    }

    // True when the process that wrote `live` also wrote its profile: the live file was left
    // behind (the process was killed after writing it), and its samples are in the profile.
    bool profileWritten(const std::string& live, std::string* profilePath)
    {
        *profilePath = profilePathForLiveFile(live);
        struct stat st { };
        if (stat(profilePath->c_str(), &st) != 0)
            return false;
        const Result<Profile> profile = readProfile(*profilePath, InputOrigin::Found);
        return profile && profile->pid == pidOfLiveFile(live);
    }

    // A directory's or pattern's live files: one beside its process's profile is left out (a
    // note); one without it, of a process killed before it wrote its profile (or still running),
    // is read as recovered, with a warning, so that no process is lost from the merge unsaid.
    std::vector<std::string> settleLiveFiles(const std::vector<std::string>& files, Messages* messages)
    {
        std::vector<std::string> kept;
        for (const std::string& file : files) {
            std::string profile;
            if (!isLiveFile(file)) {
                kept.push_back(file);
            } else if (profileWritten(file, &profile)) {
                if (messages)
                    addNote(*messages, fmt::format("{}: left out: its process wrote its profile, {}", file, profile));
            } else {
                kept.push_back(file);
                if (messages)
                    addWarning(*messages,
                        fmt::format("{}: a process that did not write its profile (killed, or still running): its "
                                    "live file is merged as recovered (`ppe --recover {}` makes a .ppe of it)",
                            file, file));
            }
        }
        return kept;
    }

    Result<std::vector<std::string>> filesMatching(const std::string& pattern, Messages* messages)
    {
        glob_t found {};
        const int rc = glob(pattern.c_str(), 0, nullptr, &found);
        std::vector<std::string> files;
        for (size_t i = 0; rc == 0 && i < found.gl_pathc; ++i)
            files.emplace_back(found.gl_pathv[i]);
        globfree(&found);
        if (files.empty())
            return Error { pattern, 0, "no file matches this pattern" };
        std::sort(files.begin(), files.end());
        std::erase_if(files, [&](const std::string& f) { return !keepFound(f, messages); });
        return files;
    }

    // Bins moved to `width` (a multiple of theirs): each count goes to the wide bin holding its
    // start address; the result is ascending, without duplicates.
    std::vector<Bin> rebin(const std::vector<Bin>& bins, uint64_t start, uint32_t width)
    {
        std::vector<Bin> out;
        for (const Bin& b : bins) {
            const uint64_t address = start + (b.address - start) / width * width;
            if (!out.empty() && out.back().address == address)
                out.back().count += b.count;
            else
                out.push_back({ address, b.count });
        }
        return out;
    }

    // The sum of two ascending sparse lists of {key, count}.
    template <typename T, typename Key>
    std::vector<T> addSorted(const std::vector<T>& a, const std::vector<T>& b, Key key)
    {
        std::vector<T> out;
        out.reserve(std::max(a.size(), b.size()));
        size_t i = 0, j = 0;
        while (i < a.size() || j < b.size()) {
            if (j == b.size() || (i < a.size() && key(a[i]) < key(b[j]))) {
                out.push_back(a[i++]);
            } else if (i == a.size() || key(b[j]) < key(a[i])) {
                out.push_back(b[j++]);
            } else {
                out.push_back(a[i++]);
                out.back().count += b[j++].count;
            }
        }
        return out;
    }

    std::string programOf(const Profile& p)
    {
        return p.buildId.empty() ? p.image + " (no build id)" : p.image + " (build id " + p.buildId + ")";
    }

    int statusWeight(ProfileStatus s)
    {
        return s == ProfileStatus::Recovered ? 2 : s == ProfileStatus::Checkpoint ? 1 : 0;
    }

    std::string processOf(const Profile& p)
    {
        return p.rank ? fmt::format("rank {}", *p.rank) : fmt::format("pid {}", p.pid);
    }

    // countedReasons' text ("exit (3), signal 15 (1)") of a merge read back into `reasons`.
    void addCountedReasons(std::map<std::string, size_t>& reasons, const std::string& text)
    {
        for (size_t at = 0; at < text.size();) {
            const size_t close = text.find("), ", at);
            const size_t end = close == std::string::npos ? text.size() : close + 1;
            const std::string item = text.substr(at, end - at);
            const size_t open = item.rfind(" (");
            if (open != std::string::npos && item.back() == ')') {
                const std::string reason = item.substr(0, open);
                reasons[reason == "none" ? "" : reason] += std::strtoull(item.c_str() + open + 2, nullptr, 10);
            }
            at = end + 2;
        }
    }

    std::string countedReasons(const std::map<std::string, size_t>& reasons)
    {
        std::string out;
        for (const auto& [reason, n] : reasons)
            out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", reason.empty() ? "none" : reason, n);
        return out;
    }

    bool sameKey(const BlockedPlace& a, const BlockedPlace& b)
    {
        auto key = [](const BlockedPlace& p) {
            return std::make_tuple(p.syscall, int(p.site.kind), p.site.object, p.site.address, int(p.caller.kind),
                p.caller.object, p.caller.address);
        };
        return key(a) == key(b);
    }

    // Adds `b` to the place of `into` with the same key, or as a new place. The sum of processes
    // keeps places, not threads: one process's thread ids mean nothing in another's (the THREADS
    // table keeps each process's threads, named by process).
    void addPlace(std::vector<BlockedPlace>& into, BlockedPlace b)
    {
        b.tid = 0;
        const auto found = std::find_if(into.begin(), into.end(), [&](const BlockedPlace& s) { return sameKey(s, b); });
        if (found == into.end())
            return into.push_back(b);
        found->seconds += b.seconds;
        found->observations += b.observations;
    }

    // Thread ids of different processes (and hosts) may meet: each name says whose thread it is.
    void markThreads(std::vector<ThreadSamples>& threads, const std::string& process)
    {
        for (ThreadSamples& t : threads)
            t.name = t.name.empty() ? process : fmt::format("{} ({})", t.name, process);
    }

} // namespace

Result<std::vector<std::string>> profileFiles(const std::string& argument, Messages* messages)
{
    struct stat st { };
    const bool directory = isDirectory(argument);
    if (!directory && (argument.find_first_of("*?[") == std::string::npos || stat(argument.c_str(), &st) == 0))
        return std::vector<std::string> { argument };
    auto files = directory ? filesInDirectory(argument, messages) : filesMatching(argument, messages);
    if (!files)
        return files;
    return settleLiveFiles(*files, messages);
}

Result<std::vector<std::string>> profileFiles(const std::vector<std::string>& arguments, Messages* messages)
{
    std::vector<std::string> all;
    for (const std::string& a : arguments) {
        auto files = profileFiles(a, messages);
        if (!files)
            return files.error();
        all.insert(all.end(), files->begin(), files->end());
    }
    return all;
}

std::optional<Error> ProfileMerge::checkSameProgram(const Profile& next, const std::string& path) const
{
    const bool sameBuild
        = !m_sum.buildId.empty() && !next.buildId.empty() ? m_sum.buildId == next.buildId : m_sum.image == next.image;
    if (!sameBuild) {
        return Error { path, 0,
            fmt::format("a profile of {}, but {} is of {}: profiles of different programs are not merged",
                programOf(next), m_firstPath, programOf(m_sum)) };
    }
    if (next.rangeStart != m_sum.rangeStart || next.rangeEnd != m_sum.rangeEnd) {
        return Error { path, 0,
            fmt::format("range {:x}-{:x}, but {} has {:x}-{:x}: profiles of different code are not merged",
                next.rangeStart, next.rangeEnd, m_firstPath, m_sum.rangeStart, m_sum.rangeEnd) };
    }
    return std::nullopt;
}

void ProfileMerge::noteProcess(const Profile& next)
{
    m_hosts.insert(next.host);
    m_widths.insert(next.binWidth);
    if (next.mergedProfiles > 1) { // a merge's sum (ppeout --merge-out): its own processes, as it counted them
        m_processes += next.mergedProfiles;
        m_pidTexts.push_back(next.mergedPids);
        addCountedReasons(m_endReasons, next.mergedEndReasons);
        return;
    }
    ++m_processes;
    m_pids.push_back(next.pid);
    ++m_endReasons[next.endReason];
}

void ProfileMerge::addTimes(const Profile& next)
{
    m_sum.startTime = std::min(m_sum.startTime, next.startTime);
    m_sum.endTime = std::max(m_sum.endTime, next.endTime);
    if (statusWeight(next.status) > statusWeight(m_sum.status))
        m_sum.status = next.status;
    m_sum.cpuUser += next.cpuUser;
    m_sum.cpuSystem += next.cpuSystem;
    m_sum.collectorCpuTime += next.collectorCpuTime;
    m_sum.activeTime += next.activeTime;
    m_sum.wallTime = std::max(m_sum.wallTime, next.wallTime);
    m_sum.ticks += next.ticks;
    m_sum.weightSquares += next.weightSquares;
    m_sum.ringLost += next.ringLost;
    m_sum.ringForeign += next.ringForeign;
    m_sum.ringThrottled += next.ringThrottled; // known for the sum only when known for every part
    m_sum.ringThrottledKnown = m_sum.ringThrottledKnown && next.ringThrottledKnown;
}

void ProfileMerge::addSamples(Profile& next)
{
    for (size_t c = 0; c < m_sum.counts.size(); ++c)
        m_sum.counts[c] += next.counts[c];
    m_sum.total += next.total;
    m_sum.saturated += next.saturated;
    const uint32_t width = std::max(m_sum.binWidth, next.binWidth);
    if (m_sum.binWidth < width)
        m_sum.bins = rebin(m_sum.bins, m_sum.rangeStart, width);
    if (next.binWidth < width)
        next.bins = rebin(next.bins, next.rangeStart, width);
    m_sum.binWidth = width;
    m_sum.bins = addSorted(m_sum.bins, next.bins, [](const Bin& b) { return b.address; });
}

// Object i of `next` is object objectOf[i] of the sum.
std::vector<size_t> ProfileMerge::addObjects(Profile& next)
{
    std::vector<size_t> objectOf;
    for (SharedObject& o : next.objects) {
        auto same = [&](const SharedObject& s) { return s.path == o.path && s.buildId == o.buildId; };
        const auto found = std::find_if(m_sum.objects.begin(), m_sum.objects.end(), same);
        objectOf.push_back(size_t(found - m_sum.objects.begin()));
        if (found == m_sum.objects.end()) {
            m_sum.objects.push_back(std::move(o));
            continue;
        }
        found->hits += o.hits;
        found->hitsByOffset
            = addSorted(found->hitsByOffset, o.hitsByOffset, [](const ObjectSamples& s) { return s.fileOffset; });
    }
    return objectOf;
}

void ProfileMerge::addBlocked(Profile& next, const std::vector<size_t>& objectOf)
{
    if (m_count == 2) { // the first profile's places, until now by thread
        std::vector<BlockedPlace> first;
        for (const BlockedPlace& b : m_sum.blocked)
            addPlace(first, b);
        m_sum.blocked = std::move(first);
    }
    for (BlockedPlace& b : next.blocked) {
        for (CodeLocation* l : { &b.site, &b.caller }) {
            if (l->kind == CodeLocation::Kind::Object)
                l->object = objectOf.at(l->object);
        }
        addPlace(m_sum.blocked, b);
    }
    if (!next.scan)
        return;
    BlockingScan& s = m_sum.scan ? *m_sum.scan : m_sum.scan.emplace();
    const uint64_t scans = s.scans + next.scan->scans;
    s.period = scans ? (s.period * double(s.scans) + next.scan->period * double(next.scan->scans)) / double(scans) : 0;
    s.scans = scans;
    s.cost += next.scan->cost;
}

void ProfileMerge::addCallPaths(Profile& next, const std::vector<size_t>& objectOf)
{
    mergeCallPaths(m_sum.calls, next.calls, objectOf, m_callNodes);
}

std::optional<Error> ProfileMerge::add(Profile next, const std::string& path, Messages& messages)
{
    if (m_count++ == 0) {
        // The first profile is the sum so far; its identity stands for the merge (host, command line,
        // sampling settings).
        m_firstPath = path;
        m_sum = std::move(next);
        noteProcess(m_sum);
        if (m_sum.mergedProfiles <= 1) // a merge's threads are named by process already
            markThreads(m_sum.threads, processOf(m_sum));
        return std::nullopt;
    }
    if (auto error = checkSameProgram(next, path)) {
        --m_count;
        return error;
    }
    if (next.mode != m_sum.mode || next.mechanism != m_sum.mechanism)
        addWarning(messages,
            fmt::format("{}: sampled by {} in {} mode, but {} by {} in {} mode: the sum mixes them", path,
                next.mechanism.name(), next.mode == SampleMode::Cpu ? "CPU" : "real", m_firstPath,
                m_sum.mechanism.name(), m_sum.mode == SampleMode::Cpu ? "CPU" : "real"));
    noteProcess(next);
    addTimes(next);
    addSamples(next);
    const std::vector<size_t> objectOf = addObjects(next);
    if (next.mergedProfiles <= 1)
        markThreads(next.threads, processOf(next));
    std::move(next.threads.begin(), next.threads.end(), std::back_inserter(m_sum.threads));
    addBlocked(next, objectOf);
    addCallPaths(next, objectOf);
    return std::nullopt;
}

Profile ProfileMerge::finish(Messages& messages)
{
    Profile sum = std::move(m_sum);
    m_sum = Profile {};
    if (m_count > 1) {
        sum.binCount = (sum.rangeEnd - sum.rangeStart + sum.binWidth - 1) / sum.binWidth;
        sum.maxBin = 0;
        for (const Bin& b : sum.bins)
            sum.maxBin = std::max(sum.maxBin, b.count);
        const Mechanism kind = sum.mechanism.kind();
        const uint64_t events = countsTimerTicks(kind) ? sum.ticks : samplesTaken(kind, sum.ticks, sum.total);
        sum.achievedRate = sum.activeTime > 0 ? double(events) / sum.activeTime : 0;
        std::stable_sort(sum.blocked.begin(), sum.blocked.end(),
            [](const BlockedPlace& a, const BlockedPlace& b) { return a.seconds > b.seconds; });
        sum.rank.reset();
        sum.mergedProfiles = m_processes;
        std::vector<std::pair<uint64_t, uint64_t>> pids;
        for (uint64_t pid : m_pids)
            pids.emplace_back(pid, pid);
        size_t unsaid = 0;
        for (const std::string& text : m_pidTexts)
            readRanges(text, pids, unsaid);
        sum.mergedPids = summariseRanges(std::move(pids), unsaid);
        sum.mergedEndReasons = countedReasons(m_endReasons);
        if (m_hosts.size() > 1)
            sum.host = fmt::format("{} and {} other host(s)", sum.host, m_hosts.size() - 1);
    }
    if (m_widths.size() > 1) {
        std::string widths;
        for (uint32_t w : m_widths)
            widths += fmt::format("{}{}", widths.empty() ? "" : ", ", w);
        addNote(messages,
            fmt::format("the profiles have bins of {} bytes: merged in bins of {} bytes (a narrower bin's samples go "
                        "to the wider bin holding its start)",
                widths, sum.binWidth));
    }
    m_count = 0;
    m_processes = 0;
    m_pidTexts.clear();
    m_pids.clear();
    m_hosts.clear();
    m_endReasons.clear();
    m_widths.clear();
    return sum;
}

Result<Profile> mergeProfileFiles(const std::vector<std::string>& files,
    const std::function<Result<Profile>(const std::string&)>& read, Messages& messages, bool strict,
    const std::function<void(size_t, size_t)>& progress)
{
    ProfileMerge merge;
    std::vector<std::string> skipped;
    std::optional<Error> failed;
    size_t merged = 0; // files that are merges themselves
    // Files are read and parsed side by side (most of a merge's time) and added in their order,
    // so that the sum and the messages are those of one file after the other.
    produceInOrder<Result<Profile>>(
        files.size(), [&](size_t i) { return read(files[i]); },
        [&](size_t i, Result<Profile>& profile) {
            if (progress)
                progress(i + 1, files.size());
            if (!profile && strict) {
                failed = Error { profile.error().file, profile.error().line,
                    profile.error().message + " (--strict: a damaged profile stops the merge)" };
            } else if (!profile) {
                addWarning(
                    messages, profile.error().str() + " (skipped: the merge goes on without it; --strict stops)");
                skipped.push_back(files[i]);
            } else {
                merged += profile->mergedProfiles > 1;
                failed = merge.add(std::move(*profile), files[i], messages);
            }
            return !failed;
        });
    if (failed)
        return *failed;
    if (merged > 0 && files.size() > 1)
        addNote(messages,
            fmt::format("{} of the files are merges themselves (ppeout --merge-out): a merged file keeps no per-rank "
                        "shares, so the per-rank imbalance compares the files as wholes",
                merged));
    if (merge.count() == 0)
        return Error { "", 0, fmt::format("none of the {} profiles could be read", files.size()) };
    Profile sum = merge.finish(messages);
    sum.skippedProfiles = std::move(skipped);
    return sum;
}

std::string summariseRanges(std::vector<std::pair<uint64_t, uint64_t>> ranges, size_t unsaid, size_t most)
{
    std::sort(ranges.begin(), ranges.end());
    std::vector<std::pair<uint64_t, uint64_t>> joined;
    for (const auto& r : ranges) {
        if (!joined.empty() && r.first <= joined.back().second + 1)
            joined.back().second = std::max(joined.back().second, r.second);
        else
            joined.push_back(r);
    }
    std::string out;
    for (size_t i = 0; i < joined.size() && i < most; ++i)
        out += (i ? ", " : "")
            + (joined[i].first == joined[i].second ? fmt::format("{}", joined[i].first)
                                                   : fmt::format("{}-{}", joined[i].first, joined[i].second));
    const size_t more = unsaid + (joined.size() > most ? joined.size() - most : 0);
    return more ? out + fmt::format(" and {} more", more) : out;
}

std::string summariseNumbers(std::vector<uint64_t> numbers, size_t most)
{
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    for (uint64_t n : numbers)
        ranges.emplace_back(n, n);
    return summariseRanges(std::move(ranges), 0, most);
}

void readRanges(const std::string& text, std::vector<std::pair<uint64_t, uint64_t>>& ranges, size_t& unsaid)
{
    const size_t more = text.find(" and ");
    if (more != std::string::npos)
        unsaid += std::strtoull(text.c_str() + more + 5, nullptr, 10);
    const char* at = text.c_str();
    const char* end = at + (more == std::string::npos ? text.size() : more);
    while (at < end) {
        char* next = nullptr;
        const uint64_t first = std::strtoull(at, &next, 10);
        if (next == at)
            break;
        const uint64_t last = *next == '-' ? std::strtoull(next + 1, &next, 10) : first;
        ranges.emplace_back(first, std::max(first, last));
        for (at = next; at < end && (*at == ',' || *at == ' ');)
            ++at;
    }
}

} // namespace ppe::formatter
