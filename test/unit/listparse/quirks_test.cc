// What the real listings show, program by program and quirk by quirk (see
// test/data/listings/README.md for the listings and what each one is for).
#include "listing_checks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace ppe::listparse::test {

namespace {

    std::set<int> linesIn(const Listing& listing, const std::string& section, const std::string& file)
    {
        std::set<int> lines;
        for (const CodeRange& range : listing.ranges) {
            if (range.section == section && fileOf(listing, range) == file)
                lines.insert(range.line);
        }
        return lines;
    }

    const SourceLine* textOf(const Listing& listing, int file, int line)
    {
        for (const SourceLine& s : listing.sourceLines) {
            if (s.file == file && s.line == line)
                return &s;
        }
        return nullptr;
    }

    bool sameRanges(const std::vector<CodeRange>& a, const std::vector<CodeRange>& b)
    {
        auto same = [](const CodeRange& x, const CodeRange& y) {
            return x.section == y.section && x.offset == y.offset && x.size == y.size && x.file == y.file
                && x.line == y.line;
        };
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), same);
    }

    // The listing text without its .loc lines: what the interleaved source lines alone tell.
    std::string withoutLoc(const std::string& text)
    {
        std::string out;
        for (size_t start = 0; start < text.size();) {
            size_t end = text.find('\n', start);
            end = end == std::string::npos ? text.size() : end + 1;
            std::string line = text.substr(start, end - start);
            if (line.find("\t.loc") == std::string::npos)
                out += line;
            start = end;
        }
        return out;
    }

    const std::vector<std::string> kSimp { "simp.x86_64-gcc-O0", "simp.x86_64-gcc-O2", "simp.x86_64-gcc-O2-ahln",
        "simp.x86_64-gcc-O2-ffunction-sections", "simp.x86_64-gcc-O2-pipe-ahls", "simp.x86_64-clang-O2",
        "simp.arc-gcc-O0", "simp.arc-gcc-O2", "simp.arc-gcc-O2-ahln", "simp.aarch64-gcc-O2" };

} // namespace

// simp.c line 17, `if ((num % cnt) == 0) return cnt;`, is the body of the loop on line 16: it
// owns code of sd with code of the loop line before and after it.
TEST(Simp, TheHotLoopLineOwnsCodeInsideSdsLoop)
{
    for (const std::string& name : kSimp) {
        SCOPED_TRACE(name);
        Listing listing = parseFixture(name);
        std::string sd = listing.sectionSizes.contains(".text.sd") ? ".text.sd" : ".text";
        EXPECT_GT(bytesOfLine(listing, sd, "simp.c", 17), 0u);
        auto in = [&](const CodeRange& r, int line) { return r.section == sd && r.line == line; };
        auto hot = std::find_if(listing.ranges.begin(), listing.ranges.end(), [&](auto& r) { return in(r, 17); });
        ASSERT_NE(hot, listing.ranges.end());
        EXPECT_TRUE(std::any_of(listing.ranges.begin(), hot, [&](auto& r) { return in(r, 16); }));
        EXPECT_TRUE(std::any_of(hot, listing.ranges.end(), [&](auto& r) { return in(r, 16); }));
        const SourceLine* text = textOf(listing, 0, 17);
        ASSERT_NE(text, nullptr);
        EXPECT_EQ(text->text, "        if ((num % cnt) == 0) return cnt;");
    }
}

// gcc -O2 -g -flto -c sieve.c -Wa,-adhln=sieve.lis (examples/lto/), its first lines and the
// first of its .gnu.lto_ sections: intermediate code only, no code section with bytes.
TEST(Lto, ACompileTimeListingHoldsLinkTimeBytecodeOnly)
{
    const std::string text = "   1              \t\t.file\t\"sieve.c\"\n"
                             "   2              \t\t.file 1 \"sieve.c\"\n"
                             "   3              \t\t.section\t.gnu.debuglto_.debug_info,\"e\",@progbits\n"
                             "   4              \t.Ldebug_info0:\n"
                             "   5 0000 7D000000 \t\t.long\t0x7d\n"
                             " 280              \t\t.text\n"
                             " 281              \t\t.section\t.gnu.lto_.profile.69a1a217f504682e,\"e\",@progbits\n"
                             " 282 0000 00       \t\t.string\t\"\"\n";
    auto listing = parseListing(text, "sieve.lis");
    ASSERT_TRUE(listing) << listing.error().str();
    EXPECT_TRUE(listing->ltoBytecode);
    EXPECT_TRUE(listing->ranges.empty());
    for (const std::string name : { "simp.x86_64-gcc-O2", "ktest.x86_64-gfortran-O3" })
        EXPECT_FALSE(parseFixture(name).ltoBytecode) << name;
}

