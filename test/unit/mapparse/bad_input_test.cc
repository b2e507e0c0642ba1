// Inputs that are not good maps: empty, binary, other kinds of file, maps without code, damaged
// lines. Each must give an Error naming the file (and the line where there is one), never a
// crash or an exception.
#include "fixtures.h"

#include <gtest/gtest.h>

#include <random>

namespace ppe::mapparse::test {
namespace {

    // Messages start lower-case, end without a period and fit on one line.
    void expectWellFormed(const Error& e)
    {
        ASSERT_FALSE(e.message.empty());
        EXPECT_TRUE(std::islower(static_cast<unsigned char>(e.message.front()))) << e.message;
        EXPECT_NE(e.message.back(), '.') << e.message;
        EXPECT_EQ(e.message.find('\n'), std::string::npos) << e.message;
    }

    Error errorOf(std::string_view text, std::string_view file)
    {
        auto parsed = parseLinkMap(text, file);
        if (parsed)
            return Error { std::string(file), 0, "<parsed without error>" };
        expectWellFormed(parsed.error());
        return parsed.error();
    }

    std::vector<std::string> splitKeepingEnds(const std::string& text)
    {
        std::vector<std::string> lines;
        std::size_t begin = 0;
        while (begin < text.size()) {
            const std::size_t end = std::min(text.find('\n', begin), text.size() - 1);
            lines.push_back(text.substr(begin, end - begin + 1));
            begin = end + 1;
        }
        return lines;
    }

    std::string join(const std::vector<std::string>& lines)
    {
        std::string out;
        for (const std::string& l : lines)
            out += l;
        return out;
    }

    // Index of the first line starting with `prefix` and ending with `suffix`.
    std::size_t lineWith(
        const std::vector<std::string>& lines, const std::string& prefix, const std::string& suffix = "")
    {
        for (std::size_t i = 0; i < lines.size(); ++i)
            if (lines[i].starts_with(prefix) && lines[i].ends_with(suffix))
                return i;
        ADD_FAILURE() << "no line like " << prefix << "..." << suffix;
        return 0;
    }

    // Replaces the index-th whitespace-separated word of `line`, keeping the spacing.
    std::string replaceWord(const std::string& line, std::size_t index, const std::string& word)
    {
        std::size_t begin = 0;
        for (std::size_t i = 0;; ++i) {
            begin = line.find_first_not_of(" \n", begin);
            const std::size_t end = line.find_first_of(" \n", begin);
            if (i == index)
                return line.substr(0, begin) + word + line.substr(end);
            begin = end;
        }
    }

    TEST(BadInput, EmptyText)
    {
        const Error e = errorOf("", "simp.map");
        EXPECT_EQ(e.str(), "simp.map: empty file, expected a linker map");
    }

    TEST(BadInput, BlankLinesOnly)
    {
        EXPECT_EQ(errorOf("\n   \n\t\n", "simp.map").str(), "simp.map: empty file, expected a linker map");
    }

    TEST(BadInput, AnExecutableGivenAsTheMap)
    {
        const Error e = errorOf(readFile("/proc/self/exe"), "simp");
        EXPECT_EQ(e.str(), "simp:1: binary data, not a linker map");
    }

    TEST(BadInput, RandomBytes)
    {
        std::mt19937 random(20040215);
        std::string garbage(4096, '\0');
        for (char& c : garbage)
            c = char(random());
        const Error e = errorOf(garbage, "garbage.map");
        EXPECT_EQ(e.file, "garbage.map");
        EXPECT_EQ(e.message, "binary data, not a linker map");
    }

    TEST(BadInput, BinaryBytesAfterAGoodStart)
    {
        std::string text = readFile(mapsDir() + "/simp-O0-pie.lld.map");
        text.insert(text.find('\n', 200) + 1, std::string("\0\0\0\n", 4));
        const Error e = errorOf(text, "simp.map");
        EXPECT_EQ(e.message, "binary data, not a linker map");
        EXPECT_GT(e.line, 1u);
    }

