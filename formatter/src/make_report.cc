#include "ppe/formatter/make_report.h"

#include "ppe/formatter/call_paths.h"

#include "ppe/formatter/address_sources.h"
#include "ppe/formatter/build_report.h"
#include "ppe/formatter/imbalance.h"
#include "ppe/formatter/inputs.h"
#include "ppe/formatter/instructions.h"
#include "ppe/formatter/map_check.h"
#include "ppe/formatter/merge_profiles.h"
#include "ppe/formatter/object_reports.h"
#include "ppe/formatter/source_text.h"
#include "ppe/formatter/thread_report.h"

#include "place_names.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace ppe::formatter {

namespace {

    void step(const ReportRequest& request, std::string_view phase, size_t done = 0, size_t total = 0)
    {
        if (request.progress)
            request.progress(phase, done, total);
    }

    // What the report is made of before any hit is counted: the profile, the modules and where
    // their lines come from.
    struct Sources {
        Profile profile;
        std::vector<CodeModule> modules;
        LineSources lines;
        std::optional<debuginfo::DebugInfo> image; // the executable's symbols and DWARF, when read
        // The image was read without line tables: readReportLines reads those the report needs.
        bool linesLater = false;
        ModuleKind kind = ModuleKind::Unit; // what the modules are (never Auto)
    };

    // The profile, or with --object the profile of the shared object it names (objectProfile).
    Result<Profile> readProfileOf(const ReportRequest& request, Messages& messages)
    {
        step(request, "reading the profile");
        auto profile = readProfiles(
            request.profiles, messages,
            [&request](size_t done, size_t total) { step(request, "reading profiles", done, total); }, request.strict);
        if (!profile || request.object.empty())
            return profile;
        auto found = findObject(*profile, request.object, request.profiles.front());
        if (!found)
            return found.error();
        const SharedObject& object = profile->objects[*found];
        auto info = loadObjectInfo(object, *profile, request.debugDirs, false, ModuleKind::Function);
        if (!info)
            return info.error();
        return objectProfile(*profile, object, objectCodeOf(*info));
    }

    ImageRequest imageRequest(const ReportRequest& request, bool required)
    {
        return ImageRequest { request.exe, request.profiles.empty() ? "" : request.profiles.front(), request.debugDirs,
            required, request.ignoreBuildId, request.verbose };
    }

    ListingRequest listingRequest(const ReportRequest& request)
    {
        std::vector<std::string> inputs = request.profiles;
        inputs.insert(inputs.begin(), request.map);
        return ListingRequest { request.listings, std::move(inputs), request.output, request.verbose };
    }

    bool sameBuild(const Profile& profile, const std::optional<debuginfo::DebugInfo>& image)
    {
        return image && !image->buildId.empty() && image->buildId == profile.buildId;
    }

    // Why `map` is not the map of the program `profile` is of (map_check.h), or nullopt: by the
    // image's symbols when the image is the profile's build, else by the range and the hits.
    std::optional<std::string> mapMismatch(
        const mapparse::LinkMap& map, const Profile& profile, const std::optional<debuginfo::DebugInfo>& image)
    {
        if (sameBuild(profile, image)) {
            if (auto why = mapMismatchBySymbols(map, *image))
                return why;
        }
        return mapMismatchByRange(map, profile);
    }

    // The map must be of the profile's program: an error naming both, or with --ignore-map-mismatch
    // a warning.
    std::optional<Error> checkMap(const ReportRequest& request, const mapparse::LinkMap& map, const Profile& profile,
        const std::optional<debuginfo::DebugInfo>& image, Messages& messages)
    {
        const std::optional<std::string> why = mapMismatch(map, profile, image);
        if (request.verbose && sameBuild(profile, image)) {
            const SectionFit fit = sectionsAtFunctions(map, *image);
            addNote(messages,
                fmt::format("{}: {} of its {} code sections start and end where functions of {} do", request.map,
                    fit.sections - fit.amiss, fit.sections, image->path));
        }
        if (request.verbose)
            addNote(messages,
                fmt::format("{}: {:.2f}% of the in-range hits fall outside its code sections", request.map,
                    hitsOutsideMapPercent(map, profile)));
        if (!why)
            return std::nullopt;
        const std::string message = fmt::format("{}: not the map of the program {} is a profile of ({}): {}",
            request.map, request.profiles.front(), profile.image, *why);
        if (!request.ignoreMapMismatch)
            return Error { "", 0, message + " (--ignore-map-mismatch formats it anyway)" };
        addWarning(messages, message + "; formatted anyway (--ignore-map-mismatch), the report may be wrong");
        return std::nullopt;
    }