TEST(Simp, AtO2MainIsInTextStartupAndSdInText)
{
    for (std::string name : { "simp.x86_64-gcc-O2", "simp.arc-gcc-O2", "simp.aarch64-gcc-O2" }) {
        SCOPED_TRACE(name);
        Listing listing = parseFixture(name);
        std::set<int> sd = linesIn(listing, ".text", "simp.c");
        std::set<int> main = linesIn(listing, ".text.startup", "simp.c");
        ASSERT_FALSE(sd.empty());
        ASSERT_FALSE(main.empty());
        EXPECT_GE(*sd.begin(), 11);
        EXPECT_LE(*sd.rbegin(), 19);
        EXPECT_GE(*main.begin(), 22);
        EXPECT_LE(*main.rbegin(), 33);
    }
}

TEST(Simp, OneSectionPerFunctionWithFunctionSections)
{
    Listing listing = parseFixture("simp.x86_64-gcc-O2-ffunction-sections");
    EXPECT_EQ(listing.sectionSizes.at(".text.sd"), 154u);
    EXPECT_EQ(listing.sectionSizes.at(".text.startup.main"), 119u);
    EXPECT_EQ(listing.sectionSizes.at(".text"), 0u);
}

// Without 'd' the listing also shows .type/.size and the debugging sections; paged (no 'n') it
// has page headers with form feeds; from a pipe gas lists its copy of each line (spaces
// squeezed, comments gone); with 's' a symbol table follows. The code is the same.
TEST(Simp, EveryListingFormOfOneCompileReadsTheSame)
{
    Listing plain = parseFixture("simp.x86_64-gcc-O2");
    for (std::string name : { "simp.x86_64-gcc-O2-ahln", "simp.x86_64-gcc-O2-pipe-ahls" }) {
        SCOPED_TRACE(name);
        Listing other = parseFixture(name);
        EXPECT_EQ(other.sectionSizes, plain.sectionSizes);
        EXPECT_TRUE(sameRanges(other.ranges, plain.ranges));
        EXPECT_EQ(other.files, plain.files);
        EXPECT_EQ(other.sourceLines.size(), plain.sourceLines.size());
        EXPECT_EQ(other.openSection, ""); // nothing hidden
    }
    EXPECT_EQ(plain.openSection, ".text");
    EXPECT_EQ(parseFixture("simp.x86_64-gcc-O2").primarySource, "simp.c");
}

// gcc -O2 puts the cold function fail in .text.unlikely, main in .text.startup; atol, inlined
// into main, is attributed to stdlib.h. On x86-64 it also splits the cold path of checkedSum
// (checkedSum.cold) off into .text.unlikely.
TEST(Cold, HotColdAndStartupCodeInTheirSections)
{
    for (std::string name : { "cold.x86_64-gcc-O2", "cold.arc-gcc-O2", "cold.aarch64-gcc-O2" }) {
        SCOPED_TRACE(name);
        Listing listing = parseFixture(name);
        std::set<int> cold = linesIn(listing, ".text.unlikely", "cold.c");
        EXPECT_TRUE(cold.contains(8)) << "fail's fprintf";
        std::set<int> hot = linesIn(listing, ".text", "cold.c");
        EXPECT_TRUE(hot.contains(18)) << "sum += v[i]";
        std::set<int> startup = linesIn(listing, ".text.startup", "cold.c");
        EXPECT_TRUE(startup.contains(27)) << "main's loop";
        EXPECT_FALSE(linesIn(listing, ".text.startup", "stdlib.h").empty()) << "atol, inlined";
    }
    Listing x86 = parseFixture("cold.x86_64-gcc-O2");
    EXPECT_TRUE(linesIn(x86, ".text.unlikely", "cold.c").contains(17)) << "checkedSum.cold";
    EXPECT_FALSE(linesIn(x86, ".text", "cold.c").contains(17));
}

// The inline assembly in sections.c switches sections with .pushsection/.popsection,
// .section/.previous and .subsection. gcc wraps it in cpp line markers, so gas lists its
// bytes on lines of sections.c before the directives that place them.
TEST(InlineAssembly, BytesGoWhereTheDirectivesInsideItPutThem)
{
    for (std::string name :
        { "sections.x86_64-gcc-O2", "sections.x86_64-clang-O2", "sections.arc-gcc-O2", "sections.aarch64-gcc-O2" }) {
        SCOPED_TRACE(name);
        Listing listing = parseFixture(name);
        uint64_t nop = name.find("x86_64") != std::string::npos ? 1 : 4;
        EXPECT_EQ(listing.sectionSizes.at(".text.pushed"), 3 * nop);
        EXPECT_EQ(listing.sectionSizes.at(".text.previous"), 2 * nop);
    }
}

