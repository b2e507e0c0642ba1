#include "ppe/core/ppe_writer.h"

#include <algorithm>

#include "ppe/core/civil_time.h"
#include "ppe/core/line_writer.h"
#include "ppe/core/live_file.h"

#include <atomic>
#include <cstring>

namespace ppe {

const char* categoryName(unsigned category)
{
    static const char* const kNames[kCategoryCount]
        = { "in-range", "below", "above", "shared", "vdso", "anon", "unknown", "lost" };
    return category < kCategoryCount ? kNames[category] : "invalid";
}

const char* statusName(ProfileStatus status)
{
    switch (status) {
    case ProfileStatus::Complete:
        return "complete";
    case ProfileStatus::Checkpoint:
        return "checkpoint";
    case ProfileStatus::Recovered:
        return "recovered";
    }
    return "complete";
}

// Counters may still be moving in other threads while the writer reads them.
static uint64_t load(const uint64_t& counter)
{
    return std::atomic_ref<const uint64_t>(counter).load(std::memory_order_relaxed);
}

static uint32_t load(const uint32_t& counter)
{
    return std::atomic_ref<const uint32_t>(counter).load(std::memory_order_relaxed);
}

uint64_t totalSamples(const ProfileRecord& record)
{
    uint64_t total = 0;
    for (unsigned c = 0; c < kCategoryCount; ++c)
        total += load(record.counts[c]);
    return total;
}

uint64_t requestedRateMilliHz(uint64_t interval) { return interval ? 10'000'000'000ull / interval : 0; }

uint64_t achievedRateMilliHz(const ProfileRecord& record, uint64_t rawSamples)
{
    if (!record.activeUs)
        return 0;
    const Mechanism mechanism = parseMechanism(record.mechanism);
    const uint64_t events = countsTimerTicks(mechanism)
        ? load(record.ticks)
        : samplesTaken(mechanism, load(record.ticks), totalSamples(record) + rawSamples);
    return uint64_t(double(events) * 1'000'000'000.0 / double(record.activeUs));
}

static void timeField(LineWriter& w, const char* key, int64_t seconds)
{
    const CivilTime t = civilFromUnix(seconds);
    auto two = [&w](unsigned v) { w.ch(char('0' + v / 10)).ch(char('0' + v % 10)); };
    w.str(key).ch(' ').sdec(t.year).ch('-');
    two(t.month);
    w.ch('-');
    two(t.day);
    w.ch('T');
    two(t.hour);
    w.ch(':');
    two(t.minute);
    w.ch(':');
    two(t.second);
    w.str("Z").endl();
}

static void textField(LineWriter& w, const char* key, const char* value) { w.str(key).ch(' ').quoted(value).endl(); }

static void buildIdField(LineWriter& w, const uint8_t* id, uint32_t size)
{
    if (!size) {
        w.str("none");
        return;
    }
    w.hexBytes(id, size);
}

static void writeCommand(LineWriter& w, const ProfileRecord& r)
{
    w.str("command");
    uint32_t start = 0;
    for (uint32_t i = 0; i < r.commandSize && i < sizeof(r.command); ++i) {
        if (r.command[i])
            continue;
        w.ch(' ').quoted(r.command + start, i - start);
        start = i + 1;
    }
    w.endl();
}

static bool hasCallPaths(const ProfileOutput& out)
{
    return out.raw && out.calls.header && load(out.calls.header->used) > 1;
}

static void writeIdentity(LineWriter& w, const ProfileRecord& r, bool raw, bool calls)
{
    w.str("ppe-profile ").dec(calls ? kCallPathsVersion : raw ? kRawOutsideVersion : kFormatVersion).endl();
    textField(w, "producer", r.producer);
    w.str("status ").str(statusName(ProfileStatus(r.status))).endl();
    textField(w, "end-reason", r.endReason);
    textField(w, "host", r.host);
    textField(w, "cpu", r.cpu);
    textField(w, "arch", r.arch);
    textField(w, "os", r.os);
    w.str("pid ").dec(r.pid).endl();
    w.str("parent-pid ").dec(r.parentPid).endl();
    if (r.rankKnown)
        w.str("rank ").dec(r.rank).endl();
    timeField(w, "start-time", r.startTime);
    timeField(w, "end-time", r.endTime);
    textField(w, "image", r.image);
    w.str("build-id ");
    buildIdField(w, r.buildId, r.buildIdSize);
    w.endl();
    writeCommand(w, r);
}

static uint32_t maxBin(const ProfileOutput& out)
{
    uint32_t most = 0;
    for (uint64_t i = 0; i < out.record->layout.count; ++i) {
        const uint32_t v = load(out.bins[i]);
        most = v > most ? v : most;
    }
    return most;
}

// The samples `raw` holds, in no count of the record (the reader adds them to theirs).
static uint64_t rawSamples(const RawOutside* raw)
{
    uint64_t samples = 0;
    for (size_t i = 0; raw && i < raw->pcCount; ++i)
        samples += load(raw->pcs[i].count);
    for (size_t i = 0; raw && i < raw->retiredHitCount; ++i)
        samples += raw->retiredHits[i].count;
    return samples;
}

static void writeSampling(LineWriter& w, const ProfileOutput& out)
{
    const ProfileRecord& r = *out.record;
    w.str("load-bias ").hex(r.loadBias).endl();
    w.str("range ").hex(r.layout.start).ch(' ').hex(r.layout.end).endl();
    for (uint32_t i = 0; i < r.codeSectionCount && i < kMaxCodeSections; ++i) {
        const CodeSection& s = r.codeSections[i];
        w.str("code-section ").quoted(s.name, strnlen(s.name, sizeof(s.name)));
        w.ch(' ').hex(s.address).ch(' ').hex(s.size).endl();
    }
    textField(w, "mechanism", r.mechanism);
    const bool cpu = r.mode == uint32_t(SampleMode::Cpu);
    w.str("mode ").dec(r.mode).str(cpu ? " cpu" : " real").endl();
    w.str("interval ").dec(r.interval).endl();
    w.str("requested-rate ").fixed(requestedRateMilliHz(r.interval), 3).endl();
    w.str("achieved-rate ").fixed(achievedRateMilliHz(r, rawSamples(out.raw)), 3).endl();
    w.str("granularity ").dec(r.granularity).endl();
    w.str("bin-width ").dec(r.layout.width).endl();
    w.str("bin-count ").dec(r.layout.count).endl();
    w.str("max-bin ").dec(maxBin(out)).endl();
    w.str("cpu-time ").fixed(r.cpuUserUs, 6).ch(' ').fixed(r.cpuSystemUs, 6).endl();
    if (r.cpuTimeAsOf)
        timeField(w, "cpu-time-as-of", r.cpuTimeAsOf);
    if (r.collectorCpuMs)
        w.str("collector-cpu-time ").fixed(uint64_t(r.collectorCpuMs) * 1000, 6).endl();
    w.str("wall-time ").fixed(r.wallUs, 6).endl();
    w.str("active-time ").fixed(r.activeUs, 6).endl();
    w.str("ticks ").dec(load(r.ticks)).endl();
    for (unsigned c = 0; c < kCategoryCount; ++c)
        w.str("count ").str(categoryName(c)).ch(' ').dec(load(r.counts[c])).endl();
    w.str("count saturated ").dec(load(r.saturated)).endl();
    w.str("count total ").dec(totalSamples(r)).endl();
    if (parseMechanism(r.mechanism) == Mechanism::ItimerProf)
        w.str("weight-squares ").dec(load(r.weightSquares)).endl();
    if (parseMechanism(r.mechanism) == Mechanism::PerfRing) {
        w.str("ring-dropped ").dec(load(r.ringLost)).ch(' ').dec(load(r.ringForeign)).endl();
        w.str("ring-throttled ").dec(load(r.ringThrottled)).endl();
    }
}

static void writeObjects(LineWriter& w, const ProfileOutput& out)
{
    for (size_t i = 0; i < out.objectCount; ++i) {
        const ObjectInfo& o = out.objects[i];
        w.str("object ").dec(i).ch(' ').dec(o.hits).ch(' ');
        buildIdField(w, o.buildId, o.buildIdSize);
        w.ch(' ').quoted(o.path).endl();
    }
    for (size_t i = 0; i < out.hitCount; ++i) {
        const ObjectCountRecord& h = out.hits[i];
        w.str("object-hit ").dec(h.object).ch(' ').hex(h.fileOffset).ch(' ').dec(h.count).endl();
    }
}

static void writeRawOutside(LineWriter& w, const RawOutside& raw)
{
    for (uint32_t i = 0; raw.mappings && i < raw.mappings->count && i < kLiveMaxMappings; ++i) {
        const LiveMapping& m = raw.mappings->mappings[i];
        w.str("mapping ").hex(m.start).ch(' ').hex(m.end).ch(' ').hex(m.offset).ch(' ');
        buildIdField(w, m.buildId, m.buildIdSize);
        w.ch(' ').quoted(raw.mappings->paths + m.path).endl();
    }
    for (size_t i = 0; i < raw.pcCount; ++i) {
        const uint64_t count = load(raw.pcs[i].count);
        if (count)
            w.str("outside-pc ").hex(load(raw.pcs[i].pc)).ch(' ').dec(count).endl();
    }
    for (size_t i = 0; i < raw.retiredCount; ++i) {
        const RetiredObjectRecord& o = raw.retired[i];
        w.str("retired-object ").dec(i).ch(' ');
        buildIdField(w, o.buildId, o.buildIdSize);
        w.ch(' ').quoted(o.path).endl();
    }
    for (size_t i = 0; i < raw.retiredHitCount; ++i) {
        const ObjectCountRecord& h = raw.retiredHits[i];
        w.str("retired-hit ").dec(h.object).ch(' ').hex(h.fileOffset).ch(' ').dec(h.count).endl();
    }
}

static void writeThreads(LineWriter& w, const ProfileOutput& out)
{
    if (out.scan) {
        const ScanSummary& s = *out.scan;
        w.str("blocking-scan ").dec(s.scans).ch(' ').fixed(s.periodNs, 9).ch(' ').fixed(s.costNs, 9).endl();
    }
    for (size_t i = 0; i < out.threadCount; ++i) {
        const ThreadRecord& t = out.threads[i];
        w.str("thread ").dec(t.tid).ch(' ').dec(t.samples).ch(' ').fixed(t.cpuNs, 9).ch(' ');
        w.fixed(t.blockedNs, 9).ch(' ').quoted(t.name, strnlen(t.name, sizeof(t.name))).endl();
    }
}

static void placeField(LineWriter& w, const CodePlace& place)
{
    w.ch(' ');
    switch (place.kind) {
    case CodePlace::Kind::None:
        w.ch('-');
        return;
    case CodePlace::Kind::Image:
        w.str("image+");
        break;
    case CodePlace::Kind::Object:
        w.dec(place.object).ch('+');
        break;
    case CodePlace::Kind::Address:
        break;
    }
    w.hex(place.address);
}

static void writeBlocked(LineWriter& w, const ProfileOutput& out)
{
    for (size_t i = 0; i < out.blockedCount; ++i) {
        const BlockedRecord& b = out.blocked[i];
        w.str("blocked ").sdec(b.syscall).ch(' ').fixed(b.ns, 9).ch(' ').dec(b.observations);
        placeField(w, b.site);
        placeField(w, b.caller);
        w.ch(' ').dec(b.tid).endl();
    }
}

// The calling-context tree as it stands (the drain may still add to it: `used` is read once).
static void writeCallTree(LineWriter& w, const CallTree& tree)
{
    const uint32_t used = std::atomic_ref<const uint32_t>(tree.header->used).load(std::memory_order_acquire);
    // A drain may add samples while this writes (a checkpoint beside a dlclose's drain): the total
    // written is at least the nodes' own, read first, so the file always adds up.
    uint64_t self = 0;
    for (uint32_t i = 0; i < used; ++i)
        self += load(tree.nodes[i].self);
    const uint64_t samples = std::max(load(tree.header->samples), self);
    w.str("call-paths ").dec(samples).ch(' ').dec(std::min(load(tree.header->cut), samples)).ch(' ');
    w.dec(used - 1).endl();
    uint64_t left = samples - std::min(samples, load(tree.nodes[0].self)); // never more than the total said
    for (uint32_t i = 1; i < used; ++i) {
        const CallNode& n = tree.nodes[i];
        const uint64_t written = std::min(load(n.self), left);
        left -= written;
        w.str("call-node ").dec(i).ch(' ').dec(n.parent).ch(' ').hex(n.pc).ch(' ').dec(written).endl();
    }
}

static void writeBins(LineWriter& w, const ProfileOutput& out)
{
    const BinLayout& layout = out.record->layout;
    for (uint64_t i = 0; i < layout.count; ++i) {
        const uint32_t v = load(out.bins[i]);
        if (v)
            w.str("bin ").hex(layout.addressOf(i)).ch(' ').dec(v).endl();
    }
}

int writeProfile(int fd, const ProfileOutput& out)
{
    static char buffer[kProfileWriteBuffer]; // not re-entrant: this overload is for one writer at a time
    return writeProfile(fd, out, buffer, sizeof(buffer));
}

int writeProfile(int fd, const ProfileOutput& out, char* buffer, size_t bufferSize)
{
    LineWriter w(fd, buffer, bufferSize);
    writeIdentity(w, *out.record, out.raw, hasCallPaths(out));
    writeSampling(w, out);
    writeObjects(w, out);
    if (out.raw)
        writeRawOutside(w, *out.raw);
    writeThreads(w, out);
    writeBlocked(w, out);
    writeBins(w, out);
    if (hasCallPaths(out))
        writeCallTree(w, out.calls);
    w.str("end").endl();
    return w.flush() ? 0 : w.error();
}

} // namespace ppe