    TEST(BadInput, APpeProfile)
    {
        const std::string profile
            = "ppe-profile 1\nproducer \"libppe 0.1.0\"\nstatus complete\nrange 0x1000 0x1295\nend\n";
        EXPECT_EQ(errorOf(profile, "simp.ppe").str(), "simp.ppe: a ppe profile, not a linker map");
    }

    TEST(BadInput, ACSource)
    {
        const Error e = errorOf(readFile(mapsDir() + "/src/simp/simp.c"), "simp.c");
        EXPECT_EQ(e.str(), "simp.c: not a linker map (expected GNU ld, gold, lld or mold)");
    }

    TEST(BadInput, AnAssemblerListing)
    {
        const Error e = errorOf(readFile(mapsDir() + "/calc.lis"), "calc.lis");
        EXPECT_EQ(e.str(), "calc.lis: not a linker map (expected GNU ld, gold, lld or mold)");
    }

    TEST(BadInput, AMapWithoutCode)
    {
        for (const char* linker : { "gnuld", "gold", "lld", "mold" }) {
            const std::string file = std::string("nocode.") + linker + ".map";
            EXPECT_EQ(errorOf(readFile(mapsDir() + "/" + file), file).str(), file + ": no code sections found");
        }
    }

    TEST(BadInput, MissingFile)
    {
        const auto parsed = readLinkMap(mapsDir() + "/no-such.map");
        ASSERT_FALSE(parsed);
        EXPECT_EQ(parsed.error().str(), mapsDir() + "/no-such.map: cannot open linker map: No such file or directory");
    }

    TEST(BadInput, GnuLdMapWithoutItsOutputLine)
    {
        auto lines = splitKeepingEnds(readFile(mapsDir() + "/simp-O0-pie.gnuld.map"));
        lines.erase(lines.begin() + std::ptrdiff_t(lineWith(lines, "OUTPUT(")), lines.end());
        const Error e = errorOf(join(lines), "simp.map");
        EXPECT_EQ(e.message, "truncated linker map (no OUTPUT line at the end)");
        EXPECT_EQ(e.line, lines.size());
    }

    TEST(BadInput, GnuLdMapCutBeforeItsMemoryMap)
    {
        auto lines = splitKeepingEnds(readFile(mapsDir() + "/simp-O0-pie.gnuld.map"));
        lines.erase(lines.begin() + std::ptrdiff_t(lineWith(lines, "Linker script and memory map")), lines.end());
        EXPECT_EQ(errorOf(join(lines), "simp.map").message, "truncated linker map (it ends before the memory map)");
    }

    TEST(BadInput, LldHeadingOnly)
    {
        const Error e
            = errorOf("             VMA              LMA     Size Align Out     In      Symbol\n", "simp.map");
        EXPECT_EQ(e.str(), "simp.map:1: truncated linker map (no .shstrtab section at the end)");
    }

    TEST(BadInput, MoldHeadingOnly)
    {
        const Error e = errorOf("               VMA       Size Align Out     In      Symbol\n", "simp.map");
        EXPECT_EQ(e.str(), "simp.map:1: truncated linker map (no SHDR row at the end)");
    }

    // A damaged size on the line that places simp.o's code: the error names that line.
    struct DamagedLine {
        const char* linker;
        const char* prefix; // with suffix, finds the line
        const char* suffix;
        std::size_t sizeWord; // which word is the size
        const char* badSize;
        const char* message;
    };

    void PrintTo(const DamagedLine& d, std::ostream* out) { *out << d.linker; }

    class DamagedLineTest : public ::testing::TestWithParam<DamagedLine> { };

    TEST_P(DamagedLineTest, NamesTheLine)
    {
        const DamagedLine& d = GetParam();
        const std::string file = std::string("simp-O0-pie.") + d.linker + ".map";
        auto lines = splitKeepingEnds(readFile(mapsDir() + "/" + file));
        const std::size_t index = lineWith(lines, d.prefix, d.suffix);
        lines[index] = replaceWord(lines[index], d.sizeWord, d.badSize);
        const Error e = errorOf(join(lines), file);
        EXPECT_EQ(e.file, file);
        EXPECT_EQ(e.line, index + 1);
        EXPECT_EQ(e.message, d.message);
    }

