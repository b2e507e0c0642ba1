// ppeout: the PPE report from a linker map, a .ppe file and compiler listings, or from the
// executable's DWARF and symbols alone.
//   ppeout [options] MAP_FILE PPE_FILE OUTPUT [LISTING...]
//   ppeout [options] PPE_FILE OUTPUT
//   ppeout --diff BASE_PPE [--base-map MAP] [--base-exe PROG] [options] [MAP_FILE] PPE_FILE [OUTPUT]
//   ppeout --merge-out MERGED_PPE PPE_FILE...
// Options -> a ReportRequest -> makeReport (make_report.h) -> the report model -> a renderer
// (--format: text, json, csv, callgrind; renderers.h). Inputs are only read; the output never overwrites a file (the
// old one is kept as OUTPUT.~N~); "-" is stdout.
#include "ppe/core/output_file.h"
#include "ppe/formatter/diff_report.h"
#include "ppe/formatter/inputs.h"
#include "ppe/formatter/make_report.h"
#include "ppe/formatter/merge_profiles.h"
#include "ppe/formatter/merged_profile.h"
#include "ppe/formatter/progress.h"
#include "ppe/formatter/renderers.h"
#include "ppe/formatter/text_report.h"
#include "ppe/profile/profile_reader.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <sys/stat.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace po = boost::program_options;
namespace pf = ppe::formatter;

