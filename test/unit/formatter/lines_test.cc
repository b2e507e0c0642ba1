// PPE's third part: listings placed at the addresses of a map's compilation unit, the program
// text found and checked, and hits per source line.
#include "ppe/formatter/address_sources.h"
#include "ppe/formatter/build_report.h"
#include "ppe/formatter/source_text.h"
#include "ppe/formatter/text_report.h"

#include "profile_builder.h"

#include "object_facts.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <fstream>
#include <numeric>

namespace ppe::formatter {
namespace {

    using listparse::test::codeSectionsFromReadelf;
    using listparse::test::readFixture;
    using listparse::test::sourceFileLines;

    const std::string kListings = PPE_LISTINGS_DIR;

    listparse::Listing listingOf(const std::string& name)
    {
        auto listing = listparse::parseListing(readFixture(name + ".lis"), name + ".lis");
        EXPECT_TRUE(listing.ok()) << listing.error().str();
        return listing.ok() ? listing.value() : listparse::Listing {};
    }

    // A map with one compilation unit holding the object's code sections (sizes from the object's
    // own section table, as the linker would copy them), laid out from `base` on, 16-byte aligned.
    mapparse::LinkMap mapWithUnit(const std::string& unit, const std::string& fixture, uint64_t base = 0x1000)
    {
        mapparse::LinkMap map;
        mapparse::Module module { unit, "CMakeFiles/x.dir/" + unit, {} };
        for (const auto& [name, size] : codeSectionsFromReadelf(readFixture(fixture + ".sections"))) {
            if (size == 0)
                continue;
            module.sections.push_back(mapparse::Section { name, ".text", base, size });
            base = (base + size + 15) & ~uint64_t(15);
        }
        map.modules.push_back(mapparse::Module { "crt1.o", "/usr/lib/crt1.o", { { ".text", ".text", 0x800, 0x26 } } });
        map.modules.push_back(std::move(module));
        return map;
    }

    TEST(ModuleKey, ObjectsSourcesAndListingsMeet)
    {
        EXPECT_EQ(moduleKey("CMakeFiles/simp.dir/simp.c.o"), "simp");
        EXPECT_EQ(moduleKey("simp.o"), "simp");
        EXPECT_EQ(moduleKey("libk.a(nth_lll.o)"), "nth_lll");
        EXPECT_EQ(moduleKey("/src/ktest.f90"), "ktest");
        EXPECT_EQ(moduleKey("out/ktest.lis"), "ktest");
        EXPECT_EQ(moduleKey("matrix.cc.o"), "matrix");
        EXPECT_EQ(moduleKey("a.b.x"), "a.b.x") << "only known suffixes go";
    }

    TEST(FunctionOfSection, FunctionSectionsAndCompilerParts)
    {
        EXPECT_EQ(functionOfSection(".text.gram_"), "gram_");
        EXPECT_EQ(functionOfSection(".text.unlikely.foo"), "foo");
        EXPECT_EQ(functionOfSection(".text.startup.main"), "main");
        EXPECT_EQ(functionOfSection(".text.startup"), "");
        EXPECT_EQ(functionOfSection(".text.unlikely"), "");
        EXPECT_EQ(functionOfSection(".text"), "");
        EXPECT_EQ(functionOfSection(".init"), "");
    }

    TEST(ModulesFromMap, FunctionSectionsMakeFunctionModules)
    {
        mapparse::LinkMap map;
        map.modules.push_back(mapparse::Module { "k.o", "k.o",
            { { ".text.a_", ".text", 0x1010, 0x20 }, { ".text.unlikely.a_", ".text", 0x1100, 0x8 },
                { ".text._ZN2ns3fooIiEEvv", ".text", 0x1030, 0x30 } } });
        std::vector<size_t> origin;
        const std::vector<CodeModule> modules = modulesFromMap(map, origin);
        ASSERT_EQ(modules.size(), 2u);
        EXPECT_EQ(modules[0].name, "void ns::foo<int>()") << "demangled, as c++filt shows it";
        EXPECT_EQ(modules[1].name, "a_");
        EXPECT_FALSE(modules[1].wholeFile);
        ASSERT_EQ(modules[1].ranges.size(), 2u) << "a_ and its cold part";
        EXPECT_EQ(modules[1].size(), 0x28u);
        EXPECT_EQ(origin, (std::vector<size_t> { 0, 0 }));
    }

