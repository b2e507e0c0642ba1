// Issue 32 on the formatter's inputs: a line number a listing names does not size the report's
// line tables, and a damaged profile among many is skipped with a warning naming it and its line
// (counted in the report's header), or with --strict is the error.
#include "ppe/formatter/address_sources.h"
#include "ppe/formatter/inputs.h"
#include "ppe/formatter/merge_profiles.h"
#include "ppe/formatter/text_report.h"
#include "ppe/listparse/listing.h"

#include "golden_profile.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <fstream>

namespace ppe::formatter {
namespace {

    // What fuzz_listing found (51 bytes): a source line numbered 0214896666 made the placed
    // listing's text a table of 214896666 lines (7.6 GB).
    const std::string kHugeLineListing = "   1              \t\t.text\n"
                                         "   2 0000 C3    \t\tret\n"
                                         "0214896666:a.c           **** x\n";

    size_t textLines(const LineTable& table)
    {
        size_t n = 0;
        for (const auto& t : table.text)
            n += t.size();
        return n;
    }

    TEST(InputBounds, ListingLineNumberDoesNotSizeItsTable)
    {
        auto listing = listparse::parseListing(kHugeLineListing, "huge.lis");
        ASSERT_TRUE(listing.ok()) << listing.error().str();
        ASSERT_EQ(listing->sourceLines.size(), 1u);
        EXPECT_EQ(listing->sourceLines[0].line, 214896666);
        mapparse::LinkMap map;
        map.modules.push_back(
            { "huge.o", "huge.o", { { ".text", ".text", 0x1000, listing->sectionSizes.at(".text") } } });
        auto placed = placeListing(*listing, "huge.lis", map);
        ASSERT_TRUE(placed.ok()) << placed.error().str();
        EXPECT_LT(textLines(placed->table), size_t(1) << 20);
    }

    TEST(InputBounds, ListingLineNumberBeyondAnIntIsNotALine)
    {
        auto listing = listparse::parseListing(
            "   1              \t\t.text\n   2 0000 C3    \t\tret\n4294967295:a.c           **** x\n", "big.lis");
        ASSERT_FALSE(listing.ok());
        EXPECT_EQ(listing.error().line, 3u) << listing.error().str();
    }

    class DamagedMerge : public ::testing::Test {
    protected:
        void SetUp() override
        {
            std::string second(test::kGoldenText);
            second.replace(second.find("pid 4242"), 8, "pid 4243");
            write("a.ppe", std::string(test::kGoldenText));
            write("b.ppe", std::string(test::kGoldenText).substr(0, test::kGoldenText.size() / 2)); // truncated
            write("c.ppe", second);
        }

        void write(const std::string& name, const std::string& text)
        {
            std::ofstream(m_dir.file(name), std::ios::binary) << text;
        }

        ppe::testing::TempDir m_dir;
    };

    TEST_F(DamagedMerge, IsSkippedWithAWarningAndCounted)
    {
        Messages messages;
        auto sum = readProfiles({ m_dir.path() }, messages);
        ASSERT_TRUE(sum.ok()) << sum.error().str();
        EXPECT_EQ(sum->mergedProfiles, 2u);
        ASSERT_EQ(sum->skippedProfiles.size(), 1u);
        EXPECT_EQ(sum->skippedProfiles[0], m_dir.file("b.ppe"));
        bool warned = false;
        for (const Message& m : messages)
            warned |= m.kind == Message::Kind::Warning && m.text.starts_with(m_dir.file("b.ppe") + ":")
                && m.text.find("truncated") != std::string::npos && m.text.find("skipped") != std::string::npos;
        EXPECT_TRUE(warned);
        Report report;
        report.profile = *sum;
        const std::string text = renderTextReport(report);
        EXPECT_NE(
            text.find(" Skipped: 1 profile(s) that could not be read (" + m_dir.file("b.ppe") + ")"), std::string::npos)
            << text.substr(0, 600);
    }

    TEST_F(DamagedMerge, StrictMakesItTheError)
    {
        Messages messages;
        auto sum = readProfiles({ m_dir.path() }, messages, {}, true);
        ASSERT_FALSE(sum.ok());
        EXPECT_EQ(sum.error().file, m_dir.file("b.ppe"));
        EXPECT_GT(sum.error().line, 0u);
        EXPECT_NE(sum.error().message.find("--strict"), std::string::npos) << sum.error().str();
    }

    TEST_F(DamagedMerge, NoneReadableIsAnError)
    {
        write("a.ppe", "garbage\n");
        write("c.ppe", "");
        Messages messages;
        auto sum = readProfiles({ m_dir.path() }, messages);
        ASSERT_FALSE(sum.ok());
        EXPECT_NE(sum.error().message.find("none of the 3 profiles could be read"), std::string::npos)
            << sum.error().str();
    }

    TEST_F(DamagedMerge, FifoAndDeviceFoundAreSkippedWithAWarning)
    {
        ASSERT_EQ(mkfifo(m_dir.file("fifo.ppe").c_str(), 0600), 0);
        ASSERT_EQ(symlink("/dev/zero", m_dir.file("zero.ppe").c_str()), 0);
        Messages messages;
        auto files = profileFiles(m_dir.path(), &messages);
        ASSERT_TRUE(files.ok()) << files.error().str();
        EXPECT_EQ(files->size(), 3u);
        size_t warnings = 0;
        for (const Message& m : messages)
            warnings += m.text.find("not a regular file: skipped") != std::string::npos;
        EXPECT_EQ(warnings, 2u);
    }

} // namespace
} // namespace ppe::formatter
