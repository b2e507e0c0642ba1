// Input that is not a (whole) listing: one error, naming the file and where it makes sense the
// line, lower-case, no period; never a crash or an exception.
#include "listing_checks.h"

#include <gtest/gtest.h>

#include <random>

namespace ppe::listparse::test {

namespace {

    std::string errorOf(std::string_view text, std::string_view name = "x.lis")
    {
        auto listing = parseListing(text, name);
        EXPECT_FALSE(listing.ok());
        return listing.ok() ? "" : listing.error().str();
    }

    // The text up to (not including) the line `number` (1-based) and the rest.
    std::pair<std::string, std::string> splitBeforeLine(const std::string& text, int number)
    {
        size_t at = 0;
        for (int line = 1; line < number; ++line)
            at = text.find('\n', at) + 1;
        return { text.substr(0, at), text.substr(at) };
    }

    void expectWellFormed(const ppe::Error& error)
    {
        ASSERT_FALSE(error.message.empty());
        EXPECT_TRUE(std::islower(static_cast<unsigned char>(error.message[0]))) << error.message;
        EXPECT_NE(error.message.back(), '.');
        EXPECT_EQ(error.message.find('\n'), std::string::npos);
    }

    const char* kNotAListing = "not an assembler listing (expected gcc -Wa,-adhln output)";

} // namespace

TEST(BadInput, Empty)
{
    EXPECT_EQ(errorOf(""), "x.lis: empty file, not an assembler listing");
    EXPECT_EQ(errorOf("\n\n\n"), std::string("x.lis: ") + kNotAListing);
}

TEST(BadInput, BinaryGarbage)
{
    const std::string elf { '\x7f', 'E', 'L', 'F', 2, 1, 1, 0, 0, 0 };
    EXPECT_EQ(errorOf(elf), "x.lis: binary data, not an assembler listing");
    std::string noZeros;
    for (int i = 0; i < 300; ++i)
        noZeros += char(0x80 + i % 100);
    EXPECT_EQ(errorOf(noZeros + "\n"), std::string("x.lis:1: ") + kNotAListing);
}

TEST(BadInput, OtherTextFiles)
{
    std::string source = readFixture("src/simp.c");
    EXPECT_EQ(errorOf(source, "simp.c"), std::string("simp.c:1: ") + kNotAListing);
    std::string map = "Archive member included to satisfy reference by file (symbol)\n\n"
                      "/usr/lib/x86_64-linux-gnu/libc_nonshared.a(atexit.oS)\n"
                      "                              /tmp/ccK2.o (atexit)\n";
    EXPECT_EQ(errorOf(map, "simp.map"), std::string("simp.map:1: ") + kNotAListing);
    std::string profile = "ppe-profile 1\nstatus complete\nhost example\n";
    EXPECT_EQ(errorOf(profile, "simp.ppe"), std::string("simp.ppe:1: ") + kNotAListing);
    EXPECT_EQ(errorOf(readFixture("simp.x86_64-gcc-O2.sections")), std::string("x.lis:1: ") + kNotAListing);
    EXPECT_EQ(errorOf("DEFINED SYMBOLS\n"), std::string("x.lis:1: ") + kNotAListing);
    EXPECT_EQ(errorOf("  12      4DE8\n"), std::string("x.lis:1: ") + kNotAListing);
}

TEST(BadInput, TruncatedInTheMiddleOfALine)
{
    std::string text = readFixture("simp.x86_64-gcc-O2.lis");
    auto [head, tail] = splitBeforeLine(text, 100);
    EXPECT_EQ(
        errorOf(head + tail.substr(0, 7), "simp.lis"), "simp.lis:100: truncated listing: the last line is incomplete");
}

// A listing cut at a line end reads, but its sizes are not the object's: matching it against
// the map rejects it, as it does a listing of another build.
TEST(BadInput, TruncatedAtALineEndOrFromAnotherBuildHasOtherSizes)
{
    std::string text = readFixture("simp.x86_64-gcc-O2.lis");
    auto cut = parseListing(splitBeforeLine(text, 150).first, "simp.lis");
    ASSERT_TRUE(cut.ok());
    EXPECT_FALSE(sectionSizeAgrees(*cut, ".text.startup", 0x77));
    Listing o0 = parseFixture("simp.x86_64-gcc-O0");
    EXPECT_FALSE(sectionSizeAgrees(o0, ".text", 0x9a));
    EXPECT_TRUE(sectionSizeAgrees(parseFixture("simp.x86_64-gcc-O2"), ".text", 0x9a));
}

TEST(BadInput, AGarbledLine)
{
    std::string text = readFixture("simp.x86_64-gcc-O2.lis");
    auto [head, tail] = splitBeforeLine(text, 50);
    EXPECT_EQ(errorOf(head + "#### not from gas\n" + tail, "simp.lis"), "simp.lis:50: cannot parse listing line");
    EXPECT_EQ(errorOf(head + "  77      4DE8\n" + tail, "simp.lis"),
        "simp.lis:50: bytes without the listing line they continue");
}

TEST(BadInput, AssemblerErrors)
{
    std::string text = "   1              \t\t.text\n"
                       "   2 ???? 90       \t\tnop\n"
                       "****  Error: no such instruction: `bogus'\n";
    EXPECT_EQ(errorOf(text), "x.lis:2: no addresses in the listing: the assembler reported errors");
}

TEST(BadInput, ThePreambleOfDashAg)
{
    std::string text = " GNU assembler version 2.40 (x86_64-linux-gnu)\n"
                       "\t using BFD version (GNU Binutils for Debian) 2.40.\n"
                       " options passed\t: --gdwarf-5 --64 -aghln=g.lis \n"
                       " input file    \t: /tmp/cce0KaF6.s\n"
                       " output file   \t: simp.o\n"
                       " target        \t: x86_64-pc-linux-gnu\n"
                       " time stamp    \t: 2026-11-23T01:07:10.000+0000\n"
                       "\n"
                       "   1              \t\t.file\t\"simp.c\"\n"
                       "   2              \t\t.text\n"
                       "   3 0000 C3       \t\tret\n";
    EXPECT_TRUE(looksLikeListing(text));
    auto listing = parseListing(text, "g.lis");
    ASSERT_TRUE(listing.ok()) << listing.error().str();
    EXPECT_EQ(listing->sectionSizes.at(".text"), 1u);
    EXPECT_EQ(listing->primarySource, "simp.c");
}

TEST(BadInput, LooksLikeListingTellsListingsFromTheRest)
{
    for (const std::string& name : fixtureNames())
        EXPECT_TRUE(looksLikeListing(readFixture(name + ".lis"))) << name;
    EXPECT_FALSE(looksLikeListing(""));
    EXPECT_FALSE(looksLikeListing(readFixture("src/simp.c")));
    EXPECT_FALSE(looksLikeListing(readFixture("src/ktest.f90")));
    EXPECT_FALSE(looksLikeListing(readFixture("README.md")));
    EXPECT_FALSE(looksLikeListing(readFixture("simp.x86_64-gcc-O2.lines")));
    EXPECT_FALSE(looksLikeListing("ppe-profile 1\n"));
    EXPECT_FALSE(looksLikeListing(std::string { '\x7f', 'E', 'L', 'F', 0, 0 }));
}

// Every prefix and many random corruptions of a real listing give a listing or a well-formed
// error; run under ASan/UBSan this also checks the parser never reads out of bounds.
TEST(BadInput, NoPrefixOrCorruptionCrashes)
{
    std::string text = readFixture("sections.x86_64-gcc-O2.lis");
    for (size_t size = 0; size < text.size(); size += 13) {
        auto listing = parseListing(std::string_view(text).substr(0, size), "cut.lis");
        if (!listing.ok())
            expectWellFormed(listing.error());
    }
    std::mt19937 random(4);
    for (int round = 0; round < 300; ++round) {
        std::string bad = text;
        for (int flips = 0; flips < 8; ++flips)
            bad[random() % bad.size()] = char(random() % 256);
        auto listing = parseListing(bad, "bad.lis");
        if (!listing.ok())
            expectWellFormed(listing.error());
    }
}

} // namespace ppe::listparse::test
