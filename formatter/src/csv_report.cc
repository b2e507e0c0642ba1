// The report as CSV: one record per module, line, instruction, shared object and function, with a
// header row, so that a spreadsheet can filter by `kind` and `object` and sum `hits` (docs/formats.md
// lists the columns and what each kind's rows sum to).
#include "diff_formats.h"

#include "ppe/formatter/csv_writer.h"
#include "ppe/formatter/json_writer.h"
#include "ppe/formatter/renderers.h"

#include <fmt/format.h>

#include <array>

namespace ppe::formatter {

std::string csvField(std::string_view text)
{
    const bool plain = text.find_first_of(",\"\r\n") == std::string_view::npos
        && (text.empty() || (text.front() != ' ' && text.back() != ' '));
    if (plain)
        return std::string(text);
    std::string out = "\"";
    for (char c : text) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + '"';
}

std::string csvRecord(const std::vector<std::string>& fields)
{
    std::string out;
    for (size_t i = 0; i < fields.size(); ++i) {
        if (i)
            out += ',';
        out += csvField(fields[i]);
    }
    return out + "\r\n";
}

namespace {

    enum Column {
        kKind,
        kObject,
        kModule,
        kFunction,
        kFile,
        kLine,
        kAddress,
        kHits,
        kPercent,
        kError,
        kPercentOfAll,
        kAccumulated,
        kSize,
        kSplitHits,
        kText,
        kColumns
    };

    const std::array<const char*, kColumns> kHeader = { "kind", "object", "module", "function", "file", "line",
        "address", "hits", "percent", "error", "percent_of_all", "accumulated", "size", "split_hits", "text" };

    struct Row {
        std::vector<std::string> fields = std::vector<std::string>(kColumns);
        std::string& operator[](Column c) { return fields[c]; }
    };

    std::string number(double value) { return jsonNumber(value); }
    std::string hex(uint64_t value) { return fmt::format("0x{:x}", value); }

    // Where the rows of one module table belong: the executable ("") or a shared object's path.
    struct Scope {
        std::string& out;
        std::string object;
        bool functionModules;
    };

    void emit(Scope& s, Row& row) { s.out += csvRecord(row.fields); }

    void moduleRows(Scope& s, const std::vector<ModuleRow>& modules, const Share& none)
    {
        for (const ModuleRow& m : modules) {
            Row row;
            row[kKind] = "module";
            row[kObject] = s.object;
            row[kModule] = m.name;
            row[kFunction] = s.functionModules ? m.name : "";
            row[kAddress] = hex(m.address);
            row[kHits] = number(m.hits);
            row[kPercent] = number(m.percent);
            row[kError] = number(m.error);
            row[kPercentOfAll] = number(m.percentOfAll);
            row[kAccumulated] = number(m.accumulated);
            row[kSize] = std::to_string(m.size);
            row[kSplitHits] = number(m.splitHits);
            emit(s, row);
        }
        Row row;
        row[kKind] = "module";
        row[kObject] = s.object;
        row[kModule] = "(no module)";
        row[kHits] = number(none.hits);
        row[kPercent] = number(none.percent);
        row[kError] = number(none.error);
        emit(s, row);
    }

    void instructionRows(Scope& s, const Row& line, const std::vector<InstructionRow>& instructions)
    {
        for (const InstructionRow& i : instructions) {
            Row row = line;
            row[kKind] = "instruction";
            row[kAddress] = hex(i.address);
            row[kHits] = number(i.hits);
            row[kAccumulated] = row[kSplitHits] = "";
            row[kText] = i.text;
            emit(s, row);
        }
    }

    void lineRows(Scope& s, const ModuleLines& m)
    {
        Row base;
        base[kKind] = "line";
        base[kObject] = s.object;
        base[kModule] = m.name;
        base[kFunction] = s.functionModules ? m.name : "";
        for (const FileLines& f : m.files) {
            for (const LineRow& r : f.rows) {
                Row row = base;
                row[kFile] = f.name;
                row[kLine] = std::to_string(r.line);
                row[kHits] = number(r.hits);
                row[kAccumulated] = number(r.accumulated);
                row[kSplitHits] = number(r.splitHits);
                row[kText] = r.text;
                emit(s, row);
                instructionRows(s, row, r.instructions);
            }
        }
        base[kHits] = number(m.withoutLine);
        base[kText] = "(code of the module that no line owns)";
        emit(s, base);
    }

