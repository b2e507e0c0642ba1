// Report::diff as JSON (docs/report.schema.json, $defs diff): both sides' header numbers, the
// program's change of time and every table's rows, each number exact as the rest of the report.
#include "diff_formats.h"

namespace ppe::formatter {

const char* presenceName(DiffPresence presence)
{
    if (presence == DiffPresence::OnlyBase)
        return "only_base";
    return presence == DiffPresence::OnlyChanged ? "only_new" : "both";
}

namespace {

    void side(JsonWriter& w, const char* name, const DiffSide& s)
    {
        w.key(name);
        w.beginObject();
        w.field("path", s.path);
        w.field("image", s.image);
        w.field("build_id", s.buildId);
        w.field("host", s.host);
        w.field("start_time", s.startTime);
        w.field("mechanism", s.mechanism);
        w.field("cpu_time", s.cpuTime);
        w.field("total", s.total);
        w.field("in_range", s.inRange);
        w.field("cpu_seconds", s.cpuSeconds);
        w.field("interval_ms", s.intervalMs);
        w.field("achieved_rate", s.achievedRate);
        w.field("seconds_per_sample", s.secondsPerSample);
        w.field("sampled_seconds", s.sampledSeconds);
        w.endObject();
    }

    void test(JsonWriter& w, const char* name, const ZTest& t)
    {
        w.key(name);
        w.beginObject();
        w.field("z", t.z);
        w.field("p", t.p);
        w.endObject();
    }

    void share(JsonWriter& w, const char* name, const Share& s)
    {
        w.key(name);
        w.beginObject();
        w.field("hits", s.hits);
        w.field("percent", s.percent);
        w.field("error", s.error);
        w.endObject();
    }

    void row(JsonWriter& w, const DiffRow& r)
    {
        w.beginObject();
        w.field("name", r.name);
        w.field("unit", r.unit);
        w.field("presence", presenceName(r.presence));
        share(w, "base", r.base);
        share(w, "new", r.changed);
        w.field("delta_percent", r.deltaPercent);
        test(w, "share_test", r.share);
        w.field("share_p", r.shareP);
        w.field("share_significant", r.shareSignificant);
        w.field("base_seconds", r.baseSeconds);
        w.field("new_seconds", r.changedSeconds);
        w.field("delta_seconds", r.deltaSeconds);
        w.field("seconds_error", r.secondsError);
        test(w, "time_test", r.time);
        w.field("time_p", r.timeP);
        w.field("time_significant", r.timeSignificant);
        w.field("significant", r.significant);
        w.field("movement", r.movement);
        w.endObject();
    }

    void table(JsonWriter& w, const DiffTable& t)
    {
        w.beginObject();
        w.field("kind", moduleKindName(t.kind));
        w.field("compared", t.compared);
        w.field("significant", t.significant);
        w.field("time_changed", t.timeChanged);
        w.field("share_changed", t.shareChanged);
        w.key("rows");
        w.beginArray();
        for (const DiffRow& r : t.rows)
            row(w, r);
        w.endArray();
        w.endObject();
    }

} // namespace

void jsonDiff(JsonWriter& w, const std::optional<DiffReport>& d)
{
    w.key("diff");
    if (!d) {
        w.null();
        return;
    }
    w.beginObject();
    w.field("alpha", d->alpha);
    side(w, "base", d->base);
    side(w, "new", d->changed);
    w.field("same_build", d->sameBuild);
    w.field("delta_seconds", d->deltaSeconds);
    w.field("delta_seconds_percent", d->deltaSecondsPercent);
    test(w, "time_test", d->time);
    w.field("time_significant", d->timeSignificant);
    w.key("tables");
    w.beginArray();
    for (const DiffTable& t : d->tables)
        table(w, t);
    w.endArray();
    w.key("warnings");
    w.beginArray();
    for (const std::string& text : d->warnings)
        w.value(text);
    w.endArray();
    w.endObject();
}

} // namespace ppe::formatter