    // Issue 25: without -ffunction-sections a C++ unit has code in .text (or .text.startup) and its
    // templates and inline functions in COMDAT sections .text._Z...: all of it is the unit's.
    TEST(ModulesFromMap, ComdatSectionsBelongToTheirUnit)
    {
        mapparse::LinkMap map;
        map.modules.push_back(mapparse::Module { "dfa.o", "libre2.a(dfa.o)",
            { { ".text", ".text", 0x1000, 0x10 },
                { ".text._ZN3re23DFA17InlinedSearchLoopILb0EEEbv", ".text", 0x1010, 0x20 },
                { ".text.startup", ".text", 0x1030, 0x30 } } });
        std::vector<size_t> origin;
        const std::vector<CodeModule> modules = modulesFromMap(map, origin);
        ASSERT_EQ(modules.size(), 1u);
        EXPECT_EQ(modules[0].name, "dfa.o");
        EXPECT_TRUE(modules[0].wholeFile);
        EXPECT_EQ(modules[0].size(), 0x60u);
    }

    TEST(PlaceListing, RealListingAtTheMapsAddresses)
    {
        const listparse::Listing listing = listingOf("simp.x86_64-gcc-O2");
        const mapparse::LinkMap map = mapWithUnit("simp.c.o", "simp.x86_64-gcc-O2");
        auto placed = placeListing(listing, "simp.lis", map);
        ASSERT_TRUE(placed.ok()) << placed.error().str();
        EXPECT_EQ(placed->unit, 1u);
        EXPECT_EQ(placed->table.origin, "listing simp.lis");
        ASSERT_FALSE(placed->table.ranges.empty());
        // Every listed code byte lands inside the unit's sections, in order, without overlap.
        const mapparse::Module& unit = map.modules[1];
        uint64_t listed = 0;
        for (const listparse::CodeRange& r : listing.ranges)
            listed += r.size;
        uint64_t placedBytes = 0, previousEnd = 0;
        for (const LineSpan& r : placed->table.ranges) {
            EXPECT_GE(r.start, previousEnd);
            previousEnd = r.end;
            placedBytes += r.end - r.start;
            const bool inside = std::any_of(unit.sections.begin(), unit.sections.end(),
                [&](const mapparse::Section& s) { return r.start >= s.address && r.end <= s.end(); });
            EXPECT_TRUE(inside) << std::hex << r.start;
        }
        EXPECT_EQ(placedBytes, listed);
        // Offsets become the section's address plus the offset.
        const listparse::CodeRange& first = listing.ranges.front();
        const auto section = std::find_if(unit.sections.begin(), unit.sections.end(),
            [&](const mapparse::Section& s) { return s.name == first.section; });
        ASSERT_NE(section, unit.sections.end());
        const auto it = std::find_if(placed->table.ranges.begin(), placed->table.ranges.end(),
            [&](const LineSpan& r) { return r.start == section->address + first.offset; });
        ASSERT_NE(it, placed->table.ranges.end());
        EXPECT_EQ(it->line, first.line);
        // The listing's own copy of the text comes along.
        const std::vector<std::string> source = sourceFileLines("simp.c");
        ASSERT_FALSE(placed->table.text.empty());
        ASSERT_GE(placed->table.text[0].size(), 17u);
        EXPECT_EQ(placed->table.text[0][16], source[16]);
    }

    TEST(PlaceListing, TruncatedSectionNameAndArcEndPadding)
    {
        for (const char* fixture : { "longname.x86_64-gcc-O2-ffunction-sections", "simp.arc-gcc-O2",
                 "simp.aarch64-gcc-O2", "ktest.x86_64-gfortran-O3", "templates.x86_64-g++-O0" }) {
            const listparse::Listing listing = listingOf(fixture);
            auto placed = placeListing(listing, std::string(fixture) + ".lis", mapWithUnit("unit.o", fixture));
            // Named by the listing file when the source name differs.
            if (!placed.ok())
                placed = placeListing(listing, "unit.lis", mapWithUnit("unit.o", fixture));
            EXPECT_TRUE(placed.ok()) << fixture << ": " << placed.error().str();
        }
    }

