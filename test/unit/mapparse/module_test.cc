// The small parts of the API: module bounds and dialect names.
#include "ppe/mapparse/link_map.h"

#include <gtest/gtest.h>

namespace ppe::mapparse {
namespace {

    TEST(Module, BoundsSpanEverySectionAndSizeCountsOnlyItsOwn)
    {
        Module m;
        m.sections = { { ".init", ".init", 0x1000, 0x12 }, { ".fini", ".fini", 0x1344, 0x4 } };
        EXPECT_EQ(m.start(), 0x1000u);
        EXPECT_EQ(m.end(), 0x1348u);
        EXPECT_EQ(m.codeSize(), 0x16u);
        EXPECT_EQ(m.sections[1].end(), 0x1348u);
    }

    TEST(Module, EmptyModuleHasEmptyBounds)
    {
        const Module m;
        EXPECT_EQ(m.start(), 0u);
        EXPECT_EQ(m.end(), 0u);
        EXPECT_EQ(m.codeSize(), 0u);
    }

    // What the linkers' maps name link-time partitions (test/data/maps/lto/*.map).
    TEST(LinkTimePartition, RecognisesTheNamesOfEachLinker)
    {
        EXPECT_TRUE(isLinkTimePartition("/tmp/ccdMgSGg.ltrans0.ltrans.o")); // gcc -flto: GNU ld, gold, mold
        EXPECT_TRUE(isLinkTimePartition("/tmp/ccZVrPVV.ltrans12.ltrans.o"));
        EXPECT_TRUE(isLinkTimePartition("prog.ltrans0.ltrans.o")); // gcc -flto -save-temps
        EXPECT_TRUE(isLinkTimePartition("lto.tmp")); // clang -flto, -flto=thin: lld
        EXPECT_TRUE(isLinkTimePartition("/tmp/lto-llvm-681741.o")); // clang through LLVMgold: GNU ld, gold, mold
        EXPECT_FALSE(isLinkTimePartition("simp.o"));
        EXPECT_FALSE(isLinkTimePartition("/tmp/ccdMgSGg.o")); // gcc's temporary object without -flto
        EXPECT_FALSE(isLinkTimePartition("libx.a(y.o)"));
        EXPECT_FALSE(isLinkTimePartition("/usr/lib/x86_64-linux-gnu/crti.o"));
        EXPECT_FALSE(isLinkTimePartition("ltrans.c.o.d"));
    }

    TEST(LinkTimePartition, CountsTheMapsPartitions)
    {
        LinkMap map;
        map.modules.resize(3);
        map.modules[0].path = "/usr/lib/x86_64-linux-gnu/Scrt1.o";
        map.modules[1].path = "/tmp/ccA.ltrans0.ltrans.o";
        map.modules[2].path = "/tmp/ccA.ltrans1.ltrans.o";
        EXPECT_EQ(linkTimePartitions(map), 2u);
        map.modules.resize(1);
        EXPECT_EQ(linkTimePartitions(map), 0u);
    }

    TEST(Dialect, Names)
    {
        EXPECT_EQ(dialectName(Dialect::GnuLd), "GNU ld");
        EXPECT_EQ(dialectName(Dialect::Gold), "gold");
        EXPECT_EQ(dialectName(Dialect::Lld), "lld");
        EXPECT_EQ(dialectName(Dialect::Mold), "mold");
    }

} // namespace
} // namespace ppe::mapparse
