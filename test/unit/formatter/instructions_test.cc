// --asm in the report model: the hits of a line's instructions, from bins one byte wide or wider
// (split by bytes like the line analysis), summing to the line's hits; and the text report's rows.
#include "ppe/formatter/address_sources.h"
#include "ppe/formatter/build_report.h"
#include "ppe/formatter/instructions.h"
#include "ppe/formatter/text_report.h"

#include "profile_builder.h"

#include "object_facts.h"

#include <gtest/gtest.h>

namespace ppe::formatter {
namespace {

    using testing::profileWith;

    // k.c line 10 owns [0x1000, 0x100c), line 11 [0x100c, 0x1020); instruction c straddles them.
    LineTable twoLines()
    {
        LineTable t;
        t.origin = "listing k.lis";
        t.files = { "k.c" };
        t.ranges = { { 0x1000, 0x100c, 0, 10 }, { 0x100c, 0x1020, 0, 11 } };
        t.text = { std::vector<std::string>(12, "") };
        t.textPaths = { "" };
        return t;
    }

    const Code kCode = { { 0x1000, 4, "a" }, { 0x1004, 6, "b" }, { 0x100a, 4, "c" }, { 0x100e, 0x12, "d" } };

    const LineRow& rowOf(const ModuleLines& m, int line)
    {
        for (const LineRow& r : m.files.at(0).rows) {
            if (r.line == line)
                return r;
        }
        throw std::runtime_error("no row");
    }

    double sumOf(const LineRow& row)
    {
        double sum = 0;
        for (const InstructionRow& i : row.instructions)
            sum += i.hits;
        return sum;
    }

    ModuleLines analysed(const Profile& profile, const Code& code)
    {
        const std::vector<CodeModule> modules = { { "k.o", { { 0x1000, 0x1020 } }, 0, true } };
        Report r = buildReport(profile, modules);
        analyseLines(r, modules, { twoLines() }, { 0 });
        addInstructions(r.lines.at(0), r.profile, modules[0], twoLines(), code);
        return r.lines.at(0);
    }

    TEST(Instructions, OneByteBinsGoToTheirInstruction)
    {
        const ModuleLines m
            = analysed(profileWith({ { 0x1001, 5 }, { 0x100b, 3 }, { 0x100d, 7 }, { 0x101f, 2 } }), kCode);
        const LineRow& ten = rowOf(m, 10);
        ASSERT_EQ(ten.instructions.size(), 3u);
        EXPECT_EQ(ten.instructions[0].address, 0x1000u);
        EXPECT_EQ(ten.instructions[0].text, "a");
        EXPECT_DOUBLE_EQ(ten.instructions[0].hits, 5);
        EXPECT_DOUBLE_EQ(ten.instructions[1].hits, 0) << "b took no sample, and is listed";
        EXPECT_DOUBLE_EQ(ten.instructions[2].hits, 3) << "c's bytes in line 10";
        const LineRow& eleven = rowOf(m, 11);
        ASSERT_EQ(eleven.instructions.size(), 2u);
        EXPECT_EQ(eleven.instructions[0].text, "c") << "c's other bytes are line 11's";
        EXPECT_DOUBLE_EQ(eleven.instructions[0].hits, 7);
        EXPECT_DOUBLE_EQ(eleven.instructions[1].hits, 2);
        EXPECT_DOUBLE_EQ(sumOf(ten), ten.hits);
        EXPECT_DOUBLE_EQ(sumOf(eleven), eleven.hits);
    }

    TEST(Instructions, WideBinsAreSplitByBytesAndSumToTheLine)
    {
        // 8-byte bins: 8 hits on [0x1000, 0x1008) are one per byte, 16 on [0x1008, 0x1010) two.
        const ModuleLines m = analysed(profileWith({ { 0x1000, 8 }, { 0x1008, 16 }, { 0x1010, 8 } }, 8), kCode);
        const LineRow& ten = rowOf(m, 10);
        const LineRow& eleven = rowOf(m, 11);
        EXPECT_DOUBLE_EQ(ten.hits, 16);
        EXPECT_DOUBLE_EQ(eleven.hits, 16);
        ASSERT_EQ(ten.instructions.size(), 3u);
        EXPECT_DOUBLE_EQ(ten.instructions[0].hits, 4) << "a: 4 bytes of the first bin";
        EXPECT_DOUBLE_EQ(ten.instructions[1].hits, 8) << "b: 4 bytes of the first bin, 2 of the second";
        EXPECT_DOUBLE_EQ(ten.instructions[2].hits, 4) << "c: 2 bytes of the second bin in line 10";
        ASSERT_EQ(eleven.instructions.size(), 2u);
        EXPECT_DOUBLE_EQ(eleven.instructions[0].hits, 4) << "c: its 2 bytes in line 11";
        EXPECT_DOUBLE_EQ(eleven.instructions[1].hits, 12) << "d: 2 bytes of the second bin, the whole third";
        EXPECT_DOUBLE_EQ(sumOf(ten), ten.hits);
        EXPECT_DOUBLE_EQ(sumOf(eleven), eleven.hits);
    }