// gcc's .loc with a view makes its row at once, where the assembler is: the nops of
// .text.pushed get no line, and the .subsection 1 nops (placed after the function) keep the line
// before them. clang's .loc waits for the next instruction, wherever it is.
TEST(InlineAssembly, LinesFollowGasRowRules)
{
    Listing gcc = parseFixture("sections.x86_64-gcc-O2");
    EXPECT_EQ(rangeAt(gcc, ".text.pushed", 0), nullptr);
    ASSERT_NE(rangeAt(gcc, ".text", 0x2f), nullptr);
    EXPECT_EQ(rangeAt(gcc, ".text", 0x2f)->line, 31);
    Listing clang = parseFixture("sections.x86_64-clang-O2");
    EXPECT_EQ(bytesOfLine(clang, ".text.pushed", "sections.c", 9), 3u);
    EXPECT_EQ(bytesOfLine(clang, ".text.previous", "sections.c", 18), 2u);
    ASSERT_NE(rangeAt(clang, ".text", 0x2f), nullptr);
    EXPECT_EQ(rangeAt(clang, ".text", 0x2f)->line, 27);
}

// gas shows source line 12 of sections.c again with the text of line 13 ("}"); the first showing
// (here, a C line gas listed in place of the inline assembly) has the right text.
TEST(SourceText, TheFirstShowingOfALineWins)
{
    std::string text = readFixture("sections.x86_64-gcc-O2.lis");
    EXPECT_NE(text.find("  12:sections.c    **** }\n"), std::string::npos);
    Listing listing = parseFixture("sections.x86_64-gcc-O2");
    ASSERT_NE(textOf(listing, 0, 12), nullptr);
    EXPECT_EQ(textOf(listing, 0, 12)->text, "    counter += 2;");
    ASSERT_NE(textOf(listing, 0, 10), nullptr);
    EXPECT_EQ(textOf(listing, 0, 10)->text, "                     \"nop\\n\\tnop\\n\\tnop\\n\\t\"");
}

// Code of inline functions and templates from a header is listed under the header's name.
TEST(Headers, InlineCodeBelongsToTheHeader)
{
    for (std::string name :
        { "stats.x86_64-gcc-O2", "stats.x86_64-clang-O2", "stats.arc-gcc-O2", "stats.aarch64-gcc-O2" }) {
        SCOPED_TRACE(name);
        Listing listing = parseFixture(name);
        EXPECT_EQ(listing.files.at(0), "stats.c");
        EXPECT_GT(bytesOfLine(listing, ".text", "stats.h", 14), 0u) << "s += v[i] in mean";
        EXPECT_GT(bytesOfLine(listing, ".text", "stats.c", 9), 0u) << "the loop of variance";
    }
    Listing o0 = parseFixture("templates.x86_64-g++-O0");
    EXPECT_EQ(linesIn(o0, ".text._ZN6MatrixIdLi24EE4fillEd", "matrix.h"), (std::set<int> { 11, 13, 14, 15, 16 }));
    EXPECT_TRUE(linesIn(o0, ".text._ZN6MatrixIdLi24EE4fillEd", "templates.cc").empty());
    for (std::string name : { "templates.x86_64-g++-O2", "templates.x86_64-clang++-O2" }) {
        SCOPED_TRACE(name);
        Listing listing = parseFixture(name);
        std::string main = listing.sectionSizes.contains(".text.startup") ? ".text.startup" : ".text";
        EXPECT_TRUE(linesIn(listing, main, "matrix.h").contains(22)) << "trace, inlined into main";
        EXPECT_TRUE(linesIn(listing, main, "templates.cc").contains(12)) << "sumProducts, inlined";
    }
}

TEST(Fortran, EverySubroutineHasItsLines)
{
    for (std::string name : { "ktest.x86_64-gfortran-O0", "ktest.x86_64-gfortran-O3" }) {
        SCOPED_TRACE(name);
        Listing listing = parseFixture(name);
        EXPECT_EQ(listing.files.at(0), "ktest.f90");
        std::set<int> lines;
        for (const auto& [section, size] : listing.sectionSizes) {
            std::set<int> more = linesIn(listing, section, "ktest.f90");
            lines.insert(more.begin(), more.end());
        }
        for (int line : { 44, 55, 78, 99, 112 }) // fill, fillv, gram, mxm, bsort
            EXPECT_TRUE(lines.contains(line)) << line;
        EXPECT_GT(bytesOfLine(listing, ".text", "ktest.f90", 78), 0u) << "s = s + a(i, k) * a(i, j)";
    }
}

