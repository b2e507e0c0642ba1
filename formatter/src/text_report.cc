#include "ppe/formatter/text_report.h"

#include "ppe/core/civil_time.h"
#include "ppe/formatter/shell_quote.h"

#include "paths.h"
#include "sampled_time.h"
#include "text_common.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace ppe::formatter {

namespace {

    std::string vmsDate(int64_t seconds)
    {
        static const char* const kMonths[]
            = { "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC" };
        const CivilTime t = civilFromUnix(seconds);
        return fmt::format("{}-{}-{} {:02}:{:02} UTC", t.day, kMonths[t.month - 1], t.year, t.hour, t.minute);
    }

    // A remote sampler's lines (ppe-arc): the server, and how long the target stood stopped.
    void remoteLines(std::string& out, const Profile& p)
    {
        if (p.remoteServer.empty())
            return;
        out += fmt::format(" Remote target {} through {}, {}: {}, stopped by {}\n", p.remoteTarget, p.remoteServer,
            p.remoteMode, p.remotePc, p.remoteInterrupt);
        out += fmt::format(" Intrusion: the target was stopped {:.2f}% of the wall time, {:.3f} ms a sample (p90 "
                           "{:.3f} ms, {} stops)\n",
            p.stoppedRatio * 100, p.stopMean * 1e3, p.stopP90 * 1e3, p.intrusionStops);
        if (!p.remoteError.empty())
            out += fmt::format(" Sampling ended early: {}\n", p.remoteError);
    }

    // `label` then `text`, its words wrapped at 100 columns under the text's first column.
    void wrappedLine(std::string& out, const std::string& label, const std::string& text)
    {
        constexpr size_t kWidth = 100;
        std::string line = label;
        size_t start = 0;
        while (start < text.size()) {
            size_t end = text.find(' ', start);
            end = end == std::string::npos ? text.size() : end;
            const std::string word = text.substr(start, end - start);
            if (line.size() > label.size() && line.size() + 1 + word.size() > kWidth) {
                out += line + "\n";
                line = std::string(label.size(), ' ');
            } else if (line.size() > label.size()) {
                line += ' ';
            }
            line += word;
            start = end + 1;
        }
        out += line + "\n";
    }

    bool hasInstructions(const Report& r)
    {
        return std::any_of(r.lines.begin(), r.lines.end(), [](const ModuleLines& m) {
            return std::any_of(m.files.begin(), m.files.end(), [](const FileLines& f) {
                return std::any_of(
                    f.rows.begin(), f.rows.end(), [](const LineRow& row) { return !row.instructions.empty(); });
            });
        });
    }

    // The skipped files by name, the first few only.
    std::string skippedNames(const std::vector<std::string>& files)
    {
        constexpr size_t kNamed = 5;
        std::string out;
        for (size_t i = 0; i < files.size() && i < kNamed; ++i)
            out += (i ? ", " : "") + files[i];
        if (files.size() > kNamed)
            out += fmt::format(" and {} more", files.size() - kNamed);
        return out;
    }

    // The rate over the time the mechanism samples: for the perf mechanisms, user time (the system
    // time, which no sample covers, is said below), with the rate over all CPU time after it.
    std::string samplingLine(const Profile& p, const Totals& t)
    {
        if (!rateOverUserTimeApart(t))
            return fmt::format(" Sampling by {}: requested {:.1f} Hz, achieved {:.1f} Hz\n", p.mechanism.name(),
                p.requestedRate, p.achievedRate);
        return fmt::format(" Sampling by {}: requested {:.1f} Hz, achieved {:.1f} Hz over the {:.2f} s of user time it "
                           "samples ({:.1f} Hz over all {:.2f} s of CPU time)\n",
            p.mechanism.name(), p.requestedRate, t.sampledRate, t.sampledSeconds, p.achievedRate, p.activeTime);
    }