    // Why the modules are source files when nobody asked: the units are link-time partitions.
    void noteAutomaticFiles(const ReportRequest& request, const debuginfo::DebugInfo& info, Messages& messages)
    {
        if (request.by != ModuleKind::Auto || chooseModuleKind(info, request.by) != ModuleKind::File)
            return;
        addNote(messages,
            fmt::format("{}: its DWARF units are link-time partitions (\"<artificial>\": built with -flto), not source "
                        "files; modules are source files (--by unit shows the partitions)",
                info.path));
    }

    // Modules and lines from the executable's DWARF (and symbols).
    Sources sourcesFromDwarf(
        const ReportRequest& request, ModuleKind by, Profile profile, debuginfo::DebugInfo info, Messages& messages)
    {
        const ModuleKind kind = chooseModuleKind(info, by);
        DebugModules debug = modulesFromDebugInfo(info, by);
        if (request.verbose) {
            const auto detailed = std::count_if(
                info.units.begin(), info.units.end(), [](const debuginfo::CompileUnit& u) { return u.detailed; });
            addNote(messages,
                fmt::format("{}: {} DWARF units ({} read whole: those with samples), {} functions, debug info from {}",
                    info.path, info.units.size(), detailed, info.functions.size(),
                    info.debugPath.empty() ? "nowhere (symbols only)" : info.debugPath));
        }
        return Sources { std::move(profile), std::move(debug.modules),
            LineSources { std::move(debug.tables), std::move(debug.baseDirs), {} }, std::move(info), false, kind };
    }

    // The one warning for a map whose units are link-time partitions (-flto): what they are and
    // where the modules come from instead.
    std::string partitionWarning(const ReportRequest& request, const mapparse::LinkMap& map, bool byDwarf)
    {
        std::string first;
        for (const mapparse::Module& m : map.modules) {
            if (mapparse::isLinkTimePartition(m.path)) {
                first = m.name;
                break;
            }
        }
        const size_t n = mapparse::linkTimePartitions(map);
        const std::string what = n == 1
            ? fmt::format(
                "{}: its unit {} is a link-time partition (linked with -flto), not a source file", request.map, first)
            : fmt::format("{}: {} of its units are link-time partitions ({}, ...: linked with -flto), not source files",
                request.map, n, first);
        if (request.by == ModuleKind::Unit)
            return what + "; modules are the partitions (--by unit)";
        if (byDwarf)
            return what
                + (request.by == ModuleKind::Function ? "; modules are the functions of the executable's DWARF"
                                                      : "; modules come from the executable's DWARF by source file")
                + ", lines from its line table (listings are not used)";
        return what
            + "; modules are the partitions (the executable has no DWARF of this build: -g gives modules by "
              "source file)";
    }

    // The linker map, read as any input a user names (bounded: input_file.h).
    Result<mapparse::LinkMap> readMap(const std::string& path)
    {
        auto text = readInputText(path, InputOrigin::Named, kMaxMapBytes, "linker map");
        if (!text)
            return text.error();
        return mapparse::parseLinkMap(*text, path);
    }

