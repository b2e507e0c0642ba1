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

    TEST(Dialect, Names)
    {
        EXPECT_EQ(dialectName(Dialect::GnuLd), "GNU ld");
        EXPECT_EQ(dialectName(Dialect::Gold), "gold");
        EXPECT_EQ(dialectName(Dialect::Lld), "lld");
        EXPECT_EQ(dialectName(Dialect::Mold), "mold");
    }

} // namespace
} // namespace ppe::mapparse