    TEST(PlaceListing, AnotherBuildIsRefusedWithTheSizes)
    {
        const listparse::Listing listing = listingOf("simp.x86_64-gcc-O2");
        mapparse::LinkMap map = mapWithUnit("simp.o", "simp.x86_64-gcc-O2");
        map.modules[1].sections.front().size += 1;
        auto placed = placeListing(listing, "simp.lis", map);
        ASSERT_FALSE(placed.ok());
        EXPECT_NE(placed.error().str().find("simp.lis: section "), std::string::npos) << placed.error().str();
        EXPECT_NE(placed.error().str().find("a listing of another build, ignored"), std::string::npos);

        // The -O0 listing of the same file: the map's unit has a section the listing lacks.
        auto other
            = placeListing(listingOf("simp.x86_64-gcc-O0"), "simp.lis", mapWithUnit("simp.o", "simp.x86_64-gcc-O2"));
        ASSERT_FALSE(other.ok());
        EXPECT_NE(other.error().str().find("a listing of another build"), std::string::npos) << other.error().str();

        auto nobody = placeListing(listing, "simp.lis", mapWithUnit("other.o", "simp.x86_64-gcc-O2"));
        ASSERT_FALSE(nobody.ok());
        EXPECT_NE(
            nobody.error().str().find("simp.c is not linked into this program: no object of the map is named like it"),
            std::string::npos)
            << nobody.error().str();
    }

    TEST(PlaceListing, TheRightUnitAmongNamesakes)
    {
        // Two objects called simp.o (two directories): the one whose sizes agree gets the listing.
        const listparse::Listing listing = listingOf("simp.x86_64-gcc-O2");
        mapparse::LinkMap map = mapWithUnit("simp.o", "simp.x86_64-gcc-O2");
        mapparse::Module impostor = map.modules[1];
        impostor.path = "old/simp.o";
        for (mapparse::Section& s : impostor.sections)
            s.size += 2;
        map.modules.insert(map.modules.begin() + 1, impostor);
        auto placed = placeListing(listing, "simp.lis", map);
        ASSERT_TRUE(placed.ok()) << placed.error().str();
        EXPECT_EQ(placed->unit, 2u);
    }

    TEST(SourceText, FoundCheckedOrTheListingsCopy)
    {
        const listparse::Listing listing = listingOf("simp.x86_64-gcc-O2");
        auto placed = placeListing(listing, "simp.lis", mapWithUnit("simp.o", "simp.x86_64-gcc-O2"));
        ASSERT_TRUE(placed.ok());
        const std::vector<std::string> source = sourceFileLines("simp.c");

        // Found under the compilation directory the caller gives: the whole file, not only the
        // lines up to the last one with code.
        LineTable found = placed->table;
        std::vector<std::string> warnings;
        loadSourceText(found, { kListings + "/src" }, {}, warnings);
        EXPECT_TRUE(warnings.empty());
        EXPECT_EQ(found.textPaths[0], kListings + "/src/simp.c");
        EXPECT_EQ(found.text[0], source);

        // Found by its base name under a --source-dir.
        LineTable searched = placed->table;
        loadSourceText(searched, { "/nonexistent" }, { kListings + "/src" }, warnings);
        EXPECT_EQ(searched.text[0], source);

        // A different version of the file is not used: a warning, and the listing's copy stays.
        testing::TempDir dir;
        std::vector<std::string> changed = source;
        changed[16] = "    if ((num % cnt) == 1) return cnt;";
        {
            std::ofstream out(dir.file("simp.c"));
            for (const std::string& line : changed)
                out << line << '\n';
        }
        LineTable stale = placed->table;
        loadSourceText(stale, { dir.path() }, {}, warnings);
        ASSERT_EQ(warnings.size(), 1u);
        EXPECT_NE(
            warnings[0].find(dir.file("simp.c") + ":17: differs from the source the listing simp.lis was made from"),
            std::string::npos)
            << warnings[0];
        EXPECT_EQ(stale.textPaths[0], "");
        EXPECT_EQ(stale.text[0], placed->table.text[0]);
    }

