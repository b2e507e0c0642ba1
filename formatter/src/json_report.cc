// The report model as JSON: every field of report.h (and the profile's header) under its snake_case
// name, as docs/report.schema.json describes. The raw histogram (bins, hits by offset) is left out:
// the .ppe file holds it.
#include "diff_formats.h"

#include "ppe/formatter/json_writer.h"
#include "ppe/formatter/renderers.h"

#include <string>

namespace ppe::formatter {

namespace {

    void share(JsonWriter& w, std::string_view name, const Share& s)
    {
        w.key(name);
        w.beginObject();
        w.field("hits", s.hits);
        w.field("percent", s.percent);
        w.field("error", s.error);
        w.endObject();
    }

    void strings(JsonWriter& w, std::string_view name, const std::vector<std::string>& values)
    {
        w.key(name);
        w.beginArray();
        for (const std::string& v : values)
            w.value(v);
        w.endArray();
    }

    std::string countName(unsigned category)
    {
        std::string name = categoryName(category);
        for (char& c : name)
            c = c == '-' ? '_' : c;
        return name;
    }

    void counts(JsonWriter& w, const Profile& p)
    {
        w.key("counts");
        w.beginObject();
        for (unsigned c = 0; c < kCategoryCount; ++c)
            w.field(countName(c), p.counts[c]);
        w.field("saturated", p.saturated);
        w.field("total", p.total);
        w.endObject();
    }

    void remote(JsonWriter& w, const Profile& p)
    {
        if (p.remoteServer.empty())
            return;
        w.key("remote");
        w.beginObject();
        w.field("server", p.remoteServer);
        w.field("target", p.remoteTarget);
        w.field("mode", p.remoteMode);
        w.field("pc", p.remotePc);
        w.field("interrupt", p.remoteInterrupt);
        w.field("error", p.remoteError);
        w.field("intrusion_stops", p.intrusionStops);
        w.field("stop_mean", p.stopMean);
        w.field("stop_p90", p.stopP90);
        w.field("stopped_time", p.stoppedTime);
        w.field("stopped_ratio", p.stoppedRatio);
        w.endObject();
    }

    void codeSections(JsonWriter& w, const Profile& p)
    {
        w.key("code_sections");
        w.beginArray();
        for (const ImageSection& s : p.codeSections) {
            w.beginObject();
            w.field("name", s.name);
            w.field("address", s.address);
            w.field("size", s.size);
            w.endObject();
        }
        w.endArray();
    }

    // `value`, or null when it is not known.
    void nullable(JsonWriter& w, const char* key, bool known, uint64_t value)
    {
        w.key(key);
        if (known)
            w.value(value);
        else
            w.null();
    }

    void profile(JsonWriter& w, const Profile& p)
    {
        w.key("profile");
        w.beginObject();
        w.field("version", p.version);
        w.field("producer", p.producer);
        w.field("status", statusName(p.status));
        w.field("end_reason", p.endReason);
        w.field("host", p.host);
        w.field("cpu", p.cpu);
        w.field("arch", p.arch);
        w.field("os", p.os);
        w.field("pid", p.pid);
        w.field("parent_pid", p.parentPid);
        w.field("start_time", p.startTime);
        w.field("end_time", p.endTime);
        w.field("image", p.image);
        w.field("build_id", p.buildId);
        strings(w, "command", p.command);
        w.field("load_bias", p.loadBias);
        w.field("range_start", p.rangeStart);
        w.field("range_end", p.rangeEnd);
        codeSections(w, p);
        w.field("mechanism", p.mechanism);
        w.field("mode", p.mode == SampleMode::Cpu ? "cpu" : "real");
        w.field("interval_100ns", p.interval);
        w.field("requested_rate", p.requestedRate);
        w.field("achieved_rate", p.achievedRate);
        w.field("granularity", p.granularity);
        w.field("bin_width", p.binWidth);
        w.field("bin_count", p.binCount);
        w.field("max_bin", p.maxBin);
        w.field("cpu_user", p.cpuUser);
        w.field("cpu_system", p.cpuSystem);
        w.field("wall_time", p.wallTime);
        w.field("active_time", p.activeTime);
        w.field("cpu_time_as_of", p.cpuTimeAsOf);
        w.field("ticks", p.ticks);
        w.field("ring_lost", p.ringLost);
        w.field("ring_foreign", p.ringForeign);
        nullable(w, "ring_throttled", p.ringThrottledKnown, p.ringThrottled);
        nullable(w, "rank", p.rank.has_value(), p.rank.value_or(0));
        w.field("merged_profiles", p.mergedProfiles);
        w.field("merged_pids", p.mergedPids);
        w.field("merged_end_reasons", p.mergedEndReasons);
        w.key("skipped_profiles");
        w.beginArray();
        for (const std::string& f : p.skippedProfiles)
            w.value(f);
        w.endArray();
        counts(w, p);
        remote(w, p);
        w.endObject();
    }