    // A map's units or functions, with lines from the listings and, where no listing covers a
    // module, from the executable's DWARF (if it is the profile's build).
    Result<Sources> fromMap(const ReportRequest& request, Messages& messages)
    {
        // The map first: with the first two arguments swapped, the error names the first one.
        step(request, "reading the linker map");
        auto map = readMap(request.map);
        if (!map)
            return map.error();
        auto profile = readProfileOf(request, messages);
        if (!profile)
            return profile.error();
        step(request, "reading DWARF");
        auto info = loadImage(imageRequest(request, false), *profile, messages);
        if (!info)
            return info.error();
        if (std::optional<Error> mismatch = checkMap(request, *map, *profile, *info, messages))
            return *mismatch;
        // Link-time partitions, or --by file: source files come from DWARF, whatever the map says.
        const bool dwarf = sameBuild(*profile, *info) && !(*info)->units.empty();
        const bool partitions = mapparse::linkTimePartitions(*map) > 0;
        if (partitions)
            addWarning(messages, partitionWarning(request, *map, dwarf));
        if (((partitions && request.by != ModuleKind::Unit) || request.by == ModuleKind::File) && dwarf) {
            const ModuleKind by = request.by == ModuleKind::Function ? ModuleKind::Function : ModuleKind::File;
            if (!partitions && !request.listings.empty())
                addNote(
                    messages, "--by file: modules and lines come from the executable's DWARF; listings are not used");
            return sourcesFromDwarf(request, by, std::move(*profile), std::move(**info), messages);
        }
        if (request.by == ModuleKind::File)
            return Error { "", 0,
                fmt::format("--by file takes the source files of functions from the DWARF of {}, which cannot be read, "
                            "has none or is not the profile's build (--exe PROG names it)",
                    request.exe.empty() ? profile->image : request.exe) };
        Sources s;
        std::vector<size_t> unitOf;
        s.modules = modulesFromMap(*map, unitOf);
        s.kind = request.by == ModuleKind::Function ? ModuleKind::Function : ModuleKind::Unit;
        if (request.by == ModuleKind::Function) {
            if (!*info || !sameBuild(*profile, *info)) {
                return Error { "", 0,
                    fmt::format("--by function with a map takes the functions from the symbols of {}, which cannot be "
                                "read or is not the profile's build (--exe PROG names it)",
                        request.exe.empty() ? profile->image : request.exe) };
            }
            splitUnitsByFunctions(**info, s.modules, unitOf);
        }
        s.profile = std::move(*profile);
        step(request, "reading listings");
        s.lines = loadListings(listingRequest(request), *map, s.modules, unitOf, messages);
        if (!*info)
            return s;
        const size_t filled = fillLineTables(**info, s.modules, s.lines.tables, s.lines.baseDirs);
        if (request.verbose)
            addNote(messages, fmt::format("{}: DWARF lines for {} module(s) without a listing", (*info)->path, filled));
        if (sameBuild(s.profile, *info))
            s.image = std::move(*info);
        return s;
    }

    // The executable for a report without a map, read only as far as the module table needs:
    // by unit the units' names and ranges, by function the functions of the units that took
    // samples; no line tables (readReportLines). Modules by source file (--by file, or by default
    // when the units are link-time partitions) take every function and line of their file: all.
    Result<std::optional<debuginfo::DebugInfo>> loadLazily(
        const ReportRequest& request, const Profile& profile, Messages& messages)
    {
        ImageRequest all = imageRequest(request, true);
        if (request.by == ModuleKind::File)
            return loadImage(all, profile, messages);
        ImageRequest lazy = all;
        lazy.lines = false;
        lazy.wanted
            = request.by == ModuleKind::Function ? sampledCode(profile) : std::vector<debuginfo::AddressRange>();
        Messages first;
        auto image = loadImage(lazy, profile, first);
        if (image && *image && chooseModuleKind(**image, request.by) == ModuleKind::File)
            return loadImage(all, profile, messages);
        messages.insert(messages.end(), first.begin(), first.end());
        return image;
    }

    // The line tables of the modules the report analyses and of the places blocked threads waited
    // at, for an image read without them (loadLazily): their units read again, whole.
    void readReportLines(const ReportRequest& request, Sources& s, const Report& report, Messages& messages)
    {
        std::vector<debuginfo::AddressRange> wanted = blockedCode(report.profile);
        for (size_t m : modulesForLineAnalysis(report, s.modules, request.lineThreshold)) {
            for (const AddressSpan& r : s.modules[m].ranges)
                wanted.push_back({ r.start, r.end });
        }
        if (wanted.empty() || !s.image)
            return;
        std::sort(wanted.begin(), wanted.end(),
            [](const debuginfo::AddressRange& a, const debuginfo::AddressRange& b) { return a.start < b.start; });
        step(request, "reading DWARF lines");
        auto info = loadImageLines(*s.image, request.debugDirs, std::move(wanted), messages);
        if (!info) {
            addWarning(messages, info.error().str() + ": no program text");
            return;
        }
        // Tables are per unit whether the modules are units or functions; the units are the same.
        DebugModules debug = modulesFromDebugInfo(*info, ModuleKind::Unit);
        s.lines.tables = std::move(debug.tables);
        s.lines.baseDirs = std::move(debug.baseDirs);
        s.image = std::move(*info);
    }