    // A function row of shared object `o`; the percent and error cells stay empty where the model
    // has none (the functions left out of the list have only their hits).
    void functionRow(Scope& s, const ObjectRow& o, const std::string& name, double hits, const Share* share)
    {
        Row row;
        row[kKind] = "function";
        row[kObject] = o.path;
        row[kFunction] = name;
        row[kHits] = number(hits);
        if (share) {
            row[kPercent] = number(share->percent);
            row[kError] = number(share->error);
        }
        emit(s, row);
    }

    void objectRows(Scope& s, const ObjectRow& o)
    {
        Row row;
        row[kKind] = "object";
        row[kObject] = o.path;
        row[kHits] = number(o.hits);
        row[kPercent] = number(o.percent);
        row[kError] = number(o.error);
        row[kText] = o.note;
        emit(s, row);
        for (const FunctionRow& f : o.functions) {
            Row fn;
            fn[kKind] = "function";
            fn[kObject] = o.path;
            fn[kFunction] = f.name;
            fn[kAddress] = hex(f.address);
            fn[kSize] = std::to_string(f.size);
            fn[kHits] = number(f.hits);
            fn[kPercent] = number(f.percent);
            fn[kError] = number(f.error);
            emit(s, fn);
        }
        if (o.moreFunctions)
            functionRow(s, o, fmt::format("({} more functions)", o.moreFunctions), o.moreFunctionsHits, nullptr);
        functionRow(s, o, "(no function)", o.withoutFunction.hits, &o.withoutFunction);
        for (const AddressRow& a : o.hottest) {
            Row at;
            at[kKind] = "address";
            at[kObject] = o.path;
            at[kAddress] = hex(a.address);
            at[kHits] = number(a.hits);
            at[kPercent] = number(a.percent);
            at[kError] = number(a.error);
            at[kText] = a.mapped ? "" : "file offset in no executable segment";
            emit(s, at);
        }
    }

    // The sample counts by category: they sum to the total.
    void countRows(Scope& s, const Profile& p)
    {
        for (unsigned c = 0; c < kCategoryCount; ++c) {
            Row row;
            row[kKind] = "count";
            row[kHits] = std::to_string(p.counts[c]);
            row[kText] = categoryName(c);
            emit(s, row);
        }
    }

    // Issue 39: each listed function's inclusive and self time, its callers' and callees' shares of
    // it, and why paths stopped short.
    void callRows(Scope& s, const std::optional<CallPathsReport>& calls)
    {
        if (!calls)
            return;
        auto edgeRows = [&s](const char* kind, const std::string& function, const std::vector<CallEdge>& edges) {
            for (const CallEdge& e : edges) {
                Row row;
                row[kKind] = kind;
                row[kFunction] = function;
                row[kHits] = number(e.samples);
                row[kPercent] = number(e.percent);
                row[kText] = e.name;
                emit(s, row);
            }
        };
        for (const CallFunctionRow& f : calls->functions) {
            for (const bool inclusive : { true, false }) {
                Row row;
                row[kKind] = inclusive ? "call" : "call-self";
                row[kFunction] = f.name;
                row[kHits] = number(inclusive ? f.inclusive : f.self);
                row[kPercent] = number(inclusive ? f.inclusivePercent : f.selfPercent);
                row[kError] = number(inclusive ? f.inclusiveError : f.selfError);
                emit(s, row);
            }
            edgeRows("caller", f.name, f.callers);
            edgeRows("callee", f.name, f.callees);
        }
        edgeRows("short-path", "", calls->shortPaths);
    }

} // namespace

std::string renderCsvReport(const Report& report, const RenderOptions&)
{
    if (report.diff) // --diff: the comparison, with its own columns
        return renderCsvDiff(*report.diff);
    std::string out = csvRecord(std::vector<std::string>(kHeader.begin(), kHeader.end()));
    Scope image { out, "", report.moduleKind == ModuleKind::Function };
    countRows(image, report.profile);
    moduleRows(image, report.modules, report.unattributed);
    for (const ModuleLines& m : report.lines)
        lineRows(image, m);
    for (const ObjectRow& o : report.objects)
        objectRows(image, o);
    for (const ObjectAnalysis& a : report.objectAnalyses) {
        Scope object { out, a.path, report.moduleKind == ModuleKind::Function };
        moduleRows(object, a.modules, a.unattributed);
        for (const ModuleLines& m : a.lines)
            lineRows(object, m);
    }
    callRows(image, report.calls);
    return out;
}

} // namespace ppe::formatter