    void header(std::string& out, const Report& r)
    {
        const Profile& p = r.profile;
        const Totals& t = r.totals;
        out += fmt::format("ppe profile on {}, {}, {}\n", p.host, p.cpu.empty() ? p.arch : p.cpu, vmsDate(p.startTime));
        out += fmt::format(" Image: {}{}\n", p.image, p.buildId.empty() ? "" : "  (build id " + p.buildId + ")");
        out += fmt::format(" Command line: {}\n", shellCommand(p.command));
        if (p.mergedProfiles > 1)
            out += fmt::format(
                " Merged: {} profiles (pids {}), ended by {}\n", p.mergedProfiles, p.mergedPids, p.mergedEndReasons);
        if (!p.skippedProfiles.empty())
            out += fmt::format(" Skipped: {} profile(s) that could not be read ({})\n", p.skippedProfiles.size(),
                skippedNames(p.skippedProfiles));
        out += fmt::format(" Address range {:X} - {:X} (Hex) length {} Sample interval {:g} ms {}\n", p.rangeStart,
            t.lastAddress, t.rangeBytes, t.intervalMs, p.mode == SampleMode::Cpu ? "CPU" : "PC");
        out += samplingLine(p, t);
        if (!t.missingSamples.empty())
            wrappedLine(out, " Samples missing: ", t.missingSamples);
        if (p.ringLost || p.ringForeign)
            out += fmt::format(" Ring buffers: {} samples lost (a ring was full), {} of other processes dropped\n",
                p.ringLost, p.ringForeign);
        remoteLines(out, p);
        if (p.status != ProfileStatus::Complete)
            out += fmt::format(" Profile status: {} (data up to {})\n", statusName(p.status), vmsDate(p.endTime));
        if (p.binWidth > p.granularity)
            out += fmt::format(" Bins are {} bytes, wider than one instruction: a bin that straddles two modules or "
                               "lines is split in proportion to the bytes each owns{}\n",
                p.binWidth, hasInstructions(r) ? " (and so are the instructions' hits)" : "");
        out += '\n';
        // PPE called the samples in shared objects "system"; a remote target has no system time.
        const bool remote = !p.remoteServer.empty();
        out += fmt::format("Total count     {:>10} | {}{:>10} | Overflow        {:>10}\n", p.total,
            remote ? "Library count   " : "System count    ", t.system, t.overflow);
        out += fmt::format("In range count  {:>10} | Other count     {:>10} | Underflow       {:>10}\n", p.inRange(),
            t.other, t.underflow);
        out += fmt::format("Number of bins  {:>10} | Bin width, bytes{:>10} | Max bin content {:>10}\n", p.binCount,
            p.binWidth, p.maxBin);
        out += '\n';
        if (!remote) // ppe-arc measures no CPU time of the target
            out += fmt::format("CPU time {:.2f} s, User time {:.2f}% System time {:.2f}%\n", t.cpuSeconds,
                t.cpuUserPercent, t.cpuSystemPercent);
        if (!remote && t.collectorCpuSeconds > 0) // ppe's own cost, which perf sees and the samples do not
            out += fmt::format("Of which the collector thread {:.3f} s ({:.2f}%): live file, ring drains, scans\n",
                t.collectorCpuSeconds, t.cpuSeconds > 0 ? 100 * t.collectorCpuSeconds / t.cpuSeconds : 0.0);
        out += fmt::format("Samples in the program {:.2f}%, in shared libraries {:.2f}%, elsewhere {:.2f}%\n",
            t.programPercent, t.librariesPercent, t.otherPercent);
        if (t.unsampledKernelSeconds >= 0.005)
            out += fmt::format("The {:.2f} s of system time have no samples: {} samples user time only\n",
                t.unsampledKernelSeconds, p.mechanism.name());
    }

    // The marks after a row's error and address: split hits, several ranges.
    std::string splitMark(const ModuleRow& row) { return row.splitHits > 0 ? "*" : " "; }
    std::string rangesMark(const ModuleRow& row) { return row.ranges > 1 ? "+" : " "; }