    // The executable's compile units or functions, and its DWARF lines.
    Result<Sources> fromDebugInfo(const ReportRequest& request, Messages& messages)
    {
        auto profile = readProfileOf(request, messages);
        if (!profile)
            return profile.error();
        step(request, "reading DWARF");
        auto image = loadLazily(request, *profile, messages);
        if (!image)
            return image.error();
        if (!*image)
            return Error { request.exe.empty() ? profile->image : request.exe, 0, "cannot be read" };
        noteAutomaticFiles(request, **image, messages);
        const bool lazy = chooseModuleKind(**image, request.by) != ModuleKind::File;
        Sources s = sourcesFromDwarf(request, request.by, std::move(*profile), std::move(**image), messages);
        s.linesLater = lazy;
        return s;
    }

    // Reads the program text of the selected modules' line tables, each table once.
    void loadText(const ReportRequest& request, const std::vector<size_t>& selected, Sources& s,
        std::vector<std::string>& warnings)
    {
        std::set<int> read;
        for (size_t i = 0; i < selected.size(); ++i) {
            step(request, "reading sources", i, selected.size());
            const int t = s.modules[selected[i]].lineTable;
            if (read.insert(t).second)
                loadSourceText(s.lines.tables[t], s.lines.baseDirs[t], request.sourceDirs, warnings);
        }
    }

    // Each module's own source file from its line table, for the modules without program text too
    // (callgrind's fl=): the table's first file, after its compilation directory when relative.
    void nameModuleFiles(Report& report, const Sources& s)
    {
        for (ModuleRow& row : report.modules) {
            const int t = row.module < s.modules.size() ? s.modules[row.module].lineTable : -1;
            if (t < 0 || size_t(t) >= s.lines.tables.size() || s.lines.tables[t].files.empty())
                continue;
            const std::string& file = s.lines.tables[t].files.front();
            const std::vector<std::string>* dirs = size_t(t) < s.lines.baseDirs.size() ? &s.lines.baseDirs[t] : nullptr;
            const bool relative = !file.empty() && file.front() != '/' && dirs && !dirs->empty();
            row.file = relative ? dirs->front() + "/" + file : file;
        }
    }

    // The program text of the busy modules of `report` (made by buildReport from `s`): the one path
    // for the executable (or the monitored object) and for shared objects.
    void analyseModules(const ReportRequest& request, Sources& s, Report& report)
    {
        nameModuleFiles(report, s);
        const std::vector<size_t> selected = modulesForLineAnalysis(report, s.modules, request.lineThreshold);
        loadText(request, selected, s, report.warnings);
        step(request, "attributing lines");
        analyseLines(report, s.modules, s.lines.tables, selected);
    }

    bool isNamed(const ReportRequest& request, const SharedObject& object)
    {
        return std::any_of(request.objectLines.begin(), request.objectLines.end(),
            [&](const std::string& n) { return objectNameMatches(object.path, n); });
    }

    // A shared object's modules and lines from its DWARF, as the executable's (fromDebugInfo), or
    // nullopt when it has no DWARF (a note in verbose mode, a warning when the user named it).
    std::optional<ObjectAnalysis> analyseObject(const ReportRequest& request, const Profile& profile,
        const SharedObject& object, const debuginfo::DebugInfo& info, Messages& messages)
    {
        if (info.debugPath.empty() || info.units.empty()) {
            if (isNamed(request, object) || request.verbose)
                (isNamed(request, object) ? addWarning : addNote)(messages,
                    fmt::format("{}: no DWARF (built without -g, or stripped: --debug-dir DIR finds its debug file by "
                                "build id); no units or lines for it",
                        object.path));
            return std::nullopt;
        }
        const ObjectCode code = objectCodeOf(info);
        DebugModules debug = modulesFromDebugInfo(info, request.by);
        Sources s { objectProfile(profile, object, code), std::move(debug.modules),
            LineSources { std::move(debug.tables), std::move(debug.baseDirs), {} }, std::nullopt };
        Report report = buildReport(std::move(s.profile), s.modules);
        report.warnings.clear(); // hits where no unit is (the PLT): its "(no module)" row shows them
        analyseModules(request, s, report);
        if (request.instructions) // disassembled from the object file (its code, not its debug file)
            addReportInstructions(report, s.modules, s.lines.tables, s.lines.code, object.path, report.warnings);
        for (const std::string& w : report.warnings)
            addWarning(messages, w);
        return objectAnalysis(object, std::move(report));
    }

