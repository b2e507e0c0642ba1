// `ppeout --diff --format csv`: the comparison alone, as the text is, with columns of its own (a
// single-run report's columns have no place for two sides): one `program` record with both sides'
// in-range counts and sampled times, then one `row` record per row of each table.
#include "diff_formats.h"

#include "ppe/formatter/csv_writer.h"

#include <array>

namespace ppe::formatter {

namespace {

    enum Column {
        kKind,
        kTable,
        kName,
        kUnit,
        kPresence,
        kBaseHits,
        kNewHits,
        kBasePercent,
        kNewPercent,
        kBaseError,
        kNewError,
        kChangePp,
        kShareZ,
        kShareP,
        kShareChanged,
        kBaseSeconds,
        kNewSeconds,
        kChangeSeconds,
        kSecondsError,
        kTimeZ,
        kTimeP,
        kTimeChanged,
        kSignificant,
        kMoved,
        kColumns
    };

    const std::array<const char*, kColumns> kHeader = { "kind", "table", "name", "unit", "presence", "base_hits",
        "new_hits", "base_percent", "new_percent", "base_error", "new_error", "change_pp", "share_z", "share_p",
        "share_changed", "base_seconds", "new_seconds", "change_seconds", "seconds_error", "time_z", "time_p",
        "time_changed", "significant", "moved" };

    using Record = std::vector<std::string>;

    std::string number(double value) { return jsonNumber(value); }
    std::string flag(bool value) { return value ? "true" : "false"; }

    // The program's in-range samples and sampled time. Between two runs of one build its change
    // of time gets no verdict (time_changed empty), as the text says.
    Record programRecord(const DiffReport& d)
    {
        Record r(kColumns);
        r[kKind] = "program";
        r[kName] = "(program)";
        r[kBaseHits] = std::to_string(d.base.inRange);
        r[kNewHits] = std::to_string(d.changed.inRange);
        r[kBaseSeconds] = number(d.base.sampledSeconds);
        r[kNewSeconds] = number(d.changed.sampledSeconds);
        r[kChangeSeconds] = number(d.deltaSeconds);
        r[kTimeZ] = number(d.time.z);
        r[kTimeP] = number(d.time.p);
        r[kTimeChanged] = d.sameBuild ? "" : flag(d.timeSignificant);
        return r;
    }

    Record rowRecord(const DiffTable& t, const DiffRow& row)
    {
        Record r(kColumns);
        r[kKind] = "row";
        r[kTable] = moduleKindName(t.kind);
        r[kName] = row.name;
        r[kUnit] = row.unit;
        r[kPresence] = presenceName(row.presence);
        r[kBaseHits] = number(row.base.hits);
        r[kNewHits] = number(row.changed.hits);
        r[kBasePercent] = number(row.base.percent);
        r[kNewPercent] = number(row.changed.percent);
        r[kBaseError] = number(row.base.error);
        r[kNewError] = number(row.changed.error);
        r[kChangePp] = number(row.deltaPercent);
        r[kShareZ] = number(row.share.z);
        r[kShareP] = number(row.shareP);
        r[kShareChanged] = flag(row.shareSignificant);
        r[kBaseSeconds] = number(row.baseSeconds);
        r[kNewSeconds] = number(row.changedSeconds);
        r[kChangeSeconds] = number(row.deltaSeconds);
        r[kSecondsError] = number(row.secondsError);
        r[kTimeZ] = number(row.time.z);
        r[kTimeP] = number(row.timeP);
        r[kTimeChanged] = flag(row.timeSignificant);
        r[kSignificant] = flag(row.significant);
        r[kMoved] = row.movement;
        return r;
    }

} // namespace

std::string renderCsvDiff(const DiffReport& d)
{
    std::string out = csvRecord(Record(kHeader.begin(), kHeader.end()));
    out += csvRecord(programRecord(d));
    for (const DiffTable& t : d.tables) {
        for (const DiffRow& row : t.rows)
            out += csvRecord(rowRecord(t, row));
    }
    return out;
}

} // namespace ppe::formatter
