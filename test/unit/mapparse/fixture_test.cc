// Every real map in test/data/maps: parsed, checked against nm of the linked program, and cut
// in half.
#include "fixtures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

namespace ppe::mapparse::test {
namespace {

    class FixtureTest : public ::testing::TestWithParam<Fixture> {
    protected:
        void SetUp() override
        {
            m_text = readFile(GetParam().path());
            auto parsed = parseLinkMap(m_text, GetParam().file);
            ASSERT_TRUE(parsed) << parsed.error().str();
            m_map = std::move(parsed.value());
        }

        std::string m_text;
        LinkMap m_map;
    };

    bool isCodeName(const std::string& name)
    {
        return name == ".text" || name.starts_with(".text.") || name == ".init" || name == ".fini";
    }

    bool hasSectionNamed(const Module* m, const std::string& name)
    {
        return m
            && std::any_of(m->sections.begin(), m->sections.end(), [&](const Section& s) { return s.name == name; });
    }

    bool sectionHolds(const Section& s, uint64_t address, uint64_t size)
    {
        return s.address <= address && address + std::max<uint64_t>(size, 1) <= s.end();
    }

    bool moduleHolds(const Module& m, uint64_t address, uint64_t size)
    {
        return std::any_of(
            m.sections.begin(), m.sections.end(), [&](const Section& s) { return sectionHolds(s, address, size); });
    }

    // Symbols by name, with every object that defines them (inline and template code is defined in
    // several objects and the linker keeps one copy).
    std::map<std::string, std::vector<ExpectedSymbol>> byName(const std::vector<ExpectedSymbol>& symbols)
    {
        std::map<std::string, std::vector<ExpectedSymbol>> out;
        for (const ExpectedSymbol& s : symbols)
            out[s.name].push_back(s);
        return out;
    }

    // The module that holds the symbol, among those that define it.
    const Module* owner(const LinkMap& map, const std::vector<ExpectedSymbol>& definitions)
    {
        for (const ExpectedSymbol& d : definitions) {
            const Module* m = findModule(map, d.module);
            if (m && m->start() <= d.address && d.address + d.size <= m->end() && moduleHolds(*m, d.address, d.size))
                return m;
        }
        return nullptr;
    }

    void expectProgramModules(const LinkMap& map, const Fixture& f)
    {
        const auto expected = userModules(f.program);
        ASSERT_FALSE(expected.empty());
        for (const std::string& name : expected) {
            const Module* m = findModule(map, name);
            ASSERT_NE(m, nullptr) << name;
            EXPECT_EQ(m->path, name) << "objects were linked under their plain names";
        }
        EXPECT_EQ(findModule(map, "libx.a(w.o)"), nullptr) << "nothing uses w.o: the linker left it out";
    }

    void expectStartFiles(const LinkMap& map, const Fixture& f)
    {
        for (const char* name : { "crti.o", "crtn.o" }) {
            EXPECT_TRUE(hasSectionNamed(findModule(map, name), ".init")) << name;
            EXPECT_TRUE(hasSectionNamed(findModule(map, name), ".fini")) << name;
        }
        EXPECT_TRUE(hasSectionNamed(findModule(map, f.pie() ? "Scrt1.o" : "crt1.o"), ".text"));
        EXPECT_TRUE(hasSectionNamed(findModule(map, f.pie() ? "crtbeginS.o" : "crtbegin.o"), ".text"));
    }

    TEST_P(FixtureTest, FindsTheLinkerAndTheModules)
    {
        EXPECT_EQ(m_map.dialect, GetParam().dialect());
        expectProgramModules(m_map, GetParam());
        expectStartFiles(m_map, GetParam());
    }

    // Issue 18: ppeout names the file a map was written for when it refuses the map.
    TEST_P(FixtureTest, NamesItsOutputFileWhereTheLinkerWritesIt)
    {
        if (GetParam().dialect() == Dialect::GnuLd)
            EXPECT_EQ(m_map.outputFile, GetParam().program + "-" + GetParam().variant + ".gnuld") << GetParam().file;
        else
            EXPECT_EQ(m_map.outputFile, "") << "only GNU ld's map names its output";
    }

    void expectOnlyCode(const LinkMap& map)
    {
        for (const Module& m : map.modules) {
            EXPECT_FALSE(m.name.empty());
            EXPECT_TRUE(m.path.ends_with(".o") || m.path.ends_with(".o)")) << m.path;
            for (const Section& s : m.sections) {
                EXPECT_TRUE(isCodeName(s.name)) << m.name << " " << s.name;
                EXPECT_EQ(s.outputSection, s.name.starts_with(".text") ? ".text" : s.name) << m.name << " " << s.name;
                EXPECT_GT(s.size, 0u) << m.name << " " << s.name;
            }
        }
    }

    void expectSorted(const LinkMap& map)
    {
        for (std::size_t i = 1; i < map.modules.size(); ++i)
            EXPECT_LE(map.modules[i - 1].start(), map.modules[i].start());
        for (const Module& m : map.modules) {
            for (std::size_t i = 1; i < m.sections.size(); ++i)
                EXPECT_LE(m.sections[i - 1].address, m.sections[i].address) << m.name;
            EXPECT_EQ(m.start(), m.sections.front().address);
            EXPECT_LE(m.codeSize(), m.end() - m.start());
        }
    }