    using ObjectInfos = std::map<std::string, Result<debuginfo::DebugInfo>>;

    // The symbols and DWARF of the objects to analyse, read once for their functions and their
    // analysis; a warning for those the user named that cannot be read.
    ObjectInfos readObjectInfos(
        const ReportRequest& request, const Profile& profile, const std::vector<size_t>& chosen, Messages& messages)
    {
        ObjectInfos infos;
        for (size_t i : chosen) {
            step(request, "reading shared objects", infos.size(), chosen.size());
            const SharedObject& object = profile.objects[i];
            auto info = loadObjectInfo(object, profile, request.debugDirs, true, request.by);
            if (!info && isNamed(request, object))
                addWarning(messages, info.error().str() + ": no units or lines for it");
            infos.emplace(object.path, std::move(info));
        }
        return infos;
    }

    // The shared objects: each with its busiest functions; those over the line threshold (or
    // named by --object-lines) that have DWARF also with their modules and program text.
    void addObjects(Report& report, const ReportRequest& request, Messages& messages)
    {
        const std::vector<size_t> chosen
            = objectsForAnalysis(report.profile, request.lineThreshold, request.objectLines);
        const ObjectInfos infos = readObjectInfos(request, report.profile, chosen, messages);
        const auto codeOf = [&](const SharedObject& o) -> Result<ObjectCode> {
            const auto found = infos.find(o.path);
            if (found == infos.end())
                return sharedObjectCode(o, report.profile, request.debugDirs);
            if (!found->second)
                return found->second.error();
            return objectCodeOf(*found->second);
        };
        addSharedObjects(report, codeOf, request.objectThreshold, request.topFunctions);
        for (size_t i : chosen) {
            const SharedObject& object = report.profile.objects[i];
            const Result<debuginfo::DebugInfo>& info = infos.at(object.path);
            if (!info)
                continue;
            if (auto a = analyseObject(request, report.profile, object, *info, messages))
                report.objectAnalyses.push_back(std::move(*a));
        }
        std::stable_sort(report.objectAnalyses.begin(), report.objectAnalyses.end(),
            [](const ObjectAnalysis& a, const ObjectAnalysis& b) { return a.hits > b.hits; });
    }

    Report reportOf(const ReportRequest& request, Sources s, Messages& messages)
    {
        step(request, "attributing samples");
        Report report = buildReport(std::move(s.profile), s.modules);
        report.moduleKind = s.kind == ModuleKind::Auto ? ModuleKind::Unit : s.kind;
        if (s.linesLater)
            readReportLines(request, s, report, messages);
        analyseModules(request, s, report);
        if (request.instructions)
            addReportInstructions(
                report, s.modules, s.lines.tables, s.lines.code, s.image ? s.image->path : "", report.warnings);
        addObjects(report, request, messages);
        step(request, "threads and blocked time");
        addThreads(report);
        const debuginfo::DebugInfo* image = s.image ? &*s.image : nullptr;
        addBlockedTime(report, makePlaceNamer(report.profile, s.modules, s.lines.tables, image, request.debugDirs));
        addCallPaths(report, makeFunctionNamer(report.profile, s.modules, s.lines.tables, image, request.debugDirs),
            request.callFunctions, request.callFocus);
        if (report.profile.mergedProfiles > 1 && request.object.empty()) {
            if (auto files = profileFiles(request.profiles)) {
                const std::vector<std::string>& skipped = report.profile.skippedProfiles;
                std::erase_if(*files, [&](const std::string& f) {
                    return std::find(skipped.begin(), skipped.end(), f) != skipped.end();
                });
                addImbalance(
                    report, s.modules, *files,
                    [&](const std::string& f) { return readProfileFile(f, originOf(f, request.profiles)); }, messages);
            }
        }
        return report;
    }

} // namespace

Result<Report> makeReport(const ReportRequest& request, Messages& messages)
{
    Result<Sources> sources = request.map.empty() ? fromDebugInfo(request, messages) : fromMap(request, messages);
    if (!sources)
        return sources.error();
    return reportOf(request, std::move(*sources), messages);
}

} // namespace ppe::formatter
