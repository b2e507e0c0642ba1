#include "ppe/formatter/inputs.h"

#include "ppe/formatter/address_sources.h"
#include "ppe/formatter/debug_sources.h"
#include "ppe/listparse/listing.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <glob.h>
#include <map>
#include <set>
#include <sys/stat.h>

namespace ppe {

namespace {

    void note(Messages& m, std::string text) { m.push_back({ Message::Kind::Note, std::move(text) }); }
    void warn(Messages& m, std::string text) { m.push_back({ Message::Kind::Warning, std::move(text) }); }

    std::string directoryOf(const std::string& path)
    {
        const size_t slash = path.rfind('/');
        return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
    }

    // The files a listing argument names: a shell pattern the shell did not expand ('lib/*.lis') is
    // expanded here.
    std::vector<std::string> expandPattern(const std::string& arg, Messages& messages)
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
            warn(messages, fmt::format("{}: no file matches this pattern", arg));
        return paths;
    }

    debuginfo::Options debugOptions(const std::vector<std::string>& debugDirs, bool lines)
    {
        debuginfo::Options options;
        options.debugRoots.insert(options.debugRoots.begin(), debugDirs.begin(), debugDirs.end());
        options.lines = lines;
        return options;
    }

} // namespace

bool sameFile(const std::string& a, const std::string& b)
{
    struct stat sa {
    }, sb {};
    return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

LineSources loadListings(const ListingRequest& request, const mapparse::LinkMap& map, std::vector<CodeModule>& modules,
    const std::vector<size_t>& unitOf, Messages& messages)
{
    LineSources sources;
    std::map<size_t, std::string> listingOfUnit;
    std::set<std::pair<dev_t, ino_t>> seen;
    for (const std::string& arg : request.arguments) {
        for (const std::string& path : expandPattern(arg, messages)) {
            struct stat st { };
            if (stat(path.c_str(), &st) != 0) {
                warn(messages, fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
                continue;
            }
            if (!seen.insert({ st.st_dev, st.st_ino }).second)
                continue;
            if (sameFile(path, request.output)) {
                note(messages, fmt::format("{}: the output file, skipped", path));
                continue;
            }
            if (std::any_of(request.inputs.begin(), request.inputs.end(),
                    [&](const std::string& input) { return sameFile(path, input); })) {
                note(messages, fmt::format("{}: an input given before, not a listing; skipped", path));
                continue;
            }
            if (!S_ISREG(st.st_mode)) {
                note(messages, fmt::format("{}: not a regular file, skipped", path));
                continue;
            }
            std::ifstream file(path, std::ios::binary);
            std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
            if (!file.good() && !file.eof()) {
                warn(messages, fmt::format("{}: cannot read", path));
                continue;
            }
            if (!listparse::looksLikeListing(text)) {
                note(messages, fmt::format("{}: not an assembler listing, skipped", path));
                continue;
            }
            auto listing = listparse::parseListing(text, path);
            if (!listing) {
                warn(messages, listing.error().str() + " (listing skipped)");
                continue;
            }
            auto placed = placeListing(*listing, path, map);
            if (!placed) {
                warn(messages, placed.error().str());
                continue;
            }
            const std::string& unit = map.modules[placed->unit].name;
            if (auto [it, added] = listingOfUnit.try_emplace(placed->unit, path); !added) {
                warn(messages,
                    fmt::format(
                        "{}: the map's {} already has the listing {}; this one is ignored", path, unit, it->second));
                continue;
            }
            if (request.verbose) {
                note(messages, fmt::format("{}: listing of {}", path, unit));
                for (const std::string& n : placed->notes)
                    note(messages, n);
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

Result<std::optional<debuginfo::DebugInfo>> loadImage(
    const ImageRequest& request, const Profile& profile, Messages& messages)
{
    const std::string path = request.exe.empty() ? profile.image : request.exe;
    const bool required = request.required || !request.exe.empty();
    auto info = debuginfo::loadDebugInfo(path, debugOptions(request.debugDirs, true));
    if (!info) {
        if (required) {
            Error e = info.error();
            if (request.exe.empty())
                e.message += " (the image the profile names; --exe PROG names another)";
            return e;
        }
        if (request.verbose)
            note(messages, info.error().str() + ": its DWARF is not used");
        return std::optional<debuginfo::DebugInfo>();
    }
    if (!profile.buildId.empty() && !info->buildId.empty() && profile.buildId != info->buildId) {
        const std::string message = fmt::format("{}: build id {}, but {} is a profile of build id {}: another build of "
                                                "the program",
            path, info->buildId, request.profilePath, profile.buildId);
        if (required && !request.ignoreBuildId)
            return Error { "", 0, message + " (--ignore-build-id formats it anyway)" };
        if (!request.ignoreBuildId) {
            if (request.verbose)
                note(messages, message + "; its DWARF is not used");
            return std::optional<debuginfo::DebugInfo>();
        }
        warn(messages, message + "; formatted anyway (--ignore-build-id)");
    }
    if (required && info->units.empty() && info->functions.empty()) {
        return Error { path, 0,
            "no DWARF and no symbols: nothing to attribute samples to (build with -g, or give the map)" };
    }
    if (required && info->debugPath.empty()) {
        warn(messages,
            path
                + ": no DWARF (built without -g, or stripped: --debug-dir DIR finds its debug file by build id); "
                  "modules are the functions of its symbol tables");
    }
    for (const std::string& w : info->warnings)
        warn(messages, w);
    return std::optional<debuginfo::DebugInfo>(std::move(info.value()));
}

Result<ObjectCode> sharedObjectCode(const SharedObject& object, const std::vector<std::string>& debugDirs)
{
    auto info = debuginfo::loadDebugInfo(object.path, debugOptions(debugDirs, false));
    if (!info)
        return info.error();
    if (!object.buildId.empty() && !info->buildId.empty() && object.buildId != info->buildId) {
        return Error { object.path, 0,
            fmt::format("changed since the run (build id {} now, {} then)", info->buildId, object.buildId) };
    }
    return objectCodeOf(*info);
}

} // namespace ppe