    void expectDisjoint(const LinkMap& map)
    {
        std::vector<std::pair<Section, std::string>> all;
        for (const Module& m : map.modules)
            for (const Section& s : m.sections)
                all.emplace_back(s, m.name);
        std::sort(
            all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first.address < b.first.address; });
        for (std::size_t i = 1; i < all.size(); ++i)
            EXPECT_LE(all[i - 1].first.end(), all[i].first.address)
                << all[i - 1].second << " " << all[i - 1].first.name << " overlaps " << all[i].second << " "
                << all[i].first.name;
    }

    TEST_P(FixtureTest, KeepsOnlyCodeSortedAndDisjoint)
    {
        expectOnlyCode(m_map);
        expectSorted(m_map);
        expectDisjoint(m_map);
    }

    // The check that ties the parser to the truth: nm's address of every function of the program
    // lies inside a section of the module that defines it.
    TEST_P(FixtureTest, PutsEveryFunctionInItsModule)
    {
        const auto symbols = readSyms(GetParam().symsPath());
        std::set<std::string> modulesSeen;
        for (const auto& [name, definitions] : byName(symbols)) {
            const Module* m = owner(m_map, definitions);
            EXPECT_NE(m, nullptr) << name << " at 0x" << std::hex << definitions.front().address
                                  << " is in none of its modules";
            if (m)
                modulesSeen.insert(m->name);
        }
        for (const std::string& name : userModules(GetParam().program))
            EXPECT_TRUE(modulesSeen.count(name)) << name << " holds none of the program's functions";
    }

    TEST_P(FixtureTest, ReadsCrLfLineEndsAlike)
    {
        std::string crlf;
        for (char c : m_text)
            crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
        const auto parsed = parseLinkMap(crlf, GetParam().file);
        ASSERT_TRUE(parsed) << parsed.error().str();
        ASSERT_EQ(parsed->modules.size(), m_map.modules.size());
        for (std::size_t i = 0; i < m_map.modules.size(); ++i) {
            EXPECT_EQ(parsed->modules[i].path, m_map.modules[i].path);
            EXPECT_EQ(parsed->modules[i].codeSize(), m_map.modules[i].codeSize());
        }
    }

    // A linker writes its map whole; a map cut short means the link or the copy failed, and
    // attributing samples to half the modules would mislead. So a cut map is an error, never a
    // partial result: cut in a line (no final newline) or at a line end (the line each linker
    // writes at the end is missing).
    TEST_P(FixtureTest, RejectsTheMapCutInHalf)
    {
        std::string inLine = m_text.substr(0, m_text.size() / 2);
        if (inLine.ends_with('\n'))
            inLine.pop_back();
        const auto cutInLine = parseLinkMap(inLine, GetParam().file);
        ASSERT_FALSE(cutInLine);
        EXPECT_EQ(cutInLine.error().file, GetParam().file);
        EXPECT_TRUE(cutInLine.error().message.starts_with("truncated linker map")) << cutInLine.error().str();
        EXPECT_EQ(cutInLine.error().line, std::size_t(std::count(inLine.begin(), inLine.end(), '\n') + 1));

        const std::string atLineEnd = m_text.substr(0, m_text.find('\n', m_text.size() / 2) + 1);
        const auto cutAtLineEnd = parseLinkMap(atLineEnd, GetParam().file);
        ASSERT_FALSE(cutAtLineEnd);
        EXPECT_TRUE(cutAtLineEnd.error().message.starts_with("truncated linker map")) << cutAtLineEnd.error().str();
        EXPECT_EQ(cutAtLineEnd.error().line, std::size_t(std::count(atLineEnd.begin(), atLineEnd.end(), '\n')));
    }

    INSTANTIATE_TEST_SUITE_P(Maps, FixtureTest, ::testing::ValuesIn(programFixtures()),
        [](const ::testing::TestParamInfo<Fixture>& info) { return testName(info.param.file); });

    // With -ffunction-sections every function has a section of its own: in each of the program's
    // modules the sections start exactly at its functions' addresses, one section per address.
    class FunctionSectionsTest : public FixtureTest { };

    std::set<uint64_t> symbolAddressesIn(const Module& m, const std::vector<ExpectedSymbol>& symbols)
    {
        std::set<uint64_t> out;
        for (const ExpectedSymbol& s : symbols)
            if (moduleHolds(m, s.address, s.size))
                out.insert(s.address);
        return out;
    }

    TEST_P(FunctionSectionsTest, GiveOneSectionPerFunction)
    {
        const auto symbols = readSyms(GetParam().symsPath());
        for (const std::string& name : userModules(GetParam().program)) {
            const Module* m = findModule(m_map, name);
            ASSERT_NE(m, nullptr) << name;
            std::set<uint64_t> starts;
            for (const Section& s : m->sections)
                starts.insert(s.address);
            EXPECT_EQ(starts.size(), m->sections.size()) << name;
            EXPECT_EQ(starts, symbolAddressesIn(*m, symbols)) << name;
        }
    }

    std::vector<Fixture> functionSectionFixtures()
    {
        auto all = programFixtures();
        std::erase_if(all, [](const Fixture& f) { return !f.functionSections(); });
        return all;
    }

    INSTANTIATE_TEST_SUITE_P(Maps, FunctionSectionsTest, ::testing::ValuesIn(functionSectionFixtures()),
        [](const ::testing::TestParamInfo<Fixture>& info) { return testName(info.param.file); });

    TEST(FixtureSet, HasEveryProgramVariantAndLinker) { EXPECT_EQ(programFixtures().size(), 3u * 4u * 4u); }

} // namespace
} // namespace ppe::mapparse::test