    void tableNotes(std::string& out, const std::vector<ModuleRow>& modules)
    {
        double split = 0;
        bool ranges = false;
        for (const ModuleRow& row : modules) {
            split += row.splitHits;
            ranges |= row.ranges > 1;
        }
        if (split > 0)
            out += fmt::format("   * {:.0f} hits of these rows came from bins split between modules by bytes: their "
                               "error includes that uncertainty\n",
                split);
        if (ranges)
            out += "   + code in several address ranges (others' code lies between): Address is the lowest, Size "
                   "their sum\n";
    }

    // With call paths, a function's time with its callees ("Incl %") after its own: its column
    // heading, or a row's entry.
    std::string inclusiveColumn(bool shown, const ModuleRow* row)
    {
        if (!shown)
            return "";
        if (!row)
            return fmt::format("  {:>6} +- {:>5} ", "Incl %", "error");
        return fmt::format("  {:>6.2f} +- {:>5.2f} ", row->inclusivePercent, row->inclusiveError);
    }

    // The rows of a module table, with `none`: the hits where no module's code is.
    void moduleRows(std::string& out, const std::vector<ModuleRow>& modules, const Share& none)
    {
        size_t width = 11;
        bool inclusive = false;
        for (const ModuleRow& row : modules) {
            width = std::max(width, std::min(row.name.size(), kMaxNameWidth));
            inclusive |= row.inclusivePercent >= 0;
        }
        out += fmt::format("{:>4}   {:<{}}  {:>6} +- {:>5} {}  {:>6}  {:>6}  {:>10}  {:>10}   {:>8}\n", "#",
            "Module name", width, "Time %", "error", inclusiveColumn(inclusive, nullptr), "All %", "Acc %", "Hits",
            "Address", "Size");
        size_t rank = 0;
        for (const ModuleRow& row : modules) {
            out += fmt::format(
                "{:>4} - {:<{}}  {:>6.2f} +- {:>5.2f}{}{}  {:>6.2f}  {:>6.2f}  {:>10.0f}  {:>10X}{}  {:>8}\n", ++rank,
                fitName(row.name, width), width, row.percent, row.error, splitMark(row),
                inclusiveColumn(inclusive, &row), row.percentOfAll, row.accumulated, row.hits, row.address,
                rangesMark(row), row.size);
        }
        if (none.hits > 0.5) {
            out += fmt::format("{:>4} - {:<{}}  {:>6.2f} +- {:>5.2f} {}  {:>6}  {:>6}  {:>10.0f}\n", "", "(no module)",
                width, none.percent, none.error, inclusive ? std::string(18, ' ') : "", "", "", none.hits);
        }
        tableNotes(out, modules);
        if (inclusive)
            out += "   Incl %: the function with its callees, % of the samples with a call path (see CALL PATHS)\n";
    }

    void moduleTable(std::string& out, const Report& r)
    {
        // Shares of the program's own samples: say so where they are a minority of all, lest a
        // 100 % row of a few hits read as where the time went.
        const Totals& t = r.totals;
        if (t.programPercent < 50 && r.profile.total > 0)
            out += fmt::format("\nPPE - STATISTIC PRINTOUT IN DECREASING {} TIME, % OF THE PROGRAM'S {} SAMPLES "
                               "({:.2f}% OF ALL; THE REST IN SHARED OBJECTS AND ELSEWHERE).\n\n",
                r.cpuTime ? "CPU" : "REAL", r.profile.inRange() + t.underflow + t.overflow, t.programPercent);
        else
            out += fmt::format("\nPPE - STATISTIC PRINTOUT IN DECREASING {} TIME.\n\n", r.cpuTime ? "CPU" : "REAL");
        moduleRows(out, r.modules, r.unattributed);
    }

    std::string addressName(const ObjectRow& o, const AddressRow& a)
    {
        return fmt::format("{}0x{:x} in {}", a.mapped ? "" : "offset ", a.address, o.name);
    }

