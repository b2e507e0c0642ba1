// ppeout: the PPE report from a linker map, a .ppe file and compiler listings.
//   ppeout [options] MAP_FILE PPE_FILE OUTPUT [LISTING...]
// Options -> library calls (mapparse, listparse, profile) -> report model -> text renderer.
// Inputs are only read; the output never overwrites a file (the old one is kept as OUTPUT.~N~);
// "-" is stdout.
#include "ppe/core/output_file.h"
#include "ppe/debuginfo/debug_info.h"
#include "ppe/formatter/address_sources.h"
#include "ppe/formatter/debug_sources.h"
#include "ppe/formatter/report.h"
#include "ppe/formatter/source_text.h"
#include "ppe/formatter/text_report.h"
#include "ppe/listparse/listing.h"
#include "ppe/mapparse/link_map.h"
#include "ppe/profile/live_recovery.h"
#include "ppe/profile/profile_reader.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <glob.h>
#include <optional>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace po = boost::program_options;

namespace {

[[noreturn]] void fail(const std::string& message)
{
    fmt::print(stderr, "ppeout: error: {}\n", message);
    std::exit(1);
}

void warn(const std::string& message) { fmt::print(stderr, "ppeout: warning: {}\n", message); }

void note(const std::string& message) { fmt::print(stderr, "ppeout: note: {}\n", message); }

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

bool sameFile(const std::string& a, const std::string& b)
{
    struct stat sa {}, sb {};
    return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

std::string directoryOf(const std::string& path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

// The files a listing argument names: a shell pattern the shell did not expand ('lib/*.lis') is
// expanded here, as PPEOUT expanded VMS wildcards.
std::vector<std::string> expandPattern(const std::string& arg)
{
    if (arg.find_first_of("*?[") == std::string::npos)
        return { arg };
    glob_t found {};
    const int rc = glob(arg.c_str(), 0, nullptr, &found);
    std::vector<std::string> paths;
    if (rc == 0) {
        for (size_t i = 0; i < found.gl_pathc; ++i)
            paths.emplace_back(found.gl_pathv[i]);
    }
    globfree(&found);
    if (paths.empty())
        warn(fmt::format("{}: no file matches this pattern", arg));
    return paths;
}

struct Inputs {
    std::string map, profile, output, exe;
    std::vector<std::string> sourceDirs, debugDirs;
    bool verbose = false;
    bool ignoreBuildId = false;
};

struct LineSources {
    std::vector<ppe::LineTable> tables;
    std::vector<std::vector<std::string>> baseDirs; // per table: where its relative file names start
};

// Reads each listing, matches it to its compilation unit in the map and gives that unit's modules
// its line table. Files that are not listings (the report itself, sources, maps a pattern
// matched), listings of other builds and damaged listings are skipped with a message; the report
// is made from the rest.
LineSources loadListings(const std::vector<std::string>& args, const Inputs& in, const ppe::mapparse::LinkMap& map,
    std::vector<ppe::CodeModule>& modules, const std::vector<size_t>& unitOf)
{
    LineSources sources;
    std::map<size_t, std::string> listingOfUnit;
    std::set<std::pair<dev_t, ino_t>> seen;
    for (const std::string& arg : args) {
        for (const std::string& path : expandPattern(arg)) {
            struct stat st {};
            if (stat(path.c_str(), &st) != 0) {
                warn(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
                continue;
            }
            if (!seen.insert({ st.st_dev, st.st_ino }).second)
                continue;
            if (sameFile(path, in.output)) {
                note(fmt::format("{}: the output file, skipped", path));
                continue;
            }
            if (sameFile(path, in.map) || sameFile(path, in.profile)) {
                note(fmt::format("{}: an input given before, not a listing; skipped", path));
                continue;
            }
            if (!S_ISREG(st.st_mode)) {
                note(fmt::format("{}: not a regular file, skipped", path));
                continue;
            }
            std::ifstream file(path, std::ios::binary);
            std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
            if (!file.good() && !file.eof()) {
                warn(fmt::format("{}: cannot read", path));
                continue;
            }
            if (!ppe::listparse::looksLikeListing(text)) {
                note(fmt::format("{}: not an assembler listing, skipped", path));
                continue;
            }
            auto listing = ppe::listparse::parseListing(text, path);
            if (!listing) {
                warn(listing.error().str() + " (listing skipped)");
                continue;
            }
            auto placed = ppe::placeListing(*listing, path, map);
            if (!placed) {
                warn(placed.error().str());
                continue;
            }
            const std::string& unit = map.modules[placed->unit].name;
            if (auto [it, added] = listingOfUnit.try_emplace(placed->unit, path); !added) {
                warn(fmt::format("{}: the map's {} already has the listing {}; this one is ignored", path, unit,
                    it->second));
                continue;
            }
            if (in.verbose) {
                note(fmt::format("{}: listing of {}", path, unit));
                for (const std::string& n : placed->notes)
                    note(n);
            }
            const int table = int(sources.tables.size());
            for (size_t m = 0; m < modules.size(); ++m) {
                if (unitOf[m] == placed->unit)
                    modules[m].lineTable = table;
            }
            sources.tables.push_back(std::move(placed->table));
            sources.baseDirs.push_back({ listing->compilationDirectory, directoryOf(path) });
        }
    }
    return sources;
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

// The executable's symbols and DWARF, when its build id is the profile's. `required`: the
// report is made from them (no map), so a problem is an error; otherwise DWARF only fills gaps
// and a problem is a note in verbose mode.
std::optional<ppe::debuginfo::DebugInfo> loadImage(const Inputs& in, const ppe::Profile& profile, bool required)
{
    const std::string path = in.exe.empty() ? profile.image : in.exe;
    ppe::debuginfo::Options options;
    options.debugRoots.insert(options.debugRoots.begin(), in.debugDirs.begin(), in.debugDirs.end());
    auto info = ppe::debuginfo::loadDebugInfo(path, options);
    if (!info) {
        if (required)
            fail(info.error().str() + (in.exe.empty() ? " (the image the profile names; --exe PROG names another)" : ""));
        if (in.verbose)
            note(info.error().str() + ": its DWARF is not used");
        return std::nullopt;
    }
    if (!profile.buildId.empty() && !info->buildId.empty() && profile.buildId != info->buildId) {
        const std::string message = fmt::format("{}: build id {}, but {} is a profile of build id {}: another build of "
                                                "the program",
            path, info->buildId, in.profile, profile.buildId);
        if (required && !in.ignoreBuildId)
            fail(message + " (--ignore-build-id formats it anyway)");
        if (!in.ignoreBuildId) {
            if (in.verbose)
                note(message + "; its DWARF is not used");
            return std::nullopt;
        }
        warn(message + "; formatted anyway (--ignore-build-id)");
    }
    if (required && info->units.empty() && info->functions.empty())
        fail(path + ": no DWARF and no symbols: nothing to attribute samples to (build with -g, or give the map)");
    if (required && info->debugPath.empty()) {
        warn(path + ": no DWARF (built without -g, or stripped: --debug-dir DIR finds its debug file by build id); "
                    "modules are the functions of its symbol tables");
    }
    for (const std::string& w : info->warnings)
        warn(w);
    return std::move(info.value());
}

// A shared object's functions, if the file is still the one the run loaded.
ppe::Result<ppe::ObjectCode> objectCode(const Inputs& in, const ppe::SharedObject& object)
{
    ppe::debuginfo::Options options;
    options.debugRoots.insert(options.debugRoots.begin(), in.debugDirs.begin(), in.debugDirs.end());
    options.lines = false;
    auto info = ppe::debuginfo::loadDebugInfo(object.path, options);
    if (!info)
        return info.error();
    if (!object.buildId.empty() && !info->buildId.empty() && object.buildId != info->buildId) {
        return ppe::Error { object.path, 0,
            fmt::format("changed since the run (build id {} now, {} then)", info->buildId, object.buildId) };
    }
    return ppe::objectCodeOf(*info);
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
    options.add_options()("exe,e", po::value(&in.exe), "the executable the profile is of (default: the image it names)")(
        "by,b", po::value(&by)->default_value("unit"),
        "without a map: modules are compile units (unit) or functions (function)")(
        "line-threshold,t", po::value(&threshold)->default_value(1.0, "1"),
        "list the program text of modules with at least this % of the in-range time")(
        "bar-width,w", po::value(&barWidth)->default_value(40), "characters of the busiest line's bar")(
        "source-dir,s", po::value(&in.sourceDirs)->composing(),
        "look for source files here too (by their name and their base name); repeatable")(
        "debug-dir", po::value(&in.debugDirs)->composing(),
        "look for split debug files here (DIR/.build-id/xx/... and debuglink) before /usr/lib/debug; repeatable")(
        "objects-threshold", po::value(&objectThreshold)->default_value(1.0, "1"),
        "list shared objects with at least this % of all samples")(
        "top-functions", po::value(&topFunctions)->default_value(5), "functions listed per shared object")(
        "ignore-build-id", po::bool_switch(&in.ignoreBuildId),
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
    if (sameFile(in.output, in.profile) || (withMap && sameFile(in.output, in.map)))
        fail(in.output + ": the output would replace an input");
    if (!withMap && ppe::looksLikeProfile(firstBytes(in.output, 4096)))
        fail(fmt::format("{}: a ppe profile, not an output file name (two arguments are PPE_FILE OUTPUT; with a map "
                         "MAP_FILE PPE_FILE OUTPUT)",
            in.output));

    std::vector<ppe::CodeModule> modules;
    LineSources lines;
    ppe::Profile profile;
    if (withMap) {
        // The map first: with the first two arguments swapped, the error names the first one.
        const ppe::mapparse::LinkMap map = loadMap(in.map);
        std::vector<size_t> unitOf;
        modules = ppe::modulesFromMap(map, unitOf);
        profile = loadProfile(in.profile);
        lines = loadListings({ args.begin() + 3, args.end() }, in, map, modules, unitOf);
        // DWARF fills the gaps: lines for the modules without a listing.
        if (const auto info = loadImage(in, profile, !in.exe.empty())) {
            const size_t filled = ppe::fillLineTables(*info, modules, lines.tables, lines.baseDirs);
            if (in.verbose)
                note(fmt::format("{}: DWARF lines for {} module(s) without a listing", info->path, filled));
        }
    } else {
        profile = loadProfile(in.profile);
        const auto info = loadImage(in, profile, true);
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
        report, [&](const ppe::SharedObject& o) { return objectCode(in, o); }, objectThreshold, topFunctions);
    for (const std::string& w : report.warnings)
        warn(w);
    writeOutput(in.output, ppe::renderTextReport(report, ppe::TextOptions { barWidth }));
    return 0;
}