    INSTANTIATE_TEST_SUITE_P(Maps, DamagedLineTest,
        ::testing::Values(DamagedLine { "gnuld", " .text ", " simp.o\n", 2, "0xzz",
                              "cannot parse input section line (expected ADDRESS SIZE FILE)" },
            DamagedLine { "gold", " .text ", " simp.o\n", 2, "0x12g",
                "cannot parse input section line (expected ADDRESS SIZE FILE)" },
            DamagedLine { "lld", "", " simp.o:(.text)\n", 2, "zz", "cannot parse map line" },
            DamagedLine { "mold", "", " simp.o:(.text)\n", 1, "0x125", "cannot parse map line" }),
        [](const auto& info) { return std::string(info.param.linker); });

    // lld and mold indent names by 0 (output section), 8 (input section) or 16 (symbol) spaces.
    TEST(BadInput, ColumnarRowWithUnknownIndentation)
    {
        for (const char* linker : { "lld", "mold" }) {
            const std::string file = std::string("simp-O0-pie.") + linker + ".map";
            auto lines = splitKeepingEnds(readFile(mapsDir() + "/" + file));
            const std::size_t index = lineWith(lines, "", " simp.o:(.text)\n");
            lines[index].erase(lines[index].find("simp.o") - 4, 4); // indented by 4 instead of 8
            const Error e = errorOf(join(lines), file);
            EXPECT_EQ(e.line, index + 1) << file;
            EXPECT_EQ(e.message, "cannot parse map line") << file;
        }
    }

    TEST(BadInput, GnuLdSectionBeyondTheAddressSpace)
    {
        auto lines = splitKeepingEnds(readFile(mapsDir() + "/simp-O0-pie.gnuld.map"));
        const std::size_t index = lineWith(lines, " .text ", " simp.o\n");
        lines[index] = replaceWord(lines[index], 1, "0xffffffffffffff00");
        const Error e = errorOf(join(lines), "simp.map");
        EXPECT_EQ(e.line, index + 1);
        EXPECT_EQ(e.message, "input section extends beyond the address space");
    }

    TEST(BadInput, LldSectionBeyondTheAddressSpace)
    {
        const std::string text = "             VMA              LMA     Size Align Out     In      Symbol\n"
                                 "ffffffffffffff00 ffffffffffffff00     1000    16 .text\n";
        EXPECT_EQ(errorOf(text, "simp.map").str(), "simp.map:2: section extends beyond the address space");
    }

    TEST(BadInput, NumbersTooBigForSixtyFourBits)
    {
        const std::string text = "             VMA              LMA     Size Align Out     In      Symbol\n"
                                 "10000000000000000 0     10    16 .text\n";
        EXPECT_EQ(errorOf(text, "simp.map").str(), "simp.map:2: cannot parse map line");
    }

    // Damage real maps at random (flipped bytes, dropped and repeated lines): every result is a map
    // or a well-formed error, and nothing crashes (this test earns its keep under ASan/UBSan).
    TEST(BadInput, RandomDamageNeverCrashes)
    {
        std::mt19937 random(4711);
        for (const char* file : { "shapes-O2-ffs-pie.gnuld.map", "ktest-O0-pie.gold.map", "simp-O2-nopie.lld.map",
                 "shapes-O0-ffs-nopie.mold.map" }) {
            const auto lines = splitKeepingEnds(readFile(mapsDir() + "/" + file));
            for (int round = 0; round < 150; ++round) {
                auto damaged = lines;
                for (int k = 0; k < 3; ++k) {
                    const std::size_t i = random() % damaged.size();
                    std::string& line = damaged[i];
                    switch (random() % 4) {
                    case 0:
                        line[random() % line.size()] = char(random() % 96 + 32);
                        break;
                    case 1:
                        damaged.erase(damaged.begin() + std::ptrdiff_t(i));
                        break;
                    case 2:
                        damaged.insert(damaged.begin() + std::ptrdiff_t(i), line);
                        break;
                    default:
                        line = line.substr(0, random() % line.size()) + "\n";
                    }
                }
                const auto parsed = parseLinkMap(join(damaged), file);
                if (!parsed)
                    expectWellFormed(parsed.error());
            }
        }
    }

} // namespace
} // namespace ppe::mapparse::test
