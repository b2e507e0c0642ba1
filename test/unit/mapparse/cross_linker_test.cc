// The four linkers placed the same objects: each module must own the same sections, of the same
// sizes, whichever linker's map it was read from (mold prints sizes in decimal, the others in
// hex; GNU ld and gold wrap long names; lld and mold print "FILE:(SECTION)").
#include "fixtures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace ppe::mapparse::test {
namespace {

    // "simp-O2-ffs-pie": one build of one program, linked by all four linkers.
    std::vector<std::string> builds()
    {
        std::vector<std::string> out;
        for (const Fixture& f : programFixtures()) {
            const std::string build = f.program + "-" + f.variant;
            if (std::find(out.begin(), out.end(), build) == out.end())
                out.push_back(build);
        }
        return out;
    }

    // Section name -> size, for one module.
    std::multimap<std::string, uint64_t> sectionSizes(const Module& m)
    {
        std::multimap<std::string, uint64_t> out;
        for (const Section& s : m.sections)
            out.emplace(s.name, s.size);
        return out;
    }

    class CrossLinkerTest : public ::testing::TestWithParam<std::string> { };

    TEST_P(CrossLinkerTest, EveryLinkerGivesTheModulesTheSameSections)
    {
        const Fixture reference = describe(GetParam() + ".gnuld.map");
        const auto expected = parseLinkMap(readFile(reference.path()), reference.file);
        ASSERT_TRUE(expected) << expected.error().str();
        for (const char* linker : { "gold", "lld", "mold" }) {
            const Fixture f = describe(GetParam() + "." + linker + ".map");
            const auto got = parseLinkMap(readFile(f.path()), f.file);
            ASSERT_TRUE(got) << got.error().str();
            for (const std::string& name : userModules(f.program)) {
                const Module* a = findModule(*expected, name);
                const Module* b = findModule(*got, name);
                ASSERT_TRUE(a && b) << name << " in " << f.file;
                EXPECT_EQ(a->codeSize(), b->codeSize()) << name << " in " << f.file;
                EXPECT_EQ(sectionSizes(*a), sectionSizes(*b)) << name << " in " << f.file;
            }
        }
    }

    INSTANTIATE_TEST_SUITE_P(Maps, CrossLinkerTest, ::testing::ValuesIn(builds()), [](const auto& info) {
        std::string name = info.param;
        std::replace(name.begin(), name.end(), '-', '_');
        return name;
    });

} // namespace
} // namespace ppe::mapparse::test
