#include "fixtures.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ppe::mapparse::test {

std::string mapsDir() { return PPE_MAPS_DIR; }

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot open " + path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string Fixture::path() const { return mapsDir() + "/" + file; }

std::string Fixture::symsPath() const { return mapsDir() + "/" + file.substr(0, file.size() - 4) + ".syms"; }

Dialect Fixture::dialect() const
{
    if (linker == "gold")
        return Dialect::Gold;
    if (linker == "lld")
        return Dialect::Lld;
    if (linker == "mold")
        return Dialect::Mold;
    return Dialect::GnuLd;
}

void PrintTo(const Fixture& f, std::ostream* out) { *out << f.file; }

Fixture describe(const std::string& file)
{
    Fixture f;
    f.file = file;
    const std::string stem = file.substr(0, file.size() - 4); // without ".map"
    const std::size_t dot = stem.rfind('.');
    const std::size_t dash = stem.find('-');
    f.program = stem.substr(0, dash);
    f.variant = stem.substr(dash + 1, dot - dash - 1);
    f.linker = stem.substr(dot + 1);
    return f;
}

std::vector<Fixture> programFixtures()
{
    std::vector<Fixture> fixtures;
    for (const auto& entry : std::filesystem::directory_iterator(mapsDir())) {
        const std::string file = entry.path().filename().string();
        if (file.ends_with(".map") && file.find('-') != std::string::npos)
            fixtures.push_back(describe(file));
    }
    std::sort(fixtures.begin(), fixtures.end(), [](const Fixture& a, const Fixture& b) { return a.file < b.file; });
    return fixtures;
}

std::vector<ExpectedSymbol> readSyms(const std::string& path)
{
    std::istringstream in(readFile(path));
    std::vector<ExpectedSymbol> symbols;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream fields(line);
        ExpectedSymbol s;
        std::string address, size;
        fields >> s.module >> address >> size >> s.type >> s.name;
        s.address = std::stoull(address, nullptr, 16);
        s.size = std::stoull(size, nullptr, 16);
        symbols.push_back(s);
    }
    return symbols;
}

std::vector<std::string> userModules(const std::string& program)
{
    if (program == "simp")
        return { "simp.o", "calc.o", "libx.a(y.o)", "libx.a(z.o)" };
    if (program == "shapes")
        return { "main.o", "shapes.o" };
    if (program == "ktest")
        return { "ktest.o", "kmod.o", "ksub.o" };
    return {};
}

std::string testName(const std::string& file)
{
    std::string name = file.substr(0, file.size() - 4);
    std::replace_if(
        name.begin(), name.end(), [](char c) { return c == '-' || c == '.'; }, '_');
    return name;
}

const Module* findModule(const LinkMap& map, const std::string& name)
{
    const auto it
        = std::find_if(map.modules.begin(), map.modules.end(), [&](const Module& m) { return m.name == name; });
    return it == map.modules.end() ? nullptr : &*it;
}

} // namespace ppe::mapparse::test
