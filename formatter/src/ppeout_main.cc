// ppeout: the PPE report from a linker map and a .ppe file.
//   ppeout [options] MAP_FILE PPE_FILE OUTPUT
// Options -> library calls (mapparse, profile) -> report model -> text renderer. Inputs are only
// read; the output never overwrites a file (the old one is kept as OUTPUT.~N~); "-" is stdout.
#include "ppe/core/output_file.h"
#include "ppe/formatter/report.h"
#include "ppe/formatter/text_report.h"
#include "ppe/mapparse/link_map.h"
#include "ppe/profile/live_recovery.h"
#include "ppe/profile/profile_reader.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
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

// The function a -ffunction-sections input section holds (".text.gram_", ".text.unlikely.foo"
// -> "gram_", "foo"), or "" for a compilation unit's shared sections (".text", ".text.startup").
std::string functionOfSection(const std::string& section)
{
    static const char* const kPrefixes[] = { ".text.startup.", ".text.unlikely.", ".text.hot.", ".text.exit.",
        ".text." };
    static const char* const kCompilerParts[] = { ".text.startup", ".text.unlikely", ".text.hot", ".text.exit" };
    for (const char* part : kCompilerParts) {
        if (section == part)
            return "";
    }
    for (const char* prefix : kPrefixes) {
        if (section.rfind(prefix, 0) == 0)
            return section.substr(std::strlen(prefix));
    }
    return "";
}

void addRange(ppe::CodeModule& module, uint64_t start, uint64_t end)
{
    if (!module.ranges.empty() && module.ranges.back().end == start)
        module.ranges.back().end = end;
    else
        module.ranges.push_back({ start, end });
}

// Modules are the map's compilation units; with -ffunction-sections each function is a module of
// its own (the Linux counterpart of Fortran /SEPARATE on VMS), its cold and hot parts included.
std::vector<ppe::CodeModule> loadModules(const std::string& path)
{
    auto map = ppe::mapparse::readLinkMap(path);
    if (!map)
        fail(map.error().str());
    std::vector<ppe::CodeModule> modules;
    for (const ppe::mapparse::Module& m : map->modules) {
        ppe::CodeModule unit { m.name, {} };
        std::map<std::string, ppe::CodeModule> functions;
        for (const ppe::mapparse::Section& s : m.sections) {
            const std::string function = functionOfSection(s.name);
            ppe::CodeModule& owner = function.empty() ? unit : functions.try_emplace(function, ppe::CodeModule { function, {} }).first->second;
            addRange(owner, s.address, s.end());
        }
        if (!unit.ranges.empty())
            modules.push_back(std::move(unit));
        for (auto& [name, module] : functions)
            modules.push_back(std::move(module));
    }
    return modules;
}

bool sameFile(const std::string& a, const std::string& b)
{
    struct stat sa {}, sb {};
    return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
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
    fmt::print("usage: ppeout [options] MAP_FILE PPE_FILE OUTPUT\n"
               "Formats a ppe profile (PPE_FILE, from libppe or `ppe`; a NAME.ppe.PID.live file left by\n"
               "a killed run is recovered) with the linker map of the same build (gcc -Wl,-Map=FILE:\n"
               "GNU ld, gold, lld or mold) into the PPE report. OUTPUT '-' is standard output; an\n"
               "existing OUTPUT is kept as OUTPUT.~N~.\n\n");
    std::ostringstream text;
    text << options;
    fmt::print("{}", text.str());
}

} // namespace

int main(int argc, char** argv)
{
    po::options_description options("Options");
    options.add_options()("help,h", "print this help and exit")("version,V", "print the version and exit");
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
    if (args.size() != 3)
        fail(fmt::format("expected MAP_FILE PPE_FILE OUTPUT, got {} argument(s) (see ppeout --help)", args.size()));
    const std::string& mapPath = args[0];
    const std::string& ppePath = args[1];
    const std::string& outPath = args[2];
    if (sameFile(outPath, mapPath) || sameFile(outPath, ppePath))
        fail(outPath + ": the output would replace an input");
    // The map first: with the first two arguments swapped, the error names the first one.
    const std::vector<ppe::CodeModule> modules = loadModules(mapPath);
    ppe::Profile profile = loadProfile(ppePath);
    const ppe::Report report = ppe::buildReport(std::move(profile), modules);
    for (const std::string& w : report.warnings)
        warn(w);
    writeOutput(outPath, ppe::renderTextReport(report));
    return 0;
}
