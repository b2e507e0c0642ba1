// The report in the callgrind profile format (valgrind.org/docs/manual/cl-format.html), for
// KCachegrind, QCachegrind and callgrind_annotate: one event, Samples; `ob=` the executable or a
// shared object, `fl=`/`fi=` the source files (their paths where the text was read, so that the
// tools find them), `fn=` the modules (functions with --by function, which ppeout takes for this
// format unless told otherwise) and per-line costs from the line analysis. Modules without one
// have their cost on line 0. With instructions (--asm) the positions are `instr line`. The
// summary is all samples, so the tools' percentages are the report's All %. A profile with call
// paths (ppe -g) adds the calls: for each caller, `cfn=` each callee and `calls=0 0` (sampling
// counts no calls; the call site is line 0) with the callee's inclusive samples under it, so that
// KCachegrind shows the call graph and callgrind_annotate --inclusive=yes the inclusive costs.
#include "paths.h"
#include "ppe/formatter/renderers.h"
#include "ppe/formatter/shell_quote.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

namespace ppe::formatter {

namespace {

    // A name on one line of the file (a line break in a command's argument would end it).
    std::string oneLine(std::string text)
    {
        for (char& c : text)
            c = c == '\n' || c == '\r' ? ' ' : c;
        return text;
    }

    // Callgrind's name compression: a name's first use defines "(N) name", later uses are "(N)".
    class Names {
    public:
        std::string operator()(const std::string& name)
        {
            const auto [it, added] = m_ids.emplace(oneLine(name), m_ids.size() + 1);
            return added ? fmt::format("({}) {}", it->second, it->first) : fmt::format("({})", it->second);
        }

    private:
        std::map<std::string, size_t> m_ids;
    };

    // Costs are 64-bit counters; hits split between lines by bytes are fractional, and are rounded
    // as the text report prints them.
    uint64_t cost(double hits) { return hits > 0 ? uint64_t(std::llround(hits)) : 0; }

    std::string pathOf(const FileLines& f) { return f.textPath.empty() ? f.name : f.textPath; }

    // A function as the file places it: ob=, fl= and fn=.
    struct Target {
        std::string object, file, name;
    };

    struct Writer {
        std::string& out;
        bool instructions; // positions: instr line
        Names files, functions, objects;
        std::string object; // the ob= being written
        std::string suffix; // what call paths add to the names of its functions: " (libm.so.6)"
        std::map<std::string, Target> targets; // by the call paths' name (place_names.cc)

        // An ob= section: the executable's (`base` "") or a shared object's (`base` its file name).
        void startObject(const std::string& path, std::string_view base)
        {
            out += "\nob=" + objects(path) + '\n';
            object = path;
            suffix = base.empty() ? "" : fmt::format(" ({})", base);
        }

        // A cost line for `line` at `address` (only written with instr positions).
        void costLine(uint64_t address, int line, double hits)
        {
            if (cost(hits) == 0)
                return;
            if (instructions)
                out += fmt::format("0x{:x} ", address);
            out += fmt::format("{} {}\n", line, cost(hits));
        }

        void function(const std::string& file, const std::string& name)
        {
            out += "fl=" + files(file) + '\n';
            out += "fn=" + functions(name) + '\n';
            targets.emplace(name + suffix, Target { object, file, name });
        }

        void rows(const FileLines& f, uint64_t address)
        {
            for (const LineRow& r : f.rows) {
                if (!instructions || r.instructions.empty()) {
                    costLine(address, r.line, r.hits);
                    continue;
                }
                for (const InstructionRow& i : r.instructions)
                    costLine(i.address, r.line, i.hits);
            }
        }
    };

    bool hasInstructions(const std::vector<ModuleLines>& all)
    {
        for (const ModuleLines& m : all) {
            for (const FileLines& f : m.files) {
                for (const LineRow& r : f.rows) {
                    if (!r.instructions.empty())
                        return true;
                }
            }
        }
        return false;
    }

    bool hasInstructions(const Report& r)
    {
        if (hasInstructions(r.lines))
            return true;
        for (const ObjectAnalysis& a : r.objectAnalyses) {
            if (hasInstructions(a.lines))
                return true;
        }
        return false;
    }

    // The file a module's cost lines start in (fl=): its entry file, else its own file.
    const FileLines* entryFile(const ModuleLines& m)
    {
        for (const FileLines& f : m.files) {
            if (f.name == m.entryFile)
                return &f;
        }
        for (const FileLines& f : m.files) {
            if (f.own)
                return &f;
        }
        return nullptr;
    }

    // A module with its line analysis: the entry file's lines (fl=), the code no line owns on line 0,
    // then the lines of other files (headers, inlined code) under fi=. KCachegrind keeps them all
    // under the one function; callgrind_annotate lists the function once per file ("file:fn").
    void moduleWithLines(Writer& w, const ModuleRow& row, const ModuleLines& m)
    {
        const FileLines* entry = entryFile(m);
        w.function(entry ? pathOf(*entry) : (m.entryFile.empty() ? "???" : m.entryFile), row.name);
        if (entry)
            w.rows(*entry, row.address);
        w.costLine(row.address, 0, m.withoutLine);
        for (const FileLines& f : m.files) {
            if (&f == entry)
                continue;
            w.out += "fi=" + w.files(pathOf(f)) + '\n';
            w.rows(f, row.address);
        }
    }