    // analyseLines on a small made-up module: which lines get which hits.
    using testing::profileWith;

    LineTable smallTable()
    {
        LineTable t;
        t.origin = "listing k.lis";
        t.files = { "k.c", "k.h" };
        // k.c lines 3, 4 (twice: code moved), k.h line 2 (inlined), and a gap with no line.
        t.ranges = { { 0x1000, 0x1010, 0, 3 }, { 0x1010, 0x1018, 0, 4 }, { 0x1018, 0x1020, 1, 2 },
            { 0x1020, 0x1030, 0, 4 }, { 0x1040, 0x1050, 0, 6 } };
        t.text
            = { { "int a;", "", "void f() {", "  loop();", "}", "void g() {}", "// end" }, { "", "inline int h()" } };
        t.textPaths = { "/src/k.c", "" };
        return t;
    }

    TEST(AnalyseLines, HitsPerLineSplitByBytesAndOtherFilesApart)
    {
        const std::vector<CodeModule> modules
            = { { "k.o", { { 0x1000, 0x1038 } }, 0, true }, { "g", { { 0x1040, 0x1050 } }, 0, false } };
        // Bins of 16 bytes: 0x1010 straddles line 4 and k.h:2 (8 bytes each); 0x1030 is half code
        // without a line, half padding outside every module.
        Report r = buildReport(
            profileWith({ { 0x1000, 10 }, { 0x1010, 20 }, { 0x1020, 30 }, { 0x1030, 8 }, { 0x1040, 2 } }, 16), modules);
        const std::vector<size_t> selected = modulesForLineAnalysis(r, modules, 1.0);
        EXPECT_EQ(selected, (std::vector<size_t> { 0, 1 }));
        analyseLines(r, modules, { smallTable() }, selected);
        ASSERT_EQ(r.lines.size(), 2u);
        const ModuleLines& k = r.lines[0];
        EXPECT_EQ(k.name, "k.o");
        EXPECT_DOUBLE_EQ(k.hits, 64.0);
        ASSERT_EQ(k.files.size(), 2u);
        const FileLines& own = k.files[0];
        EXPECT_TRUE(own.own);
        EXPECT_EQ(own.textPath, "/src/k.c");
        ASSERT_EQ(own.rows.size(), 7u) << "a compilation unit lists its whole file";
        EXPECT_EQ(own.rows[2].line, 3);
        EXPECT_DOUBLE_EQ(own.rows[2].hits, 10.0);
        EXPECT_EQ(own.rows[2].text, "void f() {");
        EXPECT_DOUBLE_EQ(own.rows[3].hits, 10.0 + 30.0);
        EXPECT_TRUE(own.rows[3].code);
        EXPECT_FALSE(own.rows[4].code);
        EXPECT_DOUBLE_EQ(own.rows[5].hits, 0.0) << "line 6 is g's, not in this module";
        const FileLines& header = k.files[1];
        EXPECT_FALSE(header.own);
        ASSERT_EQ(header.rows.size(), 1u);
        EXPECT_EQ(header.rows[0].line, 2);
        EXPECT_DOUBLE_EQ(header.rows[0].hits, 10.0);
        EXPECT_EQ(header.rows[0].text, "inline int h()");
        EXPECT_DOUBLE_EQ(k.withoutLine, 4.0) << "half of the 0x1030 bin is k.o's code without a line";
        EXPECT_DOUBLE_EQ(k.busiest, 40.0);
        EXPECT_DOUBLE_EQ(header.rows[0].accumulated, 100.0 * 60.0 / 64.0);
        EXPECT_TRUE(r.splitBins);
        EXPECT_DOUBLE_EQ(own.rows[3].splitHits, 10.0) << "line 4's half of the 0x1010 bin";
        EXPECT_DOUBLE_EQ(header.rows[0].splitHits, 10.0) << "k.h:2's half of it";
        EXPECT_DOUBLE_EQ(own.rows[2].splitHits, 0.0) << "line 3 has whole bins only";
        EXPECT_DOUBLE_EQ(k.splitHits, 20.0) << "the 0x1010 bin; 0x1030 is one line-less piece and padding";
        const std::string text = renderTextReport(r);
        EXPECT_NE(text.find("     4       40*"), std::string::npos) << text;
        EXPECT_NE(text.find("       * 20 hits of the lines marked came from bins split"), std::string::npos) << text;

        // A function module lists its own lines only.
        const ModuleLines& g = r.lines[1];
        ASSERT_EQ(g.files.size(), 1u);
        ASSERT_EQ(g.files[0].rows.size(), 2u) << "from after f's last line (4) to g's (6)";
        EXPECT_EQ(g.files[0].rows.front().line, 5);
        EXPECT_DOUBLE_EQ(g.files[0].rows.back().hits, 2.0);
        EXPECT_DOUBLE_EQ(g.files[0].rows.back().accumulated, 100.0);
    }

