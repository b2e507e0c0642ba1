// Every real listing in test/data/listings against what its object file says: the same code
// sections with the same sizes (readelf), and for most code bytes the same source line as the
// DWARF line table (objdump -dl).
#include "listing_checks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

namespace ppe::listparse::test {

namespace {

    class RealListing : public ::testing::TestWithParam<std::string> { };

    TEST_P(RealListing, HasTheObjectsCodeSectionsAndSizes)
    {
        Listing listing = parseFixture(GetParam());
        std::map<std::string, uint64_t> object = codeSectionsFromReadelf(readFixture(GetParam() + ".sections"));
        ASSERT_FALSE(object.empty());
        std::set<std::string> matched;
        for (const auto& [section, size] : object) {
            std::string name = listedName(listing, section, size);
            ASSERT_FALSE(name.empty()) << section;
            matched.insert(name);
            EXPECT_TRUE(sectionSizeAgrees(listing, name, size))
                << section << ": object " << size << ", listing " << listing.sectionSizes.at(name);
        }
        for (const auto& [section, size] : listing.sectionSizes)
            EXPECT_TRUE(matched.contains(section)) << section << " is not a code section of the object";
    }

    TEST_P(RealListing, RangesAreSortedDisjointAndInsideTheirSections)
    {
        Listing listing = parseFixture(GetParam());
        ASSERT_FALSE(listing.ranges.empty());
        for (size_t i = 0; i < listing.ranges.size(); ++i) {
            const CodeRange& r = listing.ranges[i];
            ASSERT_TRUE(listing.sectionSizes.contains(r.section)) << r.section;
            EXPECT_GT(r.size, 0u);
            EXPECT_LE(r.offset + r.size, listing.sectionSizes.at(r.section)) << r.section;
            EXPECT_GE(r.file, 0);
            EXPECT_LT(size_t(r.file), listing.files.size());
            EXPECT_GT(r.line, 0);
            if (i == 0)
                continue;
            const CodeRange& before = listing.ranges[i - 1];
            EXPECT_LE(before.section, r.section);
            if (before.section == r.section) {
                EXPECT_LE(before.offset + before.size, r.offset) << r.section;
            }
        }
    }

    // The listing and the object come from the same assembler run, and the parser follows gas's own
    // rules for line-table rows, so they agree on every byte here. They could legitimately differ
    // where gas hides bytes from the listing (inline assembly on a C line already shown, or
    // section switches inside inline assembly when gas reads a pipe).
    TEST_P(RealListing, AgreesWithDwarfOnTheLineOfEveryCodeByte)
    {
        Listing listing = parseFixture(GetParam());
        Agreement agreement = compareWithLineTable(listing, lineTableFromDump(readFixture(GetParam() + ".lines")));
        ASSERT_GT(agreement.bytes, 0u);
        EXPECT_EQ(agreement.agreeing, agreement.bytes) << agreement.firstDifferences;
    }

    TEST_P(RealListing, NamesTheCompiledFileFirstAndCarriesItsText)
    {
        Listing listing = parseFixture(GetParam());
        std::string source = GetParam().substr(0, GetParam().find('.'));
        ASSERT_FALSE(listing.files.empty());
        EXPECT_EQ(listing.files[0].substr(0, source.size()), source);
        EXPECT_EQ(listing.primarySource.substr(0, source.size()), source);
        std::set<std::pair<int, int>> seen;
        for (const SourceLine& line : listing.sourceLines) {
            EXPECT_TRUE(seen.insert({ line.file, line.line }).second) << line.line;
            EXPECT_LT(size_t(line.file), listing.files.size());
        }
        ASSERT_FALSE(listing.sourceLines.empty());
        EXPECT_EQ(listing.sourceLines.front().file, 0);
        EXPECT_EQ(listing.sourceLines.front().line, 1);
    }

    // gas shows a source line again, when code goes back to it, with the text of the line after it;
    // the parser keeps the first showing. Every text is the file's line, cut at 99 characters.
    TEST_P(RealListing, CarriesTheSourceTextAsInTheFile)
    {
        Listing listing = parseFixture(GetParam());
        std::map<int, std::vector<std::string>> files;
        for (size_t i = 0; i < listing.files.size(); ++i) {
            if (listing.files[i].find('/') == std::string::npos)
                files[int(i)] = sourceFileLines(listing.files[i]);
        }
        size_t checked = 0;
        for (const SourceLine& line : listing.sourceLines) {
            auto file = files.find(line.file);
            if (file == files.end())
                continue; // a system header: this machine's copy may not be the compiler's
            ASSERT_LE(size_t(line.line), file->second.size()) << listing.files[line.file];
            EXPECT_EQ(line.text, file->second[line.line - 1].substr(0, 99))
                << listing.files[line.file] << ":" << line.line;
            ++checked;
        }
        EXPECT_GT(checked, 10u);
    }

    // ppeout --asm shows a listing's code lines under their source lines: they must cover every
    // byte of the line ranges, in order, each with its statement.
    TEST_P(RealListing, CodeLinesCoverTheRangesInOrder)
    {
        Listing listing = parseFixture(GetParam());
        ASSERT_FALSE(listing.codeLines.empty());
        for (size_t i = 0; i < listing.codeLines.size(); ++i) {
            const CodeLine& c = listing.codeLines[i];
            EXPECT_GT(c.size, 0u);
            EXPECT_FALSE(c.text.empty()) << c.section << "+" << c.offset;
            EXPECT_EQ(c.text.find('\t'), std::string::npos) << c.text;
            if (i > 0 && listing.codeLines[i - 1].section == c.section) {
                EXPECT_EQ(listing.codeLines[i - 1].offset + listing.codeLines[i - 1].size, c.offset) << c.text;
            }
        }
        for (const CodeRange& r : listing.ranges) {
            auto first = std::find_if(listing.codeLines.begin(), listing.codeLines.end(), [&](const CodeLine& c) {
                return c.section == r.section && c.offset <= r.offset && r.offset < c.offset + c.size;
            });
            ASSERT_NE(first, listing.codeLines.end()) << r.section << "+" << r.offset;
        }
    }

    TEST(RealListingCode, KeepsEachTargetsStatementText)
    {
        const auto has
            = [](const Listing& listing, const std::string& section, uint64_t offset, const std::string& text) {
                  return std::any_of(listing.codeLines.begin(), listing.codeLines.end(),
                      [&](const CodeLine& c) { return c.section == section && c.offset == offset && c.text == text; });
              };
        EXPECT_TRUE(has(parseFixture("cold.arc-gcc-O2"), ".text.unlikely", 2, "mov_s r3,r1 ;4"));
        EXPECT_TRUE(has(parseFixture("cold.arc-gcc-O2"), ".text.unlikely", 0, "push_s blink"));
    }

    INSTANTIATE_TEST_SUITE_P(Fixtures, RealListing, ::testing::ValuesIn(fixtureNames()),
        [](const ::testing::TestParamInfo<std::string>& info) {
            std::string name = info.param;
            for (char& c : name) {
                if (!std::isalnum(static_cast<unsigned char>(c)))
                    c = '_';
            }
            return name;
        });

    TEST(Fixtures, EveryListingInTheDirectoryIsTested)
    {
        std::set<std::string> onDisk;
        for (const auto& entry : std::filesystem::directory_iterator(PPE_LISTINGS_DIR)) {
            if (entry.path().extension() == ".lis")
                onDisk.insert(entry.path().stem().string());
        }
        EXPECT_EQ(onDisk, std::set<std::string>(fixtureNames().begin(), fixtureNames().end()));
    }

} // namespace

} // namespace ppe::listparse::test