    TEST(Instructions, BytesNoInstructionCoversKeepTheSum)
    {
        const Code gappy = { { 0x1004, 2, "b" }, { 0x1010, 4, "d" } };
        const ModuleLines m = analysed(profileWith({ { 0x1000, 8 }, { 0x1008, 8 }, { 0x1010, 8 } }, 8), gappy);
        const LineRow& ten = rowOf(m, 10);
        ASSERT_EQ(ten.instructions.size(), 3u);
        EXPECT_EQ(ten.instructions[0].text, "(no instruction)");
        EXPECT_EQ(ten.instructions[0].address, 0x1000u);
        EXPECT_DOUBLE_EQ(ten.instructions[0].hits, 4);
        EXPECT_EQ(ten.instructions[1].text, "b");
        EXPECT_DOUBLE_EQ(ten.instructions[1].hits, 2);
        EXPECT_EQ(ten.instructions[2].address, 0x1006u);
        EXPECT_DOUBLE_EQ(sumOf(ten), ten.hits);
        EXPECT_DOUBLE_EQ(sumOf(rowOf(m, 11)), rowOf(m, 11).hits);
    }

    TEST(Instructions, OnlyLinesWithHitsGetThem)
    {
        const ModuleLines m = analysed(profileWith({ { 0x1001, 5 } }), kCode);
        EXPECT_FALSE(rowOf(m, 10).instructions.empty());
        EXPECT_TRUE(rowOf(m, 11).instructions.empty());
        EXPECT_TRUE(rowOf(m, 1).instructions.empty());
    }

    TEST(Instructions, TextReportListsThemUnderTheLine)
    {
        const std::vector<CodeModule> modules = { { "k.o", { { 0x1000, 0x1020 } }, 0, true } };
        Report r = buildReport(profileWith({ { 0x1000, 8 }, { 0x1008, 16 }, { 0x1010, 8 } }, 8), modules);
        analyseLines(r, modules, { twoLines() }, { 0 });
        addInstructions(r.lines.at(0), r.profile, modules[0], twoLines(), kCode);
        const std::string text = renderTextReport(r, TextOptions { 16 });
        // Line 11 (16 hits, the busiest) and its instructions, '=' bars on the lines' scale.
        EXPECT_NE(text.find("    11       16*XXXXXXXXXXXXXXXX  100.0\n"
                            "     >        4 ====                           100a  c\n"
                            "     >       12 ============                   100e  d\n"),
            std::string::npos)
            << text;
        EXPECT_NE(text.find("(and so are the instructions' hits)"), std::string::npos) << text;
    }

    // A real listing placed by a map: its code lines are at the addresses of its line ranges.
    TEST(Instructions, ListingCodeLinesArePlacedWithTheLines)
    {
        auto listing
            = listparse::parseListing(listparse::test::readFixture("simp.x86_64-gcc-O2.lis"), "simp.x86_64-gcc-O2.lis");
        ASSERT_TRUE(listing.ok()) << listing.error().str();
        mapparse::LinkMap map;
        mapparse::Module module { "simp.o", "simp.o", {} };
        uint64_t base = 0x1100;
        for (const auto& [name, size] : listing->sectionSizes) {
            if (size == 0)
                continue;
            module.sections.push_back(mapparse::Section { name, ".text", base, size });
            base = (base + size + 15) & ~uint64_t(15);
        }
        map.modules.push_back(module);
        auto placed = placeListing(*listing, "simp.lis", map);
        ASSERT_TRUE(placed.ok()) << placed.error().str();
        ASSERT_FALSE(placed->code.empty());
        for (size_t i = 1; i < placed->code.size(); ++i)
            EXPECT_LE(placed->code[i - 1].address + placed->code[i - 1].size, placed->code[i].address);
        // Every byte of every line's code is some code line's.
        for (const LineSpan& s : placed->table.ranges) {
            for (uint64_t a = s.start; a < s.end; ++a) {
                const bool covered = std::any_of(placed->code.begin(), placed->code.end(),
                    [&](const auto& c) { return c.address <= a && a < c.address + c.size; });
                ASSERT_TRUE(covered) << std::hex << a;
            }
        }
        const bool hasDivision = std::any_of(placed->code.begin(), placed->code.end(),
            [](const auto& c) { return c.text.rfind("div", 0) == 0 || c.text.rfind("idiv", 0) == 0; });
        EXPECT_TRUE(hasDivision) << "simp's num % cnt";
    }

} // namespace
} // namespace ppe::formatter