    TEST(AnalyseLines, ThresholdAndModulesWithoutTables)
    {
        std::vector<CodeModule> modules = { { "busy.o", { { 0x1000, 0x1030 } }, 0, true },
            { "rare.o", { { 0x1040, 0x1050 } }, 0, true }, { "nolisting.o", { { 0x1100, 0x1110 } }, -1, true } };
        Report r = buildReport(profileWith({ { 0x1000, 995 }, { 0x1040, 4 }, { 0x1100, 1 } }, 1), modules);
        EXPECT_EQ(modulesForLineAnalysis(r, modules, 1.0), (std::vector<size_t> { 0 }));
        EXPECT_EQ(modulesForLineAnalysis(r, modules, 0.4), (std::vector<size_t> { 0, 1 }));
        EXPECT_EQ(modulesForLineAnalysis(r, modules, 0.0), (std::vector<size_t> { 0, 1 }));
    }

    TEST(TextReport, BarsScaledToTheBusiestLine)
    {
        const std::vector<CodeModule> modules = { { "k.o", { { 0x1000, 0x1038 } }, 0, true } };
        Report r = buildReport(profileWith({ { 0x1000, 10 }, { 0x1020, 30 } }, 16), modules);
        analyseLines(r, modules, { smallTable() }, { 0 });
        const std::string text = renderTextReport(r, TextOptions { 20 });
        EXPECT_NE(
            text.find("Program text.  Module k.o  Hits total 40  (lines from the listing k.lis)"), std::string::npos)
            << text;
        EXPECT_NE(text.find("File k.c  (text from /src/k.c)"), std::string::npos) << text;
        // 10 of 30 hits: 20 / 3 = 6.7 -> 7 characters.
        EXPECT_NE(text.find("     3       10 XXXXXXX                25.0  void f() {"), std::string::npos) << text;
        EXPECT_NE(text.find("     4       30 XXXXXXXXXXXXXXXXXXXX  100.0    loop();"), std::string::npos) << text;
        EXPECT_NE(text.find("\n     5" + std::string(1 + 8 + 1 + 20 + 1 + 6 + 2, ' ') + "}\n"), std::string::npos)
            << text;
    }

    TEST(TextReport, SaysWhereTheTextCameFromOrThatItWasNotFound)
    {
        const std::vector<CodeModule> modules = { { "k.o", { { 0x1000, 0x1038 } }, 0, true } };
        LineTable carried = smallTable();
        carried.textPaths = { "", "" };
        LineTable missing = carried;
        missing.origin = "DWARF line table";
        missing.text = { {}, {} };
        Report a = buildReport(profileWith({ { 0x1000, 10 } }, 16), modules);
        analyseLines(a, modules, { carried }, { 0 });
        EXPECT_NE(renderTextReport(a).find("File k.c  (the text as the listing shows it)\n"), std::string::npos);
        Report b = buildReport(profileWith({ { 0x1000, 10 } }, 16), modules);
        analyseLines(b, modules, { missing }, { 0 });
        const std::string text = renderTextReport(b);
        EXPECT_NE(text.find("File k.c  (source not found: --source-dir DIR)\n"), std::string::npos) << text;
        EXPECT_NE(text.find("     3       10 " + std::string(40, 'X') + "  100.0\n"), std::string::npos) << text;
    }

} // namespace
} // namespace ppe::formatter
