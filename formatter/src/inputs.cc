#include "ppe/formatter/inputs.h"

#include "ppe/formatter/address_sources.h"
#include "ppe/formatter/debug_sources.h"
#include "ppe/formatter/merge_profiles.h"
#include "ppe/listparse/listing.h"
#include "ppe/profile/input_file.h"
#include "ppe/profile/live_recovery.h"
#include "ppe/profile/profile_reader.h"

#include "paths.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <glob.h>
#include <map>
#include <set>
#include <sys/stat.h>

namespace ppe::formatter {

namespace {

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
            addWarning(messages, fmt::format("{}: no file matches this pattern", arg));
        return paths;
    }

    debuginfo::Options debugOptions(const std::vector<std::string>& debugDirs, bool lines)
    {
        debuginfo::Options options;
        options.debugRoots.insert(options.debugRoots.begin(), debugDirs.begin(), debugDirs.end());
        options.lines = lines;
        return options;
    }

    std::vector<debuginfo::AddressRange> merged(std::vector<debuginfo::AddressRange> ranges)
    {
        std::sort(ranges.begin(), ranges.end(),
            [](const debuginfo::AddressRange& a, const debuginfo::AddressRange& b) { return a.start < b.start; });
        std::vector<debuginfo::AddressRange> out;
        for (const debuginfo::AddressRange& r : ranges) {
            if (!out.empty() && r.start <= out.back().end)
                out.back().end = std::max(out.back().end, r.end);
            else
                out.push_back(r);
        }
        return out;
    }

    void addPlace(std::vector<debuginfo::AddressRange>& ranges, const CodeLocation& place)
    {
        // The place is a return address: the call before it is named (PlaceNamer's address - 1).
        if (place.kind == CodeLocation::Kind::Image && place.address > 0)
            ranges.push_back({ place.address - 1, place.address });
    }

    using FileIds = std::set<std::pair<dev_t, ino_t>>;

