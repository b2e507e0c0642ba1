// Maps of link-time optimised programs (test/data/maps/lto): every linker's map parses, and its
// units with the program's code are link-time partitions, recognised by name.
#include "ppe/mapparse/link_map.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>

namespace ppe::mapparse {
namespace {

    const std::string kDir = std::string(PPE_MAPS_DIR) + "/lto/";

    struct LtoMap {
        const char* file;
        Dialect dialect;
    };

    class LtoMapFixture : public ::testing::TestWithParam<LtoMap> { };

    TEST_P(LtoMapFixture, TheProgramsCodeIsInPartitionsOnly)
    {
        const auto map = readLinkMap(kDir + GetParam().file);
        ASSERT_TRUE(map) << map.error().str();
        EXPECT_EQ(map->dialect, GetParam().dialect);
        EXPECT_GE(linkTimePartitions(*map), 1u);
        bool hasMain = false;
        for (const Module& m : map->modules) {
            // The source objects hold intermediate code only: no map gives them code.
            for (const char* source : { "main.o", "sieve.o", "sort.o", "hash.o" })
                EXPECT_NE(m.name, source) << GetParam().file;
            if (!isLinkTimePartition(m.path)) {
                EXPECT_NE(m.path.find("/lib/"), std::string::npos) << m.path << ": a start file, or a partition";
                continue;
            }
            for (const Section& s : m.sections)
                hasMain |= s.name == ".text.startup" || s.name == ".text.main";
        }
        EXPECT_TRUE(hasMain) << GetParam().file << ": main is in a partition";
    }

    INSTANTIATE_TEST_SUITE_P(Linkers, LtoMapFixture,
        ::testing::Values(LtoMap { "gcc-flto.gnuld.map", Dialect::GnuLd },
            LtoMap { "gcc-flto.gold.map", Dialect::Gold }, LtoMap { "gcc-flto.mold.map", Dialect::Mold },
            LtoMap { "clang-thinlto.lld.map", Dialect::Lld }, LtoMap { "clang-thinlto.gnuld.map", Dialect::GnuLd },
            LtoMap { "clang-thinlto.gold.map", Dialect::Gold }, LtoMap { "clang-thinlto.mold.map", Dialect::Mold }),
        [](const auto& info) {
            std::string name = info.param.file;
            for (char& c : name) {
                if (!std::isalnum(static_cast<unsigned char>(c)))
                    c = '_';
            }
            return name;
        });

} // namespace
} // namespace ppe::mapparse
