// ppeout: the PPE report from a linker map, a .ppe file and compiler listings, or from the
// executable's DWARF and symbols alone.
//   ppeout [options] MAP_FILE PPE_FILE OUTPUT [LISTING...]
//   ppeout [options] PPE_FILE OUTPUT
// Options -> library calls (mapparse, listparse, debuginfo, profile; inputs.h) -> report model
// -> text renderer.
// Inputs are only read; the output never overwrites a file (the old one is kept as OUTPUT.~N~);
// "-" is stdout.
#include "ppe/core/output_file.h"
#include "ppe/debuginfo/debug_info.h"
#include "ppe/formatter/address_sources.h"
#include "ppe/formatter/debug_sources.h"
#include "ppe/formatter/inputs.h"
#include "ppe/formatter/report.h"
#include "ppe/formatter/source_text.h"
#include "ppe/formatter/text_report.h"
#include "ppe/mapparse/link_map.h"
#include "ppe/profile/live_recovery.h"
#include "ppe/profile/profile_reader.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace po = boost::program_options;

namespace {

[[noreturn]] void fail(const std::string& message)
{
    fmt::print(stderr, "ppeout: error: {}\n", message);
    std::exit(1);
}

void warn(const std::string& message) { fmt::print(stderr, "ppeout: warning: {}\n", message); }

void note(const std::string& message) { fmt::print(stderr, "ppeout: note: {}\n", message); }

struct Inputs {
    std::string map, profile, output, exe;
    std::vector<std::string> sourceDirs, debugDirs;
    bool verbose = false;
    bool ignoreBuildId = false;
};

void print(ppe::Messages& messages)
{
    for (const ppe::Message& m : messages)
        (m.kind == ppe::Message::Kind::Note ? note : warn)(m.text);
    messages.clear();
}

// The executable's DWARF (see ppe::loadImage); an error ends the program.
std::optional<ppe::debuginfo::DebugInfo> image(const Inputs& in, const ppe::Profile& profile, bool required)
{
    ppe::Messages messages;
    auto info
        = ppe::loadImage(ppe::ImageRequest { in.exe, in.profile, in.debugDirs, required, in.ignoreBuildId, in.verbose },
            profile, messages);
    print(messages);
    if (!info)
        fail(info.error().str());
    return std::move(info.value());
}

std::string firstBytes(const std::string& path, size_t count)
{
    std::ifstream in(path, std::ios::binary);
    std::string text(count, '\0');
    in.read(text.data(), std::streamsize(count));
    text.resize(size_t(in.gcount()));
    return text;
}

ppe::Profile loadProfile(const std::string& path)
{
    auto profile = [&]() -> ppe::Result<ppe::Profile> {
        if (!ppe::profilePathForLiveFile(path).empty()) {
            auto text = ppe::recoverLiveFile(path);
            if (!text)
                return text.error();
            return ppe::parseProfile(*text, path);
        }
        return ppe::readProfile(path);
    }();
    if (profile)
        return std::move(profile.value());
    std::string message = profile.error().str();
    if (firstBytes(path, 4096).find("Memory Configuration") != std::string::npos
        || ppe::mapparse::parseLinkMap(firstBytes(path, 1 << 20), path))
        message += " (it looks like a linker map: the order is MAP_FILE PPE_FILE OUTPUT)";
    fail(message);
}

ppe::mapparse::LinkMap loadMap(const std::string& path)
{
    auto map = ppe::mapparse::readLinkMap(path);
    if (!map)
        fail(map.error().str());
    return std::move(map.value());
}

void writeOutput(const std::string& path, const std::string& text)
{
    if (path == "-") {
        std::fwrite(text.data(), 1, text.size(), stdout);
        return;
    }
    const int error = ppe::writeOutputFile(path.c_str(), text.data(), text.size());
    if (error)
        fail(fmt::format("{}: cannot write: {}", path, std::strerror(error)));
}

void usage(const po::options_description& options)
{
    fmt::print("usage: ppeout [options] MAP_FILE PPE_FILE OUTPUT [LISTING...]\n"
               "       ppeout [options] PPE_FILE OUTPUT     (modules and lines from the executable's DWARF)\n"
               "Formats a ppe profile (PPE_FILE, from libppe or `ppe`; a NAME.ppe.PID.live file left by\n"
               "a killed run is recovered) with the linker map of the same build (gcc -Wl,-Map=FILE:\n"
               "GNU ld, gold, lld or mold) into the PPE report. OUTPUT '-' is standard output; an\n"
               "existing OUTPUT is kept as OUTPUT.~N~.\n"
               "LISTINGs are assembler listings with source (gcc/g++/gfortran -g -Wa,-adhln=FILE.lis);\n"
               "quoted shell patterns ('lib/*.lis') are expanded. Each module with at least the line\n"
               "threshold of the time and a listing gets its program text with hits per line.\n"
               "Without a map, the executable the profile names (or --exe PROG; its build id must be the\n"
               "profile's) gives compile units or functions (--by) and source lines from DWARF; with a map,\n"
               "its DWARF gives lines to the modules no listing covers. Shared objects that took samples are\n"
               "listed with their busiest functions from their symbol tables.\n\n");
    std::ostringstream text;
    text << options;
    fmt::print("{}", text.str());
}

} // namespace

