// Modules by source file (issue 24): each function credited to the file of its entry line, the
// automatic choice where DWARF's units are gcc's link-time partitions ("<artificial>").
#include "ppe/formatter/debug_sources.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ppe::formatter {
namespace {

    namespace di = debuginfo;

    // One "<artificial>" unit (a partition) holding f1 and f3 written in a.c and f2 written in b.c;
    // f2's code is partly inlined into f1, and f3 starts with code inlined from h.h.
    di::DebugInfo partition()
    {
        di::DebugInfo info;
        info.units = { di::CompileUnit { "<artificial>", "/build", "GNU C17", { { 0x1000, 0x1300 } } } };
        info.files = { "/src/a.c", "/src/b.c", "/src/h.h" };
        info.functions = {
            di::Function { "f1", "", { { 0x1000, 0x1100 } }, 0, 10, false, false },
            di::Function { "f2", "", { { 0x1100, 0x1200 } }, 0, 3, false, false },
            di::Function { "f3", "", { { 0x1200, 0x1300 } }, 0, 30, false, false },
        };
        info.lines = {
            { 0x1000, 0x1040, 0, 10, 0, false },
            { 0x1040, 0x1080, 1, 4, 0, true }, // b.c's f2, inlined into f1
            { 0x1080, 0x1100, 0, 12, 0, false },
            { 0x1100, 0x1200, 1, 3, 1, false },
            { 0x1200, 0x1220, 2, 7, 2, true }, // h.h's code first in f3: not its file
            { 0x1220, 0x1300, 0, 31, 2, false },
        };
        return info;
    }

    const CodeModule* named(const DebugModules& d, const std::string& name)
    {
        auto it = std::find_if(d.modules.begin(), d.modules.end(), [&](const CodeModule& m) { return m.name == name; });
        return it == d.modules.end() ? nullptr : &*it;
    }

    TEST(FileModules, ArtificialUnitsMakeTheAutomaticChoiceFiles)
    {
        di::DebugInfo info = partition();
        EXPECT_TRUE(hasArtificialUnits(info));
        EXPECT_EQ(chooseModuleKind(info, ModuleKind::Auto), ModuleKind::File);
        EXPECT_EQ(chooseModuleKind(info, ModuleKind::Unit), ModuleKind::Unit);
        info.units[0].name = "a.c";
        EXPECT_FALSE(hasArtificialUnits(info));
        EXPECT_EQ(chooseModuleKind(info, ModuleKind::Auto), ModuleKind::Unit);
    }

    TEST(FileModules, EachFunctionCountsForItsEntryLinesFile)
    {
        const DebugModules d = modulesFromDebugInfo(partition(), ModuleKind::Auto);
        ASSERT_EQ(d.modules.size(), 2u);
        const CodeModule* a = named(d, "a.c");
        const CodeModule* b = named(d, "b.c");
        ASSERT_TRUE(a && b);
        ASSERT_EQ(a->ranges.size(), 2u); // f1 and f3, with b.c's f2 between them
        EXPECT_EQ(a->ranges[0].start, 0x1000u);
        EXPECT_EQ(a->ranges[1].start, 0x1200u);
        EXPECT_EQ(a->size(), 0x200u);
        EXPECT_EQ(b->size(), 0x100u);
        EXPECT_TRUE(a->wholeFile);
        EXPECT_EQ(d.tables.size(), 2u);
        EXPECT_EQ(d.baseDirs[size_t(a->lineTable)], std::vector<std::string> { "/build" });
    }

    TEST(FileModules, InlinedCodeStaysWithTheCallerUnderTheCalleesFile)
    {
        const DebugModules d = modulesFromDebugInfo(partition(), ModuleKind::File);
        const CodeModule* a = named(d, "a.c");
        ASSERT_TRUE(a);
        const LineTable& t = d.tables.at(size_t(a->lineTable));
        EXPECT_EQ(t.origin, "DWARF line table");
        ASSERT_GE(t.files.size(), 3u);
        EXPECT_EQ(t.files[0], "/src/a.c");
        const auto inlined
            = std::find_if(t.ranges.begin(), t.ranges.end(), [](const LineSpan& s) { return s.start == 0x1040; });
        ASSERT_NE(inlined, t.ranges.end());
        EXPECT_EQ(t.files.at(size_t(inlined->file)), "/src/b.c");
        EXPECT_EQ(inlined->line, 4);
        ASSERT_GE(inlined->inlinedInto, 0);
        EXPECT_EQ(t.functions.at(size_t(inlined->inlinedInto)), "f1");
        // b.c's table has only f2's own lines.
        const LineTable& tb = d.tables.at(size_t(named(d, "b.c")->lineTable));
        ASSERT_EQ(tb.ranges.size(), 1u);
        EXPECT_EQ(tb.ranges[0].start, 0x1100u);
    }

    TEST(FileModules, FilesSharingABaseNameKeepTheirPaths)
    {
        di::DebugInfo info = partition();
        info.files[1] = "/other/a.c";
        const DebugModules d = modulesFromDebugInfo(info, ModuleKind::File);
        EXPECT_TRUE(named(d, "/src/a.c"));
        EXPECT_TRUE(named(d, "/other/a.c"));
    }

    TEST(FileModules, AFunctionWithoutLinesIsAModuleOfItsOwn)
    {
        di::DebugInfo info = partition();
        info.functions.push_back(di::Function { "_start", "", { { 0x900, 0x920 } }, -1, 0, true, false });
        std::sort(info.functions.begin(), info.functions.end(),
            [](const di::Function& x, const di::Function& y) { return x.ranges[0].start < y.ranges[0].start; });
        const DebugModules d = modulesFromDebugInfo(info, ModuleKind::File);
        const CodeModule* start = named(d, "_start");
        ASSERT_TRUE(start);
        EXPECT_FALSE(start->wholeFile);
        EXPECT_EQ(start->lineTable, -1);
        EXPECT_EQ(d.modules.size(), 3u);
    }

} // namespace
} // namespace ppe::formatter
