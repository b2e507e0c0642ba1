// Code that only .eh_frame describes (a stripped library's static functions), named through
// .eh_frame_hdr's search table for the sampled addresses alone: the same names and ranges as the
// decode of the whole .eh_frame, and the whole decode again where the table is missing or damaged.
#include "load_debug_info.h"
#include "ppe/debuginfo/debug_info.h"

#include "run_program.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

namespace ppe::debuginfo {
namespace {

    using testing::runProgram;
    using testing::TempDir;

    // DI_FRAMES_LIB stripped of every symbol but the exported one, in `dir`.
    std::string strippedLibrary(const TempDir& dir)
    {
        const std::string path = dir.file("frames.so");
        const testing::RunResult r = runProgram({ "objcopy", "--strip-all", DI_FRAMES_LIB, path });
        EXPECT_EQ(r.status, 0) << r.err;
        return path;
    }

    // The executable segment's code (the one this library has).
    Segment codeSegment(const DebugInfo& info)
    {
        for (const Segment& s : info.segments) {
            if (s.executable)
                return s;
        }
        ADD_FAILURE() << "no executable segment";
        return Segment {};
    }

    // The function at `address` as text: name and ranges, or "-".
    std::string describe(const DebugInfo& info, uint64_t address)
    {
        const Function* f = info.functionAt(address);
        if (!f)
            return "-";
        std::ostringstream text;
        text << f->name << " frames " << f->fromFrames << std::hex;
        for (const AddressRange& r : f->ranges)
            text << ' ' << r.start << '-' << r.end;
        return text.str();
    }

    size_t frameFunctions(const DebugInfo& info)
    {
        size_t n = 0;
        for (const Function& f : info.functions)
            n += f.fromFrames;
        return n;
    }

    // Every `step`th byte of the code segment, as file offsets.
    std::vector<uint64_t> offsetsEvery(const Segment& code, uint64_t step)
    {
        std::vector<uint64_t> offsets;
        for (uint64_t o = code.fileOffset; o < code.fileOffset + code.fileSize; o += step)
            offsets.push_back(o);
        return offsets;
    }

    // `read`'s function at each offset is `whole`'s.
    void expectSameAt(const DebugInfo& whole, const DebugInfo& read, const std::vector<uint64_t>& offsets)
    {
        size_t named = 0;
        for (uint64_t offset : offsets) {
            uint64_t address = 0;
            ASSERT_TRUE(whole.addressOfFileOffset(offset, address));
            EXPECT_EQ(describe(read, address), describe(whole, address)) << std::hex << address;
            named += whole.functionAt(address) && whole.functionAt(address)->fromFrames;
        }
        EXPECT_GT(named, 0u) << "no sampled address was in code only .eh_frame names";
    }

    TEST(FrameLookup, SampledOffsetsGetTheNamesOfTheWholeDecode)
    {
        TempDir dir;
        const std::string lib = strippedLibrary(dir);
        const DebugInfo whole = load(lib);
        ASSERT_GT(frameFunctions(whole), 80u) << "the library's static functions come from .eh_frame";
        const Segment code = codeSegment(whole);
        for (uint64_t step : { 1u, 7u, 397u }) {
            Options options;
            options.wantedOffsets = offsetsEvery(code, step);
            const DebugInfo read = load(lib, options);
            expectSameAt(whole, read, *options.wantedOffsets);
            if (step == 397) { // a few samples: a few FDEs read, not all of them
                EXPECT_LT(frameFunctions(read), frameFunctions(whole) / 2);
            }
        }
    }

    // As ppeout reads its image: wanted bins of 512 bytes, each holding several functions.
    TEST(FrameLookup, WantedBinsGetTheNamesOfTheWholeDecode)
    {
        TempDir dir;
        const std::string lib = strippedLibrary(dir);
        const DebugInfo whole = load(lib);
        const Segment code = codeSegment(whole);
        Options options;
        options.onlyWanted = true;
        std::vector<uint64_t> inside;
        for (uint64_t a = code.address; a + 512 <= code.address + code.fileSize; a += 1536) {
            options.wanted.push_back({ a, a + 512 });
            for (uint64_t b = a; b < a + 512; b += 3)
                inside.push_back(b - code.address + code.fileOffset);
        }
        ASSERT_FALSE(options.wanted.empty());
        expectSameAt(whole, load(lib, options), inside);
    }

    // The file offset of `name`'s section, from readelf.
    uint64_t sectionOffset(const std::string& path, const std::string& name)
    {
        const testing::RunResult r = runProgram({ "readelf", "-SW", path });
        std::smatch m;
        const std::regex line(
            "\\] " + std::regex_replace(name, std::regex("\\."), "\\.") + R"( +\S+ +[0-9a-f]+ ([0-9a-f]+) )");
        return std::regex_search(r.out, m, line) ? std::stoull(m[1], nullptr, 16) : 0;
    }

    // Without a usable table (none; one whose FDE addresses point outside .eh_frame; one whose
    // locations are wrong) every FDE is decoded, and the names are the same.
    TEST(FrameLookup, MissingOrDamagedTableFallsBackToTheWholeDecode)
    {
        TempDir dir;
        const std::string lib = strippedLibrary(dir);
        const DebugInfo whole = load(lib);
        Options options;
        options.wantedOffsets = offsetsEvery(codeSegment(whole), 5);
        const std::string none = dir.file("none.so");
        ASSERT_EQ(runProgram({ "objcopy", "--remove-section", ".eh_frame_hdr", lib, none }).status, 0);
        expectSameAt(whole, load(none, options), *options.wantedOffsets);

        const uint64_t hdr = sectionOffset(lib, ".eh_frame_hdr");
        ASSERT_NE(hdr, 0u);
        for (int field : { 1, 0 }) { // each entry's FDE address, then its initial location
            std::ifstream in(lib, std::ios::binary);
            std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            for (uint64_t at = hdr + 12 + 4 * uint64_t(field); at + 4 <= hdr + 12 + 8 * 40; at += 8)
                bytes.replace(at, 4, "\x7f\xff\xff\x7f", 4);
            const std::string damaged = dir.file("damaged" + std::to_string(field) + ".so");
            std::ofstream(damaged, std::ios::binary) << bytes;
            expectSameAt(whole, load(damaged, options), *options.wantedOffsets);
        }
    }

} // namespace
} // namespace ppe::debuginfo