    // The hits of an object's code that no function owns: its hottest addresses, the rest in one
    // row; or one "(no function)" row when the addresses are not known.
    void unownedRows(std::string& out, const ObjectRow& o, size_t width)
    {
        const Share& none = o.withoutFunction;
        if (none.hits < 0.5)
            return;
        if (o.hottest.empty()) {
            out += fmt::format("{:>4}     {:<{}}  {:>6.2f} +- {:>5.2f}  {:>10.0f}\n", "", "(no function)", width - 2,
                none.percent, none.error, none.hits);
            return;
        }
        double listed = 0;
        for (const AddressRow& a : o.hottest) {
            out += fmt::format("{:>4}     {:<{}}  {:>6.2f} +- {:>5.2f}  {:>10.0f}\n", "",
                fitName(addressName(o, a), width - 2), width - 2, a.percent, a.error, a.hits);
            listed += a.hits;
        }
        if (o.moreAddresses)
            out += fmt::format("{:>4}     ({} more addresses without a function, {:.0f} hits)\n", "", o.moreAddresses,
                none.hits - listed);
    }

    // Shared objects and their busiest functions, as % of all samples (PPE counted them as system time).
    void objectTable(std::string& out, const Report& r)
    {
        if (r.objects.empty())
            return;
        out += "\nPPE - SHARED OBJECTS IN DECREASING TIME, % OF ALL SAMPLES.\n\n";
        size_t width = 20;
        for (const ObjectRow& o : r.objects) {
            width = std::max(width, o.name.size());
            for (const FunctionRow& f : o.functions)
                width = std::max(width, f.name.size() + 2);
            for (const AddressRow& a : o.hottest)
                width = std::max(width, addressName(o, a).size() + 2);
        }
        width = std::min<size_t>(width, kMaxNameWidth);
        out += fmt::format("{:>4}   {:<{}}  {:>6} +- {:>5}  {:>10}  {}\n", "#", "Object, function", width, "Time %",
            "error", "Hits", "Path");
        size_t rank = 0;
        for (const ObjectRow& o : r.objects) {
            out += fmt::format("{:>4} - {:<{}}  {:>6.2f} +- {:>5.2f}  {:>10.0f}  {}{}\n", ++rank,
                fitName(o.name, width), width, o.percent, o.error, o.hits, o.path,
                o.buildId.empty() ? "" : "  (build id " + o.buildId + ")");
            for (const FunctionRow& f : o.functions) {
                out += fmt::format("{:>4}     {:<{}}  {:>6.2f} +- {:>5.2f}  {:>10.0f}\n", "",
                    fitName(f.name, width - 2), width - 2, f.percent, f.error, f.hits);
            }
            if (o.moreFunctions)
                out += fmt::format("{:>4}     ({} more functions)\n", "", o.moreFunctions);
            unownedRows(out, o, width);
            if (!o.note.empty())
                out += fmt::format("{:>4}     (functions unknown: {})\n", "", o.note);
        }
    }

    std::string hitsText(double hits)
    {
        if (hits > 0 && hits < 0.5)
            return "<1";
        return fmt::format("{:.0f}", hits);
    }

    void trimRight(std::string& line)
    {
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
    }

    // A row of the program text: hits, a bar scaled to the module's busiest line and the
    // accumulated %, or only the text on a line without hits. `split`: some of the hits came from
    // bins split between lines, marked '*' after them.
    void textRow(std::string& out, const ModuleLines& m, unsigned width, const std::string& line, double hits,
        double accumulated, const std::string& text, bool split = false)
    {
        std::string s;
        if (hits > 0) {
            const unsigned bars = m.busiest > 0 ? unsigned(std::lround(hits / m.busiest * width)) : 0;
            s = fmt::format("{:>6} {:>8}{}{:<{}} {:>6.1f}  {}", line, hitsText(hits), split ? '*' : ' ',
                std::string(bars, 'X'), width, accumulated, text);
        } else {
            s = fmt::format("{:>6} {:>8} {:<{}} {:>6}  {}", line, "", "", width, "", text);
        }
        trimRight(s);
        out += s + '\n';
    }