    void totals(JsonWriter& w, const Totals& t)
    {
        w.key("totals");
        w.beginObject();
        w.field("system", t.system);
        w.field("other", t.other);
        w.field("overflow", t.overflow);
        w.field("underflow", t.underflow);
        w.field("program_percent", t.programPercent);
        w.field("libraries_percent", t.librariesPercent);
        w.field("other_percent", t.otherPercent);
        w.field("cpu_seconds", t.cpuSeconds);
        w.field("cpu_user_percent", t.cpuUserPercent);
        w.field("cpu_system_percent", t.cpuSystemPercent);
        w.field("collector_cpu_seconds", t.collectorCpuSeconds);
        w.field("unsampled_kernel_seconds", t.unsampledKernelSeconds);
        w.field("sampled_seconds", t.sampledSeconds);
        w.field("sampled_rate", t.sampledRate);
        w.field("expected_samples", t.expectedSamples);
        w.field("sampled_percent", t.sampledPercent);
        w.field("missing_samples", t.missingSamples);
        w.field("interval_ms", t.intervalMs);
        w.field("last_address", t.lastAddress);
        w.field("range_bytes", t.rangeBytes);
        w.endObject();
    }

    void modules(JsonWriter& w, const std::vector<ModuleRow>& rows)
    {
        w.key("modules");
        w.beginArray();
        for (const ModuleRow& r : rows) {
            w.beginObject();
            w.field("name", r.name);
            w.field("hits", r.hits);
            w.field("percent", r.percent);
            w.field("error", r.error);
            w.field("accumulated", r.accumulated);
            w.field("percent_of_all", r.percentOfAll);
            w.field("address", r.address);
            w.field("size", r.size);
            w.field("ranges", r.ranges);
            w.field("split_hits", r.splitHits);
            if (r.inclusivePercent >= 0) {
                w.field("inclusive_percent", r.inclusivePercent);
                w.field("inclusive_error", r.inclusiveError);
            }
            w.endObject();
        }
        w.endArray();
    }

    void instructions(JsonWriter& w, const std::vector<InstructionRow>& rows)
    {
        if (rows.empty())
            return;
        w.key("instructions");
        w.beginArray();
        for (const InstructionRow& i : rows) {
            w.beginObject();
            w.field("address", i.address);
            w.field("text", i.text);
            w.field("hits", i.hits);
            w.endObject();
        }
        w.endArray();
    }

    void fileLines(JsonWriter& w, const FileLines& f)
    {
        w.beginObject();
        w.field("name", f.name);
        w.field("text_path", f.textPath);
        w.field("own", f.own);
        strings(w, "inlined_into", f.inlinedInto);
        w.key("rows");
        w.beginArray();
        for (const LineRow& r : f.rows) {
            w.beginObject();
            w.field("line", r.line);
            w.field("text", r.text);
            w.field("hits", r.hits);
            w.field("accumulated", r.accumulated);
            w.field("code", r.code);
            w.field("split_hits", r.splitHits);
            instructions(w, r.instructions);
            w.endObject();
        }
        w.endArray();
        w.endObject();
    }

    void lines(JsonWriter& w, const std::vector<ModuleLines>& all)
    {
        w.key("lines");
        w.beginArray();
        for (const ModuleLines& m : all) {
            w.beginObject();
            w.field("name", m.name);
            w.field("origin", m.origin);
            w.field("hits", m.hits);
            w.field("without_line", m.withoutLine);
            w.field("busiest", m.busiest);
            w.field("split_hits", m.splitHits);
            w.key("files");
            w.beginArray();
            for (const FileLines& f : m.files)
                fileLines(w, f);
            w.endArray();
            w.endObject();
        }
        w.endArray();
    }