    // True when a file a listing argument names is not to be read as a listing: it cannot be read,
    // was met before, is the output or another input, or is not a regular file. A message says why
    // (none for a file met before).
    bool skipListingFile(const std::string& path, const ListingRequest& request, FileIds& seen, Messages& messages)
    {
        struct stat st { };
        if (stat(path.c_str(), &st) != 0) {
            addWarning(messages, fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
            return true;
        }
        if (!seen.insert({ st.st_dev, st.st_ino }).second)
            return true;
        if (sameFile(path, request.output)) {
            addNote(messages, fmt::format("{}: the output file, skipped", path));
            return true;
        }
        if (std::any_of(request.inputs.begin(), request.inputs.end(),
                [&](const std::string& input) { return sameFile(path, input); })) {
            addNote(messages, fmt::format("{}: an input given before, not a listing; skipped", path));
            return true;
        }
        if (!S_ISREG(st.st_mode)) {
            addNote(messages, fmt::format("{}: not a regular file, skipped", path));
            return true;
        }
        return false;
    }

    // The text of a listing file, or nullopt (with a message) when it cannot be read or is no
    // assembler listing.
    std::optional<std::string> listingText(const std::string& path, Messages& messages)
    {
        // Found: the node opened must still be the regular file skipListingFile judged.
        auto text = readInputText(path, InputOrigin::Found, kMaxListingBytes, "listing");
        if (!text && text.error().message.starts_with("binary data")) {
            addNote(messages, fmt::format("{}: not an assembler listing, skipped", path));
            return std::nullopt;
        }
        if (!text) {
            addWarning(messages, fmt::format("{}: cannot read: {}", path, text.error().message));
            return std::nullopt;
        }
        if (!listparse::looksLikeListing(*text)) {
            addNote(messages, fmt::format("{}: not an assembler listing, skipped", path));
            return std::nullopt;
        }
        return std::move(*text);
    }

    // Listings placed so far: the line tables, and which listing each unit of the map has.
    struct PlacedListings {
        const mapparse::LinkMap& map;
        std::vector<CodeModule>& modules;
        const std::vector<size_t>& unitOf;
        LineSources sources;
        std::map<size_t, std::string> listingOfUnit;
    };

    // Parses a listing and gives its compilation unit's modules its line table; a listing that is
    // damaged, of another build or of a unit that has one already is left out with a warning.
    void addListing(
        PlacedListings& placed, const std::string& path, const std::string& text, bool verbose, Messages& messages)
    {
        auto listing = listparse::parseListing(text, path);
        if (!listing) {
            addWarning(messages, listing.error().str() + " (listing skipped)");
            return;
        }
        auto place = placeListing(*listing, path, placed.map);
        if (!place) {
            addWarning(messages, place.error().str());
            return;
        }
        const std::string& unit = placed.map.modules[place->unit].name;
        if (auto [it, added] = placed.listingOfUnit.try_emplace(place->unit, path); !added) {
            addWarning(messages,
                fmt::format(
                    "{}: the map's {} already has the listing {}; this one is ignored", path, unit, it->second));
            return;
        }
        if (verbose) {
            addNote(messages,
                fmt::format("{}: listing of {}{}", path, unit,
                    place->temporary ? ", the compiler's temporary object (matched by section sizes)" : ""));
            for (const std::string& n : place->notes)
                addNote(messages, n);
        }
        const int table = int(placed.sources.tables.size());
        const std::string shownName = place->temporary && !listing->primarySource.empty()
            ? fmt::format("{} ({})", baseName(listing->primarySource), unit)
            : unit;
        for (size_t m = 0; m < placed.modules.size(); ++m) {
            if (placed.unitOf[m] != place->unit)
                continue;
            placed.modules[m].lineTable = table;
            if (placed.modules[m].name == unit)
                placed.modules[m].name = shownName; // "simp.c (ccldD2mu.o)", not a temporary's name alone
        }
        placed.sources.tables.push_back(std::move(place->table));
        placed.sources.baseDirs.push_back({ listing->compilationDirectory, directoryOf(path) });
        placed.sources.code.push_back(std::move(place->code));
    }

} // namespace

Result<Profile> readProfileFile(const std::string& path, InputOrigin origin)
{
    if (profilePathForLiveFile(path).empty())
        return readProfile(path, origin);
    auto text = recoverLiveFile(path);
    if (!text)
        return text.error();
    return parseProfile(*text, path);
}

InputOrigin originOf(const std::string& path, const std::vector<std::string>& arguments)
{
    return std::find(arguments.begin(), arguments.end(), path) != arguments.end() ? InputOrigin::Named
                                                                                  : InputOrigin::Found;
}

bool sameFile(const std::string& a, const std::string& b)
{
    struct stat sa {
    }, sb {};
    return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

std::string readPrefix(const std::string& path, size_t count)
{
    // Only a regular file: a FIFO's bytes, once read, would be gone for the reader that needs them.
    return readInputPrefix(path, InputOrigin::Found, count);
}

Result<Profile> readProfiles(const std::vector<std::string>& paths)
{
    Messages ignored;
    return readProfiles(paths, ignored);
}

Result<Profile> readProfiles(const std::vector<std::string>& paths, Messages& messages,
    const std::function<void(size_t, size_t)>& progress, bool strict)
{
    const auto files = profileFiles(paths, &messages);
    if (!files)
        return files.error();
    if (files->empty())
        return Error { "", 0, "0 profiles: nothing to format" };
    if (files->size() > 1) {
        return mergeProfileFiles(
            *files, [&](const std::string& path) { return readProfileFile(path, originOf(path, paths)); }, messages,
            strict, progress);
    }
    const std::string& path = files->front();
    auto profile = readProfileFile(path, originOf(path, paths));
    if (profile)
        return profile;
    Error error = profile.error();
    if (readPrefix(path, 4096).find("Memory Configuration") != std::string::npos
        || mapparse::parseLinkMap(readPrefix(path, 1 << 20), path))
        error.message += " (it looks like a linker map: the order is MAP_FILE PPE_FILE OUTPUT)";
    return error;
}

LineSources loadListings(const ListingRequest& request, const mapparse::LinkMap& map, std::vector<CodeModule>& modules,
    const std::vector<size_t>& unitOf, Messages& messages)
{
    PlacedListings placed { map, modules, unitOf, {}, {} };
    FileIds seen;
    for (const std::string& arg : request.arguments) {
        for (const std::string& path : expandPattern(arg, messages)) {
            if (skipListingFile(path, request, seen, messages))
                continue;
            if (const std::optional<std::string> text = listingText(path, messages))
                addListing(placed, path, *text, request.verbose, messages);
        }
    }
    return std::move(placed.sources);
}

std::vector<debuginfo::AddressRange> blockedCode(const Profile& profile)
{
    std::vector<debuginfo::AddressRange> ranges;
    for (const BlockedPlace& place : profile.blocked) {
        addPlace(ranges, place.site);
        addPlace(ranges, place.caller);
    }
    // The call paths' frames (issue 39): a return address names the call before it, a sampled PC
    // its own instruction; units of callers with no sample of their own are read for their names.
    for (const CallPathNode& node : profile.calls.nodes) {
        if (node.place.kind == CodeLocation::Kind::Image && node.place.address > 0)
            ranges.push_back({ node.place.address - 1, node.place.address + 1 });
    }
    return merged(std::move(ranges));
}

std::vector<debuginfo::AddressRange> sampledCode(const Profile& profile)
{
    std::vector<debuginfo::AddressRange> ranges = blockedCode(profile);
    for (const Bin& bin : profile.bins)
        ranges.push_back({ bin.address, bin.address + std::max<uint64_t>(profile.binWidth, 1) });
    return merged(std::move(ranges));
}

Result<debuginfo::DebugInfo> loadImageLines(const debuginfo::DebugInfo& image,
    const std::vector<std::string>& debugDirs, std::vector<debuginfo::AddressRange> wanted, Messages& messages)
{
    debuginfo::Options options = debugOptions(debugDirs, true);
    options.onlyWanted = true;
    options.wanted = std::move(wanted);
    auto info = debuginfo::loadDebugInfo(image.path, options);
    if (!info)
        return info.error();
    for (const std::string& w : info->warnings) {
        if (std::find(image.warnings.begin(), image.warnings.end(), w) == image.warnings.end())
            addWarning(messages, w);
    }
    return info;
}

Result<std::optional<debuginfo::DebugInfo>> loadImage(
    const ImageRequest& request, const Profile& profile, Messages& messages)
{
    const std::string path = request.exe.empty() ? profile.image : request.exe;
    const bool required = request.required || !request.exe.empty();
    debuginfo::Options options = debugOptions(request.debugDirs, request.lines);
    if (request.wanted) {
        options.onlyWanted = true;
        options.wanted = *request.wanted;
    }
    auto info = debuginfo::loadDebugInfo(path, options);
    if (!info) {
        if (required) {
            Error e = info.error();
            if (request.exe.empty())
                e.message += " (the image the profile names; --exe PROG names another)";
            return e;
        }
        if (request.verbose)
            addNote(messages, info.error().str() + ": its DWARF is not used");
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
                addNote(messages, message + "; its DWARF is not used");
            return std::optional<debuginfo::DebugInfo>();
        }
        addWarning(messages, message + "; formatted anyway (--ignore-build-id)");
    }
    if (required && info->units.empty() && info->functions.empty()) {
        return Error { path, 0,
            "no DWARF and no symbols: nothing to attribute samples to (build with -g, or give the map)" };
    }
    if (required && info->debugPath.empty()) {
        addWarning(messages,
            path
                + ": no DWARF (built without -g, or stripped: --debug-dir DIR finds its debug file by build id); "
                  "modules are the functions of its symbol tables");
    }
    for (const std::string& w : info->warnings)
        addWarning(messages, w);
    return std::optional<debuginfo::DebugInfo>(std::move(info.value()));
}

std::vector<uint64_t> namedOffsets(const Profile& profile, const SharedObject& object)
{
    std::vector<uint64_t> offsets;
    for (const ObjectSamples& s : object.hitsByOffset)
        offsets.push_back(s.fileOffset);
    for (const BlockedPlace& place : profile.blocked) {
        for (const CodeLocation& at : { place.site, place.caller }) {
            if (at.kind == CodeLocation::Kind::Object && at.object < profile.objects.size()
                && profile.objects[at.object].path == object.path)
                offsets.insert(offsets.end(), { at.address - 1, at.address }); // a return address
        }
    }
    for (const CallPathNode& node : profile.calls.nodes) { // a return address, or a sampled PC at a leaf
        const CodeLocation& at = node.place;
        if (at.kind == CodeLocation::Kind::Object && at.object < profile.objects.size()
            && profile.objects[at.object].path == object.path)
            offsets.insert(offsets.end(), { at.address - 1, at.address });
    }
    std::sort(offsets.begin(), offsets.end());
    offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
    return offsets;
}

Result<debuginfo::DebugInfo> loadObjectInfo(const SharedObject& object, const Profile& profile,
    const std::vector<std::string>& debugDirs, bool lines, ModuleKind by)
{
    debuginfo::Options options = debugOptions(debugDirs, lines);
    options.wantedOffsets = namedOffsets(profile, object);
    // Modules by source file take every function and line of their file: the whole DWARF. Else
    // only the units that hold a named offset (the others give their names and ranges).
    options.onlyWanted = by != ModuleKind::File;
    auto info = debuginfo::loadDebugInfo(object.path, options);
    if (info && options.onlyWanted && chooseModuleKind(*info, by) == ModuleKind::File) {
        options.onlyWanted = false; // link-time partitions: by file after all
        info = debuginfo::loadDebugInfo(object.path, options);
    }
    if (!info)
        return info.error();
    if (!object.buildId.empty() && !info->buildId.empty() && object.buildId != info->buildId) {
        return Error { object.path, 0,
            fmt::format("changed since the run (build id {} now, {} then)", info->buildId, object.buildId) };
    }
    return info;
}

Result<ObjectCode> sharedObjectCode(
    const SharedObject& object, const Profile& profile, const std::vector<std::string>& debugDirs)
{
    auto info = loadObjectInfo(object, profile, debugDirs, false, ModuleKind::Function);
    if (!info)
        return info.error();
    return objectCodeOf(*info);
}

} // namespace ppe::formatter
