// Reading only the compile units that hold wanted addresses (Options::onlyWanted) gives exactly
// what the full read gives about those addresses: the same units (names, ranges), and in the
// units read the same functions, line rows and inlined code. On real two-unit programs built
// here by gcc (with .debug_aranges; DWARF 5 and 4; compressed sections) and clang (without).
#include "load_debug_info.h"
#include "ppe/debuginfo/debug_info.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <sstream>

namespace ppe::debuginfo {
namespace {

    DebugInfo loadWanted(const std::string& path, std::vector<AddressRange> wanted)
    {
        Options options;
        options.onlyWanted = true;
        options.wanted = std::move(wanted);
        return load(path, options);
    }

    bool within(const std::vector<AddressRange>& ranges, uint64_t address)
    {
        return std::any_of(
            ranges.begin(), ranges.end(), [&](const AddressRange& r) { return address >= r.start && address < r.end; });
    }

    // The units, each as text (without `detailed`, which only the lazy read sets).
    std::vector<std::string> unitsOf(const DebugInfo& info)
    {
        std::vector<std::string> out;
        for (const CompileUnit& u : info.units) {
            std::ostringstream text;
            text << u.name << ' ' << u.compDir << ' ' << u.producer << std::hex;
            for (const AddressRange& r : u.ranges)
                text << ' ' << r.start << '-' << r.end;
            out.push_back(text.str());
        }
        return out;
    }

    // The functions and line rows at addresses `keep` holds, as text (files and functions by name).
    std::vector<std::string> contentOf(const DebugInfo& info, const std::function<bool(uint64_t)>& keep)
    {
        std::vector<std::string> out;
        for (const Function& f : info.functions) {
            if (f.ranges.empty() || !keep(f.ranges.front().start))
                continue;
            std::ostringstream text;
            text << "function " << f.name << ' ' << f.linkageName << " unit " << f.unit << " line " << f.line
                 << " symbols " << f.fromSymbols << " frames " << f.fromFrames << std::hex;
            for (const AddressRange& r : f.ranges)
                text << ' ' << r.start << '-' << r.end;
            out.push_back(text.str());
        }
        for (const LineRange& l : info.lines) {
            if (!keep(l.start))
                continue;
            std::ostringstream text;
            text << "line " << std::hex << l.start << '-' << l.end << std::dec << ' '
                 << (l.file >= 0 ? info.files.at(size_t(l.file)) : "-") << ':' << l.line << " in "
                 << (l.function >= 0 ? info.functions.at(size_t(l.function)).name : "-") << " inlined " << l.inlined;
            out.push_back(text.str());
        }
        return out;
    }

    const Function* named(const DebugInfo& info, const std::string& name)
    {
        for (const Function& f : info.functions) {
            if (f.name.rfind(name, 0) == 0)
                return &f;
        }
        return nullptr;
    }

    // The lazy read of `wanted` against the full read: same units, and the same content in the
    // units it read; `expectRead` of the units (by name's end) are the ones read.
    void expectSameAsFull(
        const std::string& path, const std::vector<AddressRange>& wanted, const std::vector<std::string>& expectRead)
    {
        const DebugInfo full = load(path);
        const DebugInfo lazy = loadWanted(path, wanted);
        ASSERT_EQ(unitsOf(lazy), unitsOf(full));
        std::vector<AddressRange> detailed;
        std::vector<std::string> read;
        for (const CompileUnit& u : lazy.units) {
            if (u.detailed && !u.ranges.empty())
                read.push_back(std::filesystem::path(u.name).filename());
            if (u.detailed)
                detailed.insert(detailed.end(), u.ranges.begin(), u.ranges.end());
        }
        std::sort(read.begin(), read.end());
        EXPECT_EQ(read, expectRead);
        // Outside the units left out, everything is as the full read has it; the units left out
        // add no functions (no symbol functions either) and no lines.
        std::vector<AddressRange> skipped;
        for (const CompileUnit& u : lazy.units) {
            if (!u.detailed)
                skipped.insert(skipped.end(), u.ranges.begin(), u.ranges.end());
        }
        const auto kept = [&](uint64_t a) { return !within(skipped, a); };
        const std::vector<std::string> fromFull = contentOf(full, kept);
        EXPECT_EQ(contentOf(lazy, kept), fromFull);
        EXPECT_TRUE(contentOf(lazy, [&](uint64_t a) { return within(skipped, a); }).empty());
        // Line rows were compared where a unit was read.
        const auto lines
            = std::count_if(fromFull.begin(), fromFull.end(), [](const std::string& s) { return s[0] == 'l'; });
        EXPECT_EQ(lines > 0, !expectRead.empty());
        // Each wanted address: the same function and line row.
        for (const AddressRange& w : wanted) {
            const Function* a = full.functionAt(w.start);
            const Function* b = lazy.functionAt(w.start);
            ASSERT_EQ(a == nullptr, b == nullptr);
            if (a) {
                EXPECT_EQ(a->name, b->name);
            }
        }
    }