    void functions(JsonWriter& w, const ObjectRow& o)
    {
        w.key("functions");
        w.beginArray();
        for (const FunctionRow& f : o.functions) {
            w.beginObject();
            w.field("name", f.name);
            w.field("hits", f.hits);
            w.field("percent", f.percent);
            w.field("error", f.error);
            w.field("address", f.address);
            w.field("size", f.size);
            w.endObject();
        }
        w.endArray();
        w.field("more_functions", o.moreFunctions);
        w.field("more_functions_hits", o.moreFunctionsHits);
        share(w, "without_function", o.withoutFunction);
        w.key("hottest");
        w.beginArray();
        for (const AddressRow& a : o.hottest) {
            w.beginObject();
            w.field("address", a.address);
            w.field("mapped", a.mapped);
            w.field("hits", a.hits);
            w.field("percent", a.percent);
            w.field("error", a.error);
            w.endObject();
        }
        w.endArray();
        w.field("more_addresses", o.moreAddresses);
    }

    void objects(JsonWriter& w, const std::vector<ObjectRow>& rows)
    {
        w.key("objects");
        w.beginArray();
        for (const ObjectRow& o : rows) {
            w.beginObject();
            w.field("path", o.path);
            w.field("name", o.name);
            w.field("build_id", o.buildId);
            w.field("hits", o.hits);
            w.field("percent", o.percent);
            w.field("error", o.error);
            w.field("note", o.note);
            functions(w, o);
            w.endObject();
        }
        w.endArray();
    }

    void objectAnalyses(JsonWriter& w, const std::vector<ObjectAnalysis>& all)
    {
        w.key("object_analyses");
        w.beginArray();
        for (const ObjectAnalysis& a : all) {
            w.beginObject();
            w.field("path", a.path);
            w.field("name", a.name);
            w.field("hits", a.hits);
            w.field("percent", a.percent);
            modules(w, a.modules);
            share(w, "unattributed", a.unattributed);
            lines(w, a.lines);
            w.endObject();
        }
        w.endArray();
    }

    void threads(JsonWriter& w, const Report& r)
    {
        w.key("threads");
        w.beginArray();
        for (const ThreadRow& t : r.threads) {
            w.beginObject();
            w.field("tid", t.tid);
            w.field("name", t.name);
            w.field("samples", t.samples);
            w.field("percent", t.percent);
            w.field("cpu_seconds", t.cpuSeconds);
            w.field("rate", t.rate);
            w.field("blocked_seconds", t.blockedSeconds);
            w.field("helper", t.helper);
            w.endObject();
        }
        w.endArray();
        w.field("more_threads", r.moreThreads);
    }

    void blockedRows(JsonWriter& w, const std::vector<BlockedRow>& rows)
    {
        w.key("rows");
        w.beginArray();
        for (const BlockedRow& b : rows) {
            w.beginObject();
            w.field("call", b.call);
            w.field("site", b.site);
            w.field("caller", b.caller);
            w.field("seconds", b.seconds);
            w.field("error", b.error);
            w.field("percent", b.percent);
            w.field("observations", b.observations);
            w.field("tid", b.tid);
            w.field("thread", b.thread);
            w.field("thread_seconds", b.threadSeconds);
            w.field("in_program", b.inProgram);
            w.endObject();
        }
        w.endArray();
    }

    void blocked(JsonWriter& w, const std::optional<BlockedTime>& b)
    {
        w.key("blocked");
        if (!b) {
            w.null();
            return;
        }
        w.beginObject();
        w.field("running_seconds", b->runningSeconds);
        w.field("blocked_seconds", b->blockedSeconds);
        w.field("scans", b->scans);
        w.field("scan_period", b->scanPeriod);
        w.field("scan_cost", b->scanCost);
        w.field("program_seconds", b->programSeconds);
        w.field("helper_seconds", b->helperSeconds);
        w.field("by_thread", b->byThread);
        blockedRows(w, b->rows);
        w.endObject();
    }

    void callEdges(JsonWriter& w, const char* key, const std::vector<CallEdge>& edges)
    {
        w.key(key);
        w.beginArray();
        for (const CallEdge& e : edges) {
            w.beginObject();
            w.field("name", e.name);
            w.field("samples", e.samples);
            w.field("percent", e.percent);
            w.endObject();
        }
        w.endArray();
    }

