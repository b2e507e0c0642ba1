// A shared object read as ppeout reads it (Options::onlyWanted with Options::wantedOffsets): only
// the compile units that hold a wanted file offset give their functions and line rows, and at
// each wanted offset the function and the source line are those of the whole read. On a real
// shared library of two units built here (di_split_lib: the lazy-reading tests' sources).
#include "ppe/debuginfo/debug_info.h"
#include "run_program.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

namespace ppe::debuginfo {
namespace {

    DebugInfo load(const Options& options)
    {
        auto info = loadDebugInfo(DI_SPLIT_LIB, options);
        EXPECT_TRUE(info.ok()) << (info.ok() ? "" : info.error().str());
        return info.ok() ? std::move(info.value()) : DebugInfo {};
    }

    DebugInfo loadAtOffsets(const std::vector<uint64_t>& offsets, bool onlyWanted)
    {
        Options options;
        options.onlyWanted = onlyWanted;
        options.wantedOffsets = offsets;
        return load(options);
    }

    // The file offset `address` is loaded from.
    uint64_t offsetOf(const DebugInfo& info, uint64_t address)
    {
        for (const Segment& s : info.segments) {
            if (s.executable && address >= s.address && address < s.address + s.fileSize)
                return address - s.address + s.fileOffset;
        }
        ADD_FAILURE() << std::hex << address << " is in no executable segment";
        return 0;
    }

    const Function& named(const DebugInfo& info, const std::string& name)
    {
        for (const Function& f : info.functions) {
            if (f.name.rfind(name, 0) == 0)
                return f;
        }
        static const Function none;
        ADD_FAILURE() << "no function " << name;
        return none;
    }

    // What a report says of `address`: its function and its source line ("-" for none).
    std::string placeOf(const DebugInfo& info, uint64_t address)
    {
        const Function* f = info.functionAt(address);
        std::string text = f ? f->name : "-";
        auto row = std::upper_bound(
            info.lines.begin(), info.lines.end(), address, [](uint64_t a, const LineRange& l) { return a < l.start; });
        if (row != info.lines.begin() && std::prev(row)->end > address) {
            const LineRange& l = *std::prev(row);
            text += " " + std::filesystem::path(info.files.at(size_t(l.file))).filename().string() + ":"
                + std::to_string(l.line);
        }
        return text;
    }

    // The names of the units whose functions and lines were read.
    std::vector<std::string> detailedUnits(const DebugInfo& info)
    {
        std::vector<std::string> out;
        for (const CompileUnit& u : info.units) {
            if (u.detailed && !u.ranges.empty())
                out.push_back(std::filesystem::path(u.name).filename());
        }
        std::sort(out.begin(), out.end());
        return out;
    }

    // Every few bytes of the function's code, by address.
    std::vector<uint64_t> addressesIn(const Function& f)
    {
        std::vector<uint64_t> out;
        for (const AddressRange& r : f.ranges) {
            for (uint64_t a = r.start; a < r.end; a += 3)
                out.push_back(a);
        }
        return out;
    }

    TEST(DebuginfoObjectOffsets, ReadsOnlyTheUnitsAtTheOffsetsAndNamesThemAsTheWholeRead)
    {
        const DebugInfo whole = load({});
        ASSERT_EQ(detailedUnits(whole), (std::vector<std::string> { "split_a.cc", "split_b.cc" }));
        for (const char* function : { "splitA1", "splitA2", "splitB1" }) {
            SCOPED_TRACE(function);
            const std::vector<uint64_t> addresses = addressesIn(named(whole, function));
            ASSERT_FALSE(addresses.empty());
            std::vector<uint64_t> offsets;
            for (uint64_t a : addresses)
                offsets.push_back(offsetOf(whole, a));
            const DebugInfo lazy = loadAtOffsets(offsets, true);
            const std::string unit = function[5] == 'A' ? "split_a.cc" : "split_b.cc";
            EXPECT_EQ(detailedUnits(lazy), std::vector<std::string> { unit });
            size_t withLine = 0;
            for (uint64_t a : addresses) {
                EXPECT_EQ(placeOf(lazy, a), placeOf(whole, a)) << std::hex << a;
                withLine += placeOf(whole, a).find(':') != std::string::npos;
            }
            EXPECT_GT(withLine, 0u); // lines were compared, not only names
        }
    }

    // Offsets with onlyWanted unset: the DWARF is read whole (modules by source file need it).
    TEST(DebuginfoObjectOffsets, WithoutOnlyWantedEveryUnitIsRead)
    {
        const DebugInfo whole = load({});
        const uint64_t a = named(whole, "splitA1").ranges.front().start;
        EXPECT_EQ(detailedUnits(loadAtOffsets({ offsetOf(whole, a) }, false)),
            (std::vector<std::string> { "split_a.cc", "split_b.cc" }));
    }

    // An offset outside the executable segments (or none) reads no unit in detail, names them all.
    TEST(DebuginfoObjectOffsets, NoOffsetInCodeReadsNoUnit)
    {
        const DebugInfo lazy = loadAtOffsets({ 0 }, true);
        EXPECT_TRUE(detailedUnits(lazy).empty());
        EXPECT_EQ(lazy.units.size(), load({}).units.size());
    }

    // A library without DWARF (di_frames_lib without its debug sections: 90 static functions and
    // an exported one, by their symbols): read at the offsets of two, it gives those two, named as
    // the whole read names them, and none of the other symbols (which would all be demangled and
    // sent back).
    TEST(DebuginfoObjectOffsets, SymbolsOnlyAtTheOffsets)
    {
        const testing::TempDir dir;
        const std::string path = dir.file("symbols.so");
        const testing::RunResult stripped = testing::runProgram({ "objcopy", "--strip-debug", DI_FRAMES_LIB, path });
        ASSERT_EQ(stripped.status, 0) << stripped.err;
        auto read = [&](const Options& options) {
            auto info = loadDebugInfo(path, options);
            EXPECT_TRUE(info.ok()) << (info.ok() ? "" : info.error().str());
            return info.ok() ? std::move(info.value()) : DebugInfo {};
        };
        const DebugInfo whole = read({});
        ASSERT_TRUE(whole.units.empty());
        ASSERT_GT(whole.functions.size(), 80u);
        std::vector<uint64_t> addresses, offsets;
        for (const char* function : { "f15", "f72" }) {
            for (uint64_t a : addressesIn(named(whole, function))) {
                addresses.push_back(a);
                offsets.push_back(offsetOf(whole, a));
            }
        }
        ASSERT_FALSE(addresses.empty());
        Options options;
        options.onlyWanted = true;
        options.wantedOffsets = offsets;
        const DebugInfo lazy = read(options);
        EXPECT_EQ(lazy.functions.size(), 2u);
        for (uint64_t a : addresses)
            EXPECT_EQ(placeOf(lazy, a), placeOf(whole, a)) << std::hex << a;
        options.onlyWanted = false; // the whole read's functions
        EXPECT_EQ(read(options).functions.size(), whole.functions.size());
    }

} // namespace
} // namespace ppe::debuginfo