    // One module table (the executable's or a shared object's) under ob=`object`.
    void moduleTable(Writer& w, const std::string& object, std::string_view base, const std::vector<ModuleRow>& modules,
        const std::vector<ModuleLines>& lines, const Share& none, const std::string& noneName)
    {
        w.startObject(object, base);
        std::map<size_t, const ModuleLines*> linesOf;
        for (const ModuleLines& m : lines)
            linesOf[m.module] = &m;
        for (const ModuleRow& row : modules) {
            const auto found = linesOf.find(row.module);
            if (found != linesOf.end()) {
                moduleWithLines(w, row, *found->second);
                continue;
            }
            w.function(row.file.empty() ? "???" : row.file, row.name); // no program text, but its file is known
            w.costLine(row.address, 0, row.hits);
        }
        if (cost(none.hits) == 0)
            return;
        w.function("???", noneName);
        w.costLine(0, 0, none.hits);
    }

    // A shared object without a line analysis: its busiest functions, the rest, and the code no
    // function owns.
    void objectFunctions(Writer& w, const ObjectRow& o)
    {
        w.startObject(o.path, o.name);
        for (const FunctionRow& f : o.functions) {
            w.function("???", f.name);
            w.costLine(f.address, 0, f.hits);
        }
        if (cost(o.moreFunctionsHits)) {
            w.function("???", fmt::format("(other functions in {})", o.name));
            w.costLine(0, 0, o.moreFunctionsHits);
        }
        if (cost(o.withoutFunction.hits)) {
            w.function("???", fmt::format("(no function in {})", o.name));
            w.costLine(0, 0, o.withoutFunction.hits);
        }
    }

    // A function of the call paths where the file has it; one it does not list (no samples of its
    // own, as main) under the shared object its name ends with, else the executable, file ???.
    Target targetOf(const Writer& w, const Report& r, const std::string& name)
    {
        if (const auto known = w.targets.find(name); known != w.targets.end())
            return known->second;
        const size_t open = name.rfind(" (");
        if (open != std::string::npos && name.back() == ')') {
            const std::string_view base = std::string_view(name).substr(open + 2, name.size() - open - 3);
            for (const SharedObject& o : r.profile.objects) {
                if (baseName(o.path) == base)
                    return Target { o.path, "???", name.substr(0, open) };
            }
        }
        return Target { r.profile.image, "???", name };
    }

    // Each caller once (ob=, fl=, fn=), then each of its callees (cob=, cfi=, cfn=) with its
    // inclusive samples under it.
    void calls(Writer& w, const Report& r)
    {
        if (!r.calls)
            return;
        const std::string site = w.instructions ? "0 0" : "0";
        const CallArc* last = nullptr;
        for (const CallArc& arc : r.calls->arcs) {
            if (cost(arc.samples) == 0)
                continue;
            if (!last || last->caller != arc.caller) {
                const Target caller = targetOf(w, r, arc.caller);
                w.out += "\nob=" + w.objects(caller.object) + "\nfl=" + w.files(caller.file)
                    + "\nfn=" + w.functions(caller.name) + '\n';
            }
            last = &arc;
            const Target callee = targetOf(w, r, arc.callee);
            w.out += "cob=" + w.objects(callee.object) + "\ncfi=" + w.files(callee.file)
                + "\ncfn=" + w.functions(callee.name) + '\n';
            w.out += fmt::format("calls=0 {}\n{} {}\n", site, site, cost(arc.samples));
        }
    }

    void header(std::string& out, const Report& r, bool instructions)
    {
        const Profile& p = r.profile;
        out += "# callgrind format\nversion: 1\ncreator: ppeout\n";
        out += fmt::format("pid: {}\ncmd: {}\npart: 1\n", p.pid, oneLine(shellCommand(p.command)));
        out += fmt::format("desc: Image: {}\n", oneLine(p.image));
        out += fmt::format("desc: Sampling: {} every {:g} ms ({} time)\n", p.mechanism.name(), r.totals.intervalMs,
            r.cpuTime ? "CPU" : "real");
        out += fmt::format("positions: {}\n", instructions ? "instr line" : "line");
        out += "event: Samples : PC samples\nevents: Samples\n";
        // callgrind_annotate takes `events:` as the last header line; `summary:` is read after it.
        out += fmt::format("summary: {}\n", p.total);
    }

} // namespace

std::string renderCallgrindReport(const Report& report, const RenderOptions&)
{
    std::string out;
    const bool instructions = hasInstructions(report);
    header(out, report, instructions);
    Writer w { out, instructions, {}, {}, {}, {}, {}, {} };
    moduleTable(w, report.profile.image, "", report.modules, report.lines, report.unattributed, "(no module)");
    for (const ObjectRow& o : report.objects) {
        bool analysed = false;
        for (const ObjectAnalysis& a : report.objectAnalyses)
            analysed |= a.path == o.path;
        if (!analysed)
            objectFunctions(w, o);
    }
    for (const ObjectAnalysis& a : report.objectAnalyses)
        moduleTable(w, a.path, a.name, a.modules, a.lines, a.unattributed, "(no module in " + a.name + ")");
    calls(w, report);
    out += fmt::format("\ntotals: {}\n", report.profile.total);
    return out;
}

} // namespace ppe::formatter
