#include "modules.h"

#include <algorithm>
#include <map>

namespace ppe::mapparse {

namespace {

    bool isNameOrChild(std::string_view name, std::string_view prefix)
    {
        return name == prefix
            || (name.starts_with(prefix) && name.size() > prefix.size() && name[prefix.size()] == '.');
    }

    bool isWanted(const InputSection& s) { return s.size > 0 && isCodeSection(s.name) && !isLinkerMade(s.path); }

    Section toSection(const InputSection& s)
    {
        return { std::string(s.name), std::string(s.outputSection), s.address, s.size };
    }

    bool addressOrder(const Section& a, const Section& b)
    {
        if (a.address != b.address)
            return a.address < b.address;
        return a.name < b.name;
    }

    bool startsBefore(const Module& a, const Module& b)
    {
        if (a.start() != b.start())
            return a.start() < b.start();
        return a.path < b.path;
    }

} // namespace

bool isCodeSection(std::string_view name)
{
    return isNameOrChild(name, ".text") || name == ".init" || name == ".fini" || isNameOrChild(name, ".ltext")
        || name.starts_with(".gnu.linkonce.t.");
}

bool isLinkerMade(std::string_view path) { return path.empty() || path.starts_with('<') || path == "linker stubs"; }

std::string moduleName(std::string_view path)
{
    std::string_view archive = path;
    std::string_view member;
    const std::size_t open = path.rfind('(');
    if (path.ends_with(')') && open != std::string_view::npos && open > 0) {
        archive = path.substr(0, open);
        member = path.substr(open);
    }
    const std::size_t slash = archive.rfind('/');
    if (slash != std::string_view::npos && slash + 1 < archive.size())
        archive.remove_prefix(slash + 1);
    return std::string(archive) + std::string(member);
}

std::vector<Module> buildModules(const InputSections& sections)
{
    std::map<std::string_view, Module> byPath;
    for (const InputSection& s : sections) {
        if (!isWanted(s))
            continue;
        Module& m = byPath[s.path];
        m.sections.push_back(toSection(s));
    }
    std::vector<Module> modules;
    for (auto& [path, m] : byPath) {
        m.path = std::string(path);
        m.name = moduleName(path);
        std::sort(m.sections.begin(), m.sections.end(), addressOrder);
        modules.push_back(std::move(m));
    }
    std::sort(modules.begin(), modules.end(), startsBefore);
    return modules;
}

} // namespace ppe::mapparse