    // Issue 39: the call paths by function.
    void callPaths(JsonWriter& w, const std::optional<CallPathsReport>& c)
    {
        w.key("calls");
        if (!c) {
            w.null();
            return;
        }
        w.beginObject();
        w.field("samples", c->samples);
        w.field("cut", c->cut);
        w.field("nodes", c->nodes);
        w.key("functions");
        w.beginArray();
        for (const CallFunctionRow& f : c->functions) {
            w.beginObject();
            w.field("name", f.name);
            w.field("self", f.self);
            w.field("inclusive", f.inclusive);
            w.field("self_percent", f.selfPercent);
            w.field("self_error", f.selfError);
            w.field("inclusive_percent", f.inclusivePercent);
            w.field("inclusive_error", f.inclusiveError);
            callEdges(w, "callers", f.callers);
            callEdges(w, "callees", f.callees);
            w.endObject();
        }
        w.endArray();
        w.field("more_functions", c->moreFunctions);
        callEdges(w, "short_paths", c->shortPaths);
        w.endObject();
    }

    void imbalanceModules(JsonWriter& w, const std::vector<ModuleImbalance>& rows)
    {
        w.key("modules");
        w.beginArray();
        for (const ModuleImbalance& m : rows) {
            w.beginObject();
            w.field("name", m.name);
            w.field("hits", m.hits);
            w.field("min_percent", m.minPercent);
            w.field("mean_percent", m.meanPercent);
            w.field("max_percent", m.maxPercent);
            w.field("max_rank", m.maxRank);
            w.field("variation", m.variation);
            w.endObject();
        }
        w.endArray();
    }

    void rankRows(JsonWriter& w, const std::vector<RankRow>& rows)
    {
        w.key("ranks");
        w.beginArray();
        for (const RankRow& r : rows) {
            w.beginObject();
            w.field("rank", r.rank);
            w.field("pid", r.pid);
            w.field("file", r.file);
            w.field("samples", r.samples);
            w.field("percent", r.percent);
            w.field("achieved_rate", r.achievedRate);
            w.field("cpu_seconds", r.cpuSeconds);
            w.field("user_percent", r.userPercent);
            w.field("system_percent", r.systemPercent);
            w.field("status", r.status);
            w.field("end_reason", r.endReason);
            w.endObject();
        }
        w.endArray();
    }

    void imbalance(JsonWriter& w, const std::optional<Imbalance>& i)
    {
        w.key("imbalance");
        if (!i) {
            w.null();
            return;
        }
        w.beginObject();
        w.field("ranks_merged", i->ranks);
        w.field("ranks_from_order", i->ranksFromOrder);
        imbalanceModules(w, i->modules);
        rankRows(w, i->rows);
        w.field("hidden_ranks", i->hiddenRanks);
        w.field("hidden_after", i->hiddenAfter);
        w.field("mean_samples", i->meanSamples);
        w.field("samples_variation", i->samplesVariation);
        w.endObject();
    }

    void messages(JsonWriter& w, const Messages* all)
    {
        w.key("messages");
        w.beginArray();
        for (size_t i = 0; all && i < all->size(); ++i) {
            w.beginObject();
            w.field("kind", (*all)[i].kind == Message::Kind::Note ? "note" : "warning");
            w.field("text", (*all)[i].text);
            w.endObject();
        }
        w.endArray();
    }

} // namespace

std::string renderJsonReport(const Report& report, const RenderOptions& options)
{
    std::string out;
    JsonWriter w(out);
    w.beginObject();
    w.field("format", "ppe-report");
    w.field("format_version", 1);
    profile(w, report.profile);
    totals(w, report.totals);
    w.field("in_range", report.profile.inRange());
    w.field("cpu_time", report.cpuTime);
    w.field("function_modules", report.moduleKind == ModuleKind::Function);
    w.field("module_kind", moduleKindName(report.moduleKind));
    w.field("split_bins", report.splitBins);
    modules(w, report.modules);
    share(w, "unattributed", report.unattributed);
    lines(w, report.lines);
    objects(w, report.objects);
    objectAnalyses(w, report.objectAnalyses);
    threads(w, report);
    blocked(w, report.blocked);
    callPaths(w, report.calls);
    imbalance(w, report.imbalance);
    jsonDiff(w, report.diff);
    strings(w, "warnings", report.warnings);
    messages(w, options.messages);
    w.endObject();
    return out;
}

} // namespace ppe::formatter