    // --asm: a line's instructions under it, marked '>', with hits and a bar of '=' on the lines' scale.
    void instructionRows(std::string& out, const ModuleLines& m, unsigned width, const LineRow& row)
    {
        for (const InstructionRow& i : row.instructions) {
            const unsigned bars = m.busiest > 0 ? unsigned(std::lround(i.hits / m.busiest * width)) : 0;
            std::string s = fmt::format("{:>6} {:>8} {:<{}} {:>6}      {:>6x}  {}", ">",
                i.hits > 0 ? hitsText(i.hits) : "", std::string(bars, '='), width, "", i.address, i.text);
            trimRight(s);
            out += s + '\n';
        }
    }

    std::string fileHeading(const FileLines& file)
    {
        std::string out = "\nFile " + file.name;
        const bool carried
            = std::any_of(file.rows.begin(), file.rows.end(), [](const LineRow& r) { return !r.text.empty(); });
        if (file.textPath.empty())
            out += carried ? "  (the text as the listing shows it)" : "  (source not found: --source-dir DIR)";
        else if (file.textPath != file.name)
            out += "  (text from " + file.textPath + ")";
        if (!file.own && file.inlinedInto.empty())
            out += "  (its lines with hits in this module: header or inlined code)";
        if (!file.own && !file.inlinedInto.empty()) {
            out += "  (its lines with hits in this module, inlined into ";
            for (size_t i = 0; i < file.inlinedInto.size(); ++i)
                out += (i ? ", " : "") + file.inlinedInto[i];
            out += ')';
        }
        return out + '\n';
    }

    // PPE's program text: hits, a bar scaled to the module's busiest line and the accumulated % of
    // the module's time on each line that took hits; the source text on every line. A shared
    // object's module is named with the object's: "__sin_fma in libm.so.6".
    void moduleText(std::string& out, const ModuleLines& m, const TextOptions& options, const std::string& object = "")
    {
        const unsigned width = options.barWidth;
        out += fmt::format("\nProgram text.  Module {}{}  Hits total {:.0f}  (lines from the {})\n", m.name,
            object.empty() ? "" : " in " + object, m.hits, m.origin);
        for (const FileLines& file : m.files) {
            out += fileHeading(file);
            out += fmt::format("{:>6} {:>8} {:<{}} {:>6}  {}\n", "Line", "Hits", "", width, "Acc %", "Source");
            for (const LineRow& r : file.rows) {
                textRow(out, m, width, std::to_string(r.line), r.hits, r.accumulated, r.text, r.splitHits > 0);
                instructionRows(out, m, width, r);
            }
        }
        if (m.withoutLine >= 0.5)
            textRow(out, m, width, "-", m.withoutLine, 100.0, "(code of the module that no line owns)");
        if (m.splitHits > 0)
            out += fmt::format("\n       * {:.0f} hits of the lines marked came from bins split between lines or "
                               "modules by bytes\n",
                m.splitHits);
    }

    // A shared object analysed as the executable is: its module table (Time % of its own samples)
    // and the program text of its busy modules.
    void objectAnalysis(std::string& out, const ObjectAnalysis& a, bool cpuTime, const TextOptions& options)
    {
        out += fmt::format(
            "\nPPE - SHARED OBJECT {} IN DECREASING {} TIME, % OF ITS {:.0f} SAMPLES ({:.2f}% OF ALL).\n", a.name,
            cpuTime ? "CPU" : "REAL", a.hits, a.percent);
        out += fmt::format(" Path: {}\n\n", a.path);
        moduleRows(out, a.modules, a.unattributed);
        for (const ModuleLines& m : a.lines)
            moduleText(out, m, options, a.name);
    }

} // namespace

std::string renderTextReport(const Report& report, const TextOptions& options)
{
    std::string out;
    header(out, report);
    moduleTable(out, report);
    imbalanceText(out, report);
    objectTable(out, report);
    blockedText(out, report);
    callPathsText(out, report);
    threadsText(out, report);
    for (const ModuleLines& m : report.lines)
        moduleText(out, m, options);
    for (const ObjectAnalysis& a : report.objectAnalyses)
        objectAnalysis(out, a, report.cpuTime, options);
    return out;
}

} // namespace ppe::formatter