// ARC pads code sections to their alignment at the end. The listing shows that padding on the
// line that leaves a section; for the last one, that line is a debugging directive 'd' hides.
TEST(Arc, EndPaddingOfTheLastSectionIsAllowedFor)
{
    Listing hidden = parseFixture("simp.arc-gcc-O2");
    EXPECT_EQ(hidden.sectionSizes.at(".text"), 0xfau);
    EXPECT_EQ(hidden.openSection, ".text");
    EXPECT_EQ(hidden.openSectionAlignment, 4u);
    EXPECT_TRUE(sectionSizeAgrees(hidden, ".text", 0xfc));
    EXPECT_TRUE(sectionSizeAgrees(hidden, ".text", 0xfa));
    EXPECT_FALSE(sectionSizeAgrees(hidden, ".text", 0xfe));
    EXPECT_FALSE(sectionSizeAgrees(hidden, ".text", 0x100));
    EXPECT_EQ(hidden.sectionSizes.at(".text.startup"), 0x90u); // its padding is listed
    EXPECT_FALSE(sectionSizeAgrees(hidden, ".text.startup", 0x94));
    EXPECT_FALSE(sectionSizeAgrees(hidden, ".text.nothere", 0));

    Listing shown = parseFixture("simp.arc-gcc-O2-ahln");
    EXPECT_EQ(shown.sectionSizes.at(".text"), 0xfcu);
    EXPECT_EQ(shown.openSection, "");
    EXPECT_FALSE(sectionSizeAgrees(shown, ".text", 0x100));
}

// gas shows 99 characters of an input line: a long -ffunction-sections name is cut. (Asking
// for more with --listing-rhs-width crashes gas 2.40 on long source lines.)
TEST(LongNames, TheListingCutsLongSectionNames)
{
    Listing listing = parseFixture("longname.x86_64-gcc-O2-ffunction-sections");
    ASSERT_EQ(listing.truncatedSections.size(), 1u);
    const std::string& cut = *listing.truncatedSections.begin();
    std::string full = ".text.the_function_with_a_name_long_enough_that_gas_cuts_its_section_directive_in_the_listing";
    EXPECT_EQ(full.rfind(cut, 0), 0u);
    EXPECT_LT(cut.size(), full.size());
    EXPECT_TRUE(listing.sectionSizes.contains(cut));
    EXPECT_EQ(bytesOfLine(listing, cut, "longname.c", 5) + bytesOfLine(listing, cut, "longname.c", 6),
        listing.sectionSizes.at(cut));
}

// When a listing shows no .loc, the interleaved source lines tell the line. At -O0 that is
// exactly what the .loc directives say.
TEST(SourceLinesOnly, AtO0TheyGiveTheSameLinesAsLoc)
{
    for (std::string name : { "simp.x86_64-gcc-O0", "simp.arc-gcc-O0", "ktest.x86_64-gfortran-O0" }) {
        SCOPED_TRACE(name);
        Listing withLoc = parseFixture(name);
        auto without = parseListing(withoutLoc(readFixture(name + ".lis")), name);
        ASSERT_TRUE(without.ok());
        EXPECT_TRUE(sameRanges(without->ranges, withLoc.ranges));
        EXPECT_EQ(without->sectionSizes, withLoc.sectionSizes);
    }
}

// Issue 25: gas cuts `.section` lines at 99 characters, so two COMDAT sections of one class template
// (AVeryLong...IdE5firstEi, ...IdE6secondEi) are listed under one name. Where the code starts (offset
// 0 again) tells them apart: NAME and NAME#2, each with its own size, in the object's order.
TEST(Quirks, CutSectionNamesThatCollideAreNumbered)
{
    const Listing listing = parseFixture("comdat.x86_64-g++-O2");
    ASSERT_EQ(listing.truncatedSections.size(), 2u);
    const std::string first = *listing.truncatedSections.begin();
    const std::string second = first + "#2";
    ASSERT_TRUE(listing.truncatedSections.contains(second));
    EXPECT_EQ(cutSectionPrefix(listing, second), first);
    EXPECT_EQ(cutSectionPrefix(listing, first), first);
    EXPECT_EQ(listing.sectionSizes.at(first), 0x5u) << "first(int)";
    EXPECT_EQ(listing.sectionSizes.at(second), 0x25u) << "second(int)";
}

} // namespace ppe::listparse::test