namespace {

[[noreturn]] void fail(const std::string& message)
{
    fmt::print(stderr, "ppeout: error: {}\n", message);
    std::exit(1);
}

void warn(const std::string& message) { fmt::print(stderr, "ppeout: warning: {}\n", message); }

void note(const std::string& message) { fmt::print(stderr, "ppeout: note: {}\n", message); }

void print(const pf::Messages& messages)
{
    for (const pf::Message& m : messages)
        (m.kind == pf::Message::Kind::Note ? note : warn)(m.text);
}

struct Options {
    pf::ReportRequest request;
    std::string output;
    std::string by = "auto";
    unsigned barWidth = 40;
    std::string format = "ppl";
    std::string progress = "auto";
    bool byGiven = false; // --by was on the command line (callgrind otherwise takes functions)
    std::vector<std::string> args;
    std::string diff, baseMap, baseExe; // --diff: the base profile and its own sources
    std::string mergeOut; // --merge-out: every argument is profiles, merged into this .ppe
};

// True for an existing plain file (not "-", a device or a pipe, which reading would block on).
bool isRegularFile(const std::string& path)
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

void writeOutput(const std::string& path, const std::string& text)
{
    if (path == "-") {
        std::fwrite(text.data(), 1, text.size(), stdout);
        return;
    }
    // OUTPUT is the user's own name: a device or FIFO of theirs (/dev/null) is written into, never
    // replaced; another user's, or one reached through another user's symlink, is refused
    // (output_file.h).
    const char* refusal = nullptr;
    const int error = ppe::writeOutputFile(path.c_str(), text.data(), text.size(), ppe::OutputName::Given, &refusal);
    if (error)
        fail(fmt::format(
            "{}: cannot write: {}{}{}", path, std::strerror(error), refusal ? ": " : "", refusal ? refusal : ""));
}

void usage(const po::options_description& options)
{
    fmt::print("usage: ppeout [options] MAP_FILE PPE_FILE OUTPUT [LISTING...]\n"
               "       ppeout [options] PPE_FILE [OUTPUT]   (modules and lines from the executable's DWARF;\n"
               "                                            no OUTPUT: standard output)\n"
               "       ppeout [options] --diff BASE_PPE [--base-map MAP] [MAP_FILE] PPE_FILE [OUTPUT]\n"
               "       ppeout [options] --merge-out MERGED_PPE PPE_FILE...   (the merge as a .ppe)\n"
               "Formats a ppe profile (PPE_FILE, from libppe or `ppe`; a NAME.ppe.PID.live file left by\n"
               "a killed run is recovered; a directory or a quoted pattern ('run/*.ppe') names the profiles\n"
               "of many processes, and the live files of those killed first, which are merged, with a\n"
               "per-rank imbalance section) with the linker map\n"
               "of the same build (gcc -Wl,-Map=FILE: GNU ld, gold, lld or mold) into the PPE report.\n"
               "OUTPUT '-' is standard output; an existing OUTPUT is kept as OUTPUT.~N~.\n"
               "LISTINGs are assembler listings with source (gcc/g++/gfortran -g -Wa,-adhln=FILE.lis);\n"
               "quoted shell patterns ('lib/*.lis') are expanded. Each module with at least the line\n"
               "threshold of the time and a listing gets its program text with hits per line.\n"
               "Without a map, the executable the profile names (or --exe PROG; its build id must be the\n"
               "profile's) gives compile units, functions or source files (--by) and source lines from\n"
               "DWARF; with a map, its DWARF gives lines to the modules no listing covers (and, where the\n"
               "map's units are link-time partitions, -flto, the modules by source file). Shared objects\n"
               "that took samples are listed with their busiest functions from their symbol tables; those\n"
               "over the line threshold (or named by --object-lines) that have DWARF get their own units\n"
               "and program text too.\n"
               "With --diff BASE_PPE, the report compares BASE_PPE (formatted with --base-map/--base-exe, or\n"
               "with the same map and executable when it is a profile of the same build, else its image's\n"
               "DWARF) with PPE_FILE: rows matched by name, the change of each row's share and time, each\n"
               "with its verdict (z-tests, Holm's correction, family-wise error 5%), and which moved; as\n"
               "text, JSON (its \"diff\"), CSV or HTML (docs/formats.md), not as callgrind.\n\n");
    std::ostringstream text;
    text << options;
    fmt::print("{}", text.str());
}

std::string formatHelp()
{
    std::string help = "the output format:";
    for (const pf::RendererEntry& r : pf::renderers())
        help += fmt::format(" {} ({}){}", r.name, r.description, &r == &pf::renderers().back() ? "" : ";");
    return help;
}

// The options, writing into `o` (whose defaults are the request's).
po::options_description describe(Options& o)
{
    pf::ReportRequest& r = o.request;
    po::options_description options("Options");
    auto add = options.add_options();
    add("exe,e", po::value(&r.exe), "the executable the profile is of (default: the image it names)");
    add("by,b", po::value(&o.by)->default_value(o.by),
        "modules are compile units (unit), functions (function; with a map, functions inside its units from the "
        "executable's symbols) or source files (file: each function credited to the file it was written in, from "
        "DWARF); auto: units, or files where the units are link-time partitions (-flto)");
    add("format,f", po::value(&o.format)->default_value(o.format), formatHelp().c_str());
    add("progress", po::value(&o.progress)->default_value(o.progress),
        "phases on stderr while formatting: auto (on a terminal, when it takes over a second), always, never");
    add("line-threshold,t", po::value(&r.lineThreshold)->default_value(r.lineThreshold, "1"),
        "list the program text of modules with at least this % of the in-range time");
    add("bar-width,w", po::value(&o.barWidth)->default_value(o.barWidth), "characters of the busiest line's bar");
    add("source-dir,s", po::value(&r.sourceDirs)->composing(),
        "look for source files here too (by their name and their base name); repeatable");
    add("debug-dir", po::value(&r.debugDirs)->composing(),
        "look for split debug files here (DIR/.build-id/xx/... and debuglink) before /usr/lib/debug; repeatable");
    add("objects-threshold", po::value(&r.objectThreshold)->default_value(r.objectThreshold, "1"),
        "list shared objects with at least this % of all samples");
    add("top-functions", po::value(&r.topFunctions)->default_value(r.topFunctions),
        "functions (and addresses no function owns) listed per shared object");
    add("call-functions", po::value(&r.callFunctions)->default_value(r.callFunctions),
        "functions listed with their callers and callees in the call paths (ppe -g)");
    add("callers", po::value(&r.callFocus.callers)->composing(),
        "the call paths of this function alone, with every caller its time came through; repeatable");
    add("callees", po::value(&r.callFocus.callees)->composing(),
        "the call paths of this function alone, with every callee its time went to; repeatable");
    add("object", po::value(&r.object),
        "format the samples of this shared object (named as for --object-lines) as if it had been the monitored "
        "image: its map, listings and DWARF apply");
    add("object-lines", po::value(&r.objectLines)->composing(),
        "give this shared object (path, file name, or name without version: libfoo.so) units or functions and "
        "program text from its DWARF, whatever its share (those over the line threshold get them anyway); "
        "repeatable");
    add("ignore-build-id", po::bool_switch(&r.ignoreBuildId),
        "format a profile with an executable of another build (the report may be wrong)");
    add("ignore-map-mismatch", po::bool_switch(&r.ignoreMapMismatch),
        "format with a map that does not fit the profile (of another program or build; the report may be wrong)");
    add("diff", po::value(&o.diff),
        "compare with this base profile (of the same build or another build of the program): per module and "
        "function, the change of share and time, each with its verdict, and which moved");
    add("base-map", po::value(&o.baseMap), "--diff: the linker map of the base profile's build");
    add("base-exe", po::value(&o.baseExe), "--diff: the executable the base profile is of");
    add("asm", po::bool_switch(&r.instructions),
        "under each line with hits, its instructions with their hits (from the listing, else the executable "
        "disassembled: x86-64, AArch64)");
    add("strict", po::bool_switch(&r.strict),
        "merging a directory or pattern: a profile that cannot be read (damaged, truncated) is an error; by "
        "default it is skipped with a warning and counted in the report's header");
    add("merge-out", po::value(&o.mergeOut),
        "write the merge of the profiles every argument names (files, directories, patterns) to this .ppe, which "
        "can itself be merged again (node by node, then the nodes' parts), instead of a report");
    add("verbose,v", po::bool_switch(&r.verbose), "say which listing went to which module, and what DWARF was used");
    add("help,h", "print this help and exit");
    add("version,V", "print the version and exit");
    return options;
}

void checkValues(const Options& o)
{
    const pf::ReportRequest& r = o.request;
    if (!(r.lineThreshold >= 0 && r.lineThreshold <= 100))
        fail(fmt::format("--line-threshold {}: not a percentage from 0 to 100", r.lineThreshold));
    if (!(r.objectThreshold >= 0 && r.objectThreshold <= 100))
        fail(fmt::format("--objects-threshold {}: not a percentage from 0 to 100", r.objectThreshold));
    if (o.barWidth < 1 || o.barWidth > 1000)
        fail(fmt::format("--bar-width {}: not from 1 to 1000", o.barWidth));
    if (o.diff.empty() && (!o.baseMap.empty() || !o.baseExe.empty()))
        fail("--base-map and --base-exe are for the base profile of --diff BASE_PPE");
    if (o.by != "auto" && o.by != "unit" && o.by != "function" && o.by != "file")
        fail(fmt::format("--by {}: expected auto, unit, function or file", o.by));
    if (!pf::findRenderer(o.format)) {
        std::string names;
        for (const pf::RendererEntry& r : pf::renderers())
            names += (names.empty() ? "" : ", ") + std::string(r.name);
        fail(fmt::format("--format {}: expected one of {}", o.format, names));
    }
    if (!o.diff.empty() && o.format == "callgrind")
        fail("--format callgrind: a callgrind profile holds one run, not a comparison (--diff writes ppl, json, csv "
             "or html)");
    if (o.progress != "auto" && o.progress != "always" && o.progress != "never")
        fail(fmt::format("--progress {}: expected auto, always or never", o.progress));
}

// The positional arguments: MAP_FILE PPE_FILE OUTPUT [LISTING...], or PPE_FILE OUTPUT (no map:
// the executable's DWARF and symbols give modules and lines).
void takeArguments(Options& o)
{
    std::vector<std::string>& args = o.args;
    if (args.size() == 1)
        args.push_back("-"); // PPE_FILE alone: the report goes to standard output
    const bool withMap = args.size() >= 3;
    const size_t named = withMap ? 3 : 2;
    const size_t profileArg = withMap ? 1 : 0; // a directory or a pattern names many profiles, merged
    for (size_t i = 0; i < named; ++i) {
        if (i != profileArg && args[i].find_first_of("*?[") != std::string::npos && !std::ifstream(args[i]))
            fail(fmt::format(
                "{}: patterns are for profiles and listings only; the other arguments name one file each", args[i]));
    }
    pf::ReportRequest& r = o.request;
    r.map = withMap ? args[0] : "";
    r.profiles = { args[withMap ? 1 : 0] };
    o.output = r.output = args[named - 1];
    r.listings.assign(args.begin() + long(named), args.end());
    const std::map<std::string, pf::ModuleKind> kinds = { { "auto", pf::ModuleKind::Auto },
        { "unit", pf::ModuleKind::Unit }, { "function", pf::ModuleKind::Function }, { "file", pf::ModuleKind::File } };
    r.by = kinds.at(o.by);
    // KCachegrind and callgrind_annotate list functions: without a map (whose units a listing may
    // need) callgrind takes the executable's functions unless --by says otherwise.
    if (o.format == "callgrind" && !o.byGiven && !withMap)
        r.by = pf::ModuleKind::Function;
    if (pf::sameFile(o.output, r.profiles.front()) || (withMap && pf::sameFile(o.output, r.map)))
        fail(o.output + ": the output would replace an input");
    if (!o.diff.empty() && (pf::sameFile(o.output, o.diff) || pf::sameFile(o.output, o.baseMap)))
        fail(o.output + ": the output would replace an input");
    if (!withMap && o.output != "-" && isRegularFile(o.output) && ppe::looksLikeProfile(pf::readPrefix(o.output, 4096)))
        fail(fmt::format("{}: a ppe profile, not an output file name (two arguments are PPE_FILE OUTPUT; with a map "
                         "MAP_FILE PPE_FILE OUTPUT)",
            o.output));
}

// A profile, a directory of profiles or a pattern: what a lone argument must be.
bool namesProfiles(const std::string& arg)
{
    struct stat st { };
    if (stat(arg.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        return true; // a directory, or a FIFO or device named directly: read as a profile (not peeked at)
    return ppe::looksLikeProfile(pf::readPrefix(arg, 4096)) || arg.find_first_of("*?[") != std::string::npos;
}

// The options, or nullopt when --help or --version asked only for a text.
std::optional<Options> parseOptions(int argc, char** argv)
{
    Options o;
    const po::options_description options = describe(o);
    po::options_description all;
    all.add(options).add_options()("args", po::value(&o.args));
    po::positional_options_description positional;
    positional.add("args", -1);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        fail(std::string(e.what()) + " (see ppeout --help)");
    }
    if (vm.count("help"))
        return usage(options), std::nullopt;
    if (vm.count("version"))
        return fmt::print("ppeout {}\n", PPE_VERSION), std::nullopt;
    if (o.args.empty() && !vm["merge-out"].empty())
        fail("--merge-out MERGED_PPE: expected the profiles to merge (files, directories, quoted patterns)");
    if (o.args.empty())
        fail(
            "expected MAP_FILE PPE_FILE OUTPUT [LISTING...] or PPE_FILE [OUTPUT], got no argument (see ppeout --help)");
    if (o.args.size() == 1 && !namesProfiles(o.args[0]) && vm["merge-out"].empty()) {
        fail(fmt::format("{}: not a ppe profile; expected MAP_FILE PPE_FILE OUTPUT [LISTING...] or PPE_FILE [OUTPUT] "
                         "(see ppeout --help)",
            o.args[0]));
    }
    o.byGiven = !vm["by"].defaulted();
    checkValues(o);
    if (o.mergeOut.empty())
        takeArguments(o);
    return o;
}

pf::ProgressMode progressMode(const std::string& name)
{
    if (name == "always")
        return pf::ProgressMode::Always;
    return name == "never" ? pf::ProgressMode::Never : pf::ProgressMode::Auto;
}

// `--diff BASE`: the base's request is the changed side's with its own profile and sources.
int diffMain(const Options& o)
{
    pf::ReportRequest base = o.request;
    base.profiles = { o.diff };
    base.map = o.baseMap;
    base.exe = o.baseExe;
    base.listings.clear();
    pf::ProgressLine progress(2, progressMode(o.progress));
    base.progress = [&progress](std::string_view phase, size_t done, size_t total) {
        progress.phase("base: " + std::string(phase), done, total);
    };
    pf::ReportRequest current = o.request;
    current.progress
        = [&progress](std::string_view phase, size_t done, size_t total) { progress.phase(phase, done, total); };
    pf::Messages messages;
    const ppe::Result<pf::Report> report = pf::makeDiffReport(base, current, messages);
    std::string text;
    if (report) {
        progress.phase("rendering " + o.format);
        text = pf::findRenderer(o.format)->render(*report, pf::RenderOptions { o.barWidth, &messages });
    }
    progress.finish(); // the line cleared before the messages
    print(messages);
    if (!report)
        fail(report.error().str());
    for (const std::string& w : report->diff->warnings)
        warn(w);
    writeOutput(o.output, text);
    return 0;
}

// `--merge-out FILE PPE_FILE...`: the merge itself as a .ppe (merged_profile.h), no report.
int mergeMain(const Options& o)
{
    if (o.mergeOut == "-" || !o.diff.empty())
        fail("--merge-out names a file for the merged profile (not '-'), and does not go with --diff");
    if (isRegularFile(o.mergeOut)) { // the old file is kept as NAME.~N~, but it must not be an input
        const auto files = pf::profileFiles(o.args);
        for (const std::string& f : files ? *files : std::vector<std::string> {})
            if (pf::sameFile(o.mergeOut, f))
                fail(fmt::format("{}: the merged profile would replace one of its inputs ({})", o.mergeOut, f));
    }
    pf::ProgressLine progress(2, progressMode(o.progress));
    pf::Messages messages;
    auto sum = pf::readProfiles(
        o.args, messages, [&](size_t done, size_t total) { progress.phase("merging", done, total); }, o.request.strict);
    ppe::Result<std::string> text = sum ? pf::mergedProfileText(std::move(*sum), messages) : sum.error();
    progress.finish();
    print(messages);
    if (!text)
        fail(text.error().str());
    writeOutput(o.mergeOut, *text);
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    std::optional<Options> options = parseOptions(argc, argv);
    if (!options)
        return 0;
    if (!options->mergeOut.empty())
        return mergeMain(*options);
    if (!options->diff.empty())
        return diffMain(*options);
    pf::ProgressLine progress(2, progressMode(options->progress));
    options->request.progress
        = [&progress](std::string_view phase, size_t done, size_t total) { progress.phase(phase, done, total); };
    pf::Messages messages;
    const ppe::Result<pf::Report> report = pf::makeReport(options->request, messages);
    std::string text;
    if (report) {
        progress.phase("rendering " + options->format);
        text = pf::findRenderer(options->format)->render(*report, pf::RenderOptions { options->barWidth, &messages });
    }
    progress.finish(); // the line cleared before the messages
    print(messages);
    if (!report)
        fail(report.error().str());
    for (const std::string& w : report->warnings)
        warn(w);
    writeOutput(options->output, text);
    return 0;
}