    std::vector<std::string> programs()
    {
        std::vector<std::string> out = { DI_SPLIT, DI_SPLIT_DWARF4, DI_SPLIT_ZLIB };
        for (const char* clang : { DI_SPLIT_CLANG, DI_SPLIT_CLANG_DWARF4 }) {
            if (*clang)
                out.emplace_back(clang);
        }
        return out;
    }

    // The first range of a function, by name.
    AddressRange entryOf(const std::string& path, const std::string& name)
    {
        const DebugInfo full = load(path);
        const Function* f = named(full, name);
        EXPECT_NE(f, nullptr) << path << ": no " << name;
        return f ? f->ranges.front() : AddressRange { 0, 0 };
    }

    TEST(DebuginfoLazy, ReadsOnlyTheUnitOfTheWantedAddress)
    {
        for (const std::string& path : programs()) {
            SCOPED_TRACE(path);
            const AddressRange a = entryOf(path, "splitA1");
            expectSameAsFull(path, { { a.start + 4, a.start + 8 } }, { "split_a.cc" });
            const AddressRange b = entryOf(path, "splitB1");
            expectSameAsFull(path, { { b.start, b.start + 1 } }, { "split_b.cc" });
        }
    }

    TEST(DebuginfoLazy, ReadsBothUnitsForAddressesInBoth)
    {
        for (const std::string& path : programs()) {
            SCOPED_TRACE(path);
            const AddressRange a = entryOf(path, "splitA2");
            const AddressRange b = entryOf(path, "splitB1");
            std::vector<AddressRange> wanted = { { a.start, a.start + 16 }, { b.start, b.start + 16 } };
            std::sort(wanted.begin(), wanted.end(),
                [](const AddressRange& x, const AddressRange& y) { return x.start < y.start; });
            expectSameAsFull(path, wanted, { "split_a.cc", "split_b.cc" });
        }
    }

    // A wanted range that straddles the end of one unit and the start of the next reads both.
    TEST(DebuginfoLazy, ARangeAcrossTwoUnitsReadsBoth)
    {
        for (const std::string& path : programs()) {
            SCOPED_TRACE(path);
            const DebugInfo full = load(path);
            // The end of a range of one unit, and the closest start of a range of another after it.
            uint64_t end = 0, next = UINT64_MAX;
            for (size_t u = 0; u < full.units.size(); ++u) {
                for (const AddressRange& r : full.units[u].ranges) {
                    for (size_t v = 0; v < full.units.size(); ++v) {
                        for (const AddressRange& s : full.units[v].ranges) {
                            if (v != u && s.start >= r.end && s.start - r.end < next - end)
                                end = r.end, next = s.start;
                        }
                    }
                }
            }
            ASSERT_NE(next, UINT64_MAX);
            expectSameAsFull(path, { { end - 1, next + 1 } }, { "split_a.cc", "split_b.cc" });
        }
    }

    TEST(DebuginfoLazy, NothingWantedReadsNoUnitButNamesThemAll)
    {
        for (const std::string& path : programs()) {
            SCOPED_TRACE(path);
            expectSameAsFull(path, {}, {});
        }
    }

} // namespace
} // namespace ppe::debuginfo