int main(int argc, char** argv)
{
    Inputs in;
    double threshold = 1.0, objectThreshold = 1.0;
    unsigned barWidth = 40;
    size_t topFunctions = 5;
    std::string by = "unit";
    po::options_description options("Options");
    options.add_options()("exe,e", po::value(&in.exe),
        "the executable the profile is of (default: the image it names)")("by,b", po::value(&by)->default_value("unit"),
        "without a map: modules are compile units (unit) or functions (function)")("line-threshold,t",
        po::value(&threshold)->default_value(1.0, "1"),
        "list the program text of modules with at least this % of the in-range time")(
        "bar-width,w", po::value(&barWidth)->default_value(40), "characters of the busiest line's bar")("source-dir,s",
        po::value(&in.sourceDirs)->composing(),
        "look for source files here too (by their name and their base name); repeatable")("debug-dir",
        po::value(&in.debugDirs)->composing(),
        "look for split debug files here (DIR/.build-id/xx/... and debuglink) before /usr/lib/debug; repeatable")(
        "objects-threshold", po::value(&objectThreshold)->default_value(1.0, "1"),
        "list shared objects with at least this % of all samples")("top-functions",
        po::value(&topFunctions)->default_value(5),
        "functions listed per shared object")("ignore-build-id", po::bool_switch(&in.ignoreBuildId),
        "format a profile with an executable of another build (the report may be wrong)")(
        "verbose,v", po::bool_switch(&in.verbose), "say which listing went to which module, and what DWARF was used")(
        "help,h", "print this help and exit")("version,V", "print the version and exit");
    po::options_description all;
    all.add(options).add_options()("args", po::value<std::vector<std::string>>());
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
        return usage(options), 0;
    if (vm.count("version"))
        return fmt::print("ppeout {}\n", PPE_VERSION), 0;
    const auto args = vm.count("args") ? vm["args"].as<std::vector<std::string>>() : std::vector<std::string> {};
    if (args.size() < 2) {
        fail(fmt::format("expected MAP_FILE PPE_FILE OUTPUT [LISTING...] or PPE_FILE OUTPUT, got {} argument(s) "
                         "(see ppeout --help)",
            args.size()));
    }
    if (!(threshold >= 0 && threshold <= 100))
        fail(fmt::format("--line-threshold {}: not a percentage from 0 to 100", threshold));
    if (!(objectThreshold >= 0 && objectThreshold <= 100))
        fail(fmt::format("--objects-threshold {}: not a percentage from 0 to 100", objectThreshold));
    if (barWidth < 1 || barWidth > 1000)
        fail(fmt::format("--bar-width {}: not from 1 to 1000", barWidth));
    if (by != "unit" && by != "function")
        fail(fmt::format("--by {}: expected unit or function", by));
    // Two arguments: no map, the executable's DWARF and symbols give modules and lines.
    const bool withMap = args.size() >= 3;
    in.map = withMap ? args[0] : "";
    in.profile = args[withMap ? 1 : 0];
    in.output = args[withMap ? 2 : 1];
    for (size_t i = 0; i < (withMap ? 3u : 2u); ++i) {
        if (args[i].find_first_of("*?[") != std::string::npos && !std::ifstream(args[i]))
            fail(fmt::format("{}: patterns are for listings only; the other arguments name one file each", args[i]));
    }
    if (ppe::sameFile(in.output, in.profile) || (withMap && ppe::sameFile(in.output, in.map)))
        fail(in.output + ": the output would replace an input");
    if (!withMap && ppe::looksLikeProfile(firstBytes(in.output, 4096)))
        fail(fmt::format("{}: a ppe profile, not an output file name (two arguments are PPE_FILE OUTPUT; with a map "
                         "MAP_FILE PPE_FILE OUTPUT)",
            in.output));

    std::vector<ppe::CodeModule> modules;
    ppe::LineSources lines;
    ppe::Profile profile;
    ppe::Messages messages;
    if (withMap) {
        // The map first: with the first two arguments swapped, the error names the first one.
        const ppe::mapparse::LinkMap map = loadMap(in.map);
        std::vector<size_t> unitOf;
        modules = ppe::modulesFromMap(map, unitOf);
        profile = loadProfile(in.profile);
        lines = ppe::loadListings(
            ppe::ListingRequest { { args.begin() + 3, args.end() }, { in.map, in.profile }, in.output, in.verbose },
            map, modules, unitOf, messages);
        print(messages);
        // DWARF fills the gaps: lines for the modules without a listing.
        if (const auto info = image(in, profile, false)) {
            const size_t filled = ppe::fillLineTables(*info, modules, lines.tables, lines.baseDirs);
            if (in.verbose)
                note(fmt::format("{}: DWARF lines for {} module(s) without a listing", info->path, filled));
        }
    } else {
        profile = loadProfile(in.profile);
        const auto info = image(in, profile, true);
        ppe::DebugModules debug
            = ppe::modulesFromDebugInfo(*info, by == "function" ? ppe::ModuleKind::Function : ppe::ModuleKind::Unit);
        modules = std::move(debug.modules);
        lines.tables = std::move(debug.tables);
        lines.baseDirs = std::move(debug.baseDirs);
        if (in.verbose)
            note(fmt::format("{}: {} DWARF units, {} functions, debug info from {}", info->path, info->units.size(),
                info->functions.size(), info->debugPath.empty() ? "nowhere (symbols only)" : info->debugPath));
    }
    ppe::Report report = ppe::buildReport(std::move(profile), modules);
    const std::vector<size_t> selected = ppe::modulesForLineAnalysis(report, modules, threshold);
    std::set<int> read;
    for (size_t m : selected) {
        const int t = modules[m].lineTable;
        if (read.insert(t).second)
            ppe::loadSourceText(lines.tables[t], lines.baseDirs[t], in.sourceDirs, report.warnings);
    }
    ppe::analyseLines(report, modules, lines.tables, selected);
    ppe::addSharedObjects(
        report, [&](const ppe::SharedObject& o) { return ppe::sharedObjectCode(o, in.debugDirs); }, objectThreshold,
        topFunctions);
    for (const std::string& w : report.warnings)
        warn(w);
    writeOutput(in.output, ppe::renderTextReport(report, ppe::TextOptions { barWidth }));
    return 0;
}
