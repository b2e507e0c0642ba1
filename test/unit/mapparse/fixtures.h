// The map fixtures in test/data/maps and what generate.sh recorded next to them.
#pragma once

#include "ppe/mapparse/link_map.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ppe::mapparse::test {

// "simp-O2-ffs-pie.gnuld.map" -> program "simp", variant "O2-ffs-pie", linker "gnuld".
struct Fixture {
    std::string file; // name in test/data/maps
    std::string program;
    std::string variant;
    std::string linker;

    std::string path() const;
    std::string symsPath() const;
    Dialect dialect() const;
    bool functionSections() const { return variant.find("-ffs-") != std::string::npos; }
    bool pie() const { return !variant.ends_with("-nopie"); }
};

// For gtest: the file name, not the bytes.
void PrintTo(const Fixture& f, std::ostream* out);

// One line of a .syms file: a code symbol of one of the program's objects.
struct ExpectedSymbol {
    std::string module; // "libx.a(y.o)"
    uint64_t address = 0;
    uint64_t size = 0;
    char type = 0; // nm type: T, t or W
    std::string name;
};

std::string mapsDir();
std::string readFile(const std::string& path);

// Every program map (PROGRAM-VARIANT.LINKER.map), sorted by name.
std::vector<Fixture> programFixtures();
Fixture describe(const std::string& file);
std::vector<ExpectedSymbol> readSyms(const std::string& path);

// The objects each program is built from, as the map names them.
std::vector<std::string> userModules(const std::string& program);

// "simp-O2-ffs-pie.gnuld.map" -> "simp_O2_ffs_pie_gnuld": a name gtest accepts.
std::string testName(const std::string& file);

const Module* findModule(const LinkMap& map, const std::string& name);

} // namespace ppe::mapparse::test
