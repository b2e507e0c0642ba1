// debuginfo over real programs (C++ with templates, inlining and a .cold part, DWARF 4 and 5, a
// shared library, a fully static program), checked against nm, readelf and addr2line.
#include "load_debug_info.h"
#include "ppe/debuginfo/debug_info.h"

#include "run_program.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace ppe::debuginfo {
namespace {

    using testing::runProgram;
    using testing::TempDir;

    struct NmSymbol {
        uint64_t address, size;
        char type;
        std::string name; // demangled
    };

    // `nm -S --defined-only -C`: the code symbols with a size.
    std::vector<NmSymbol> nmFunctions(const std::string& path)
    {
        const testing::RunResult r = runProgram({ "nm", "-S", "--defined-only", "-C", path });
        EXPECT_EQ(r.status, 0) << r.err;
        static const std::regex kLine(R"(^([0-9a-f]+) ([0-9a-f]+) ([tTwWi]) (.+)$)");
        std::vector<NmSymbol> out;
        std::istringstream in(r.out);
        std::string line;
        std::smatch m;
        while (std::getline(in, line)) {
            if (std::regex_match(line, m, kLine) && std::stoull(m[2], nullptr, 16) > 0)
                out.push_back({ std::stoull(m[1], nullptr, 16), std::stoull(m[2], nullptr, 16), m[3].str()[0], m[4] });
        }
        return out;
    }

    std::string readelfBuildId(const std::string& path)
    {
        const testing::RunResult r = runProgram({ "readelf", "-n", path });
        std::smatch m;
        return std::regex_search(r.out, m, std::regex(R"(Build ID: ([0-9a-f]+))")) ? m[1].str() : "";
    }

    const Function* named(const DebugInfo& info, const std::string& name)
    {
        for (const Function& f : info.functions) {
            if (f.name == name)
                return &f;
        }
        return nullptr;
    }

    std::string baseName(const std::string& path) { return std::filesystem::path(path).filename().string(); }

    class Programs : public ::testing::TestWithParam<const char*> { };

    // Every function nm knows is covered by a function of the same name (the body at its symbol's
    // address) whose ranges hold all its bytes; the build id is readelf's.
    TEST_P(Programs, FunctionsAndBuildIdAgreeWithNmAndReadelf)
    {
        const std::string path = GetParam();
        const DebugInfo info = load(path);
        EXPECT_EQ(info.buildId, readelfBuildId(path));
        EXPECT_EQ(info.debugPath, path);
        ASSERT_FALSE(info.units.empty());
        ASSERT_FALSE(info.functions.empty());
        size_t checked = 0;
        for (const NmSymbol& s : nmFunctions(path)) {
            const Function* f = info.functionAt(s.address);
            ASSERT_NE(f, nullptr) << s.name;
            const bool whole = std::any_of(f->ranges.begin(), f->ranges.end(),
                [&](const AddressRange& r) { return r.start <= s.address && s.address + s.size <= r.end; });
            EXPECT_TRUE(whole) << s.name;
            if (s.name.find(".cold") == std::string::npos && s.name.find("[clone") == std::string::npos
                && !f->fromSymbols) {
                EXPECT_EQ(f->name, s.name) << std::hex << s.address;
                ++checked;
            }
        }
        EXPECT_GE(checked, 2u);
        // Sorted and non-overlapping line ranges, each owned by a function.
        for (size_t i = 1; i < info.lines.size(); ++i)
            ASSERT_LE(info.lines[i - 1].end, info.lines[i].start);
    }

    INSTANTIATE_TEST_SUITE_P(
        Debuginfo, Programs, ::testing::Values(DI_CXX, DI_CXX_DWARF4, DI_LIB, DI_STATIC, DI_LAMBDAS));

    // The line of every 3rd line range is addr2line's (which reads the same table with other code).
    TEST(Debuginfo, LinesAgreeWithAddr2line)
    {
        for (const char* path : { DI_CXX, DI_CXX_DWARF4, DI_LIB }) {
            const DebugInfo info = load(path);
            std::vector<const LineRange*> sample;
            for (size_t i = 0; i < info.lines.size(); i += 3) {
                if (info.lines[i].line > 0)
                    sample.push_back(&info.lines[i]);
            }
            ASSERT_GE(sample.size(), 5u) << path;
            std::vector<std::string> argv = { "addr2line", "-e", path };
            for (const LineRange* l : sample) {
                std::ostringstream a;
                a << std::hex << "0x" << l->start;
                argv.push_back(a.str());
            }
            const testing::RunResult r = runProgram(argv);
            ASSERT_EQ(r.status, 0) << r.err;
            std::istringstream in(r.out);
            std::string line;
            for (const LineRange* l : sample) {
                ASSERT_TRUE(std::getline(in, line));
                const std::string expected = baseName(info.files[l->file]) + ":" + std::to_string(l->line);
                EXPECT_EQ(baseName(line.substr(0, line.find(' '))), expected) << path << std::hex << " 0x" << l->start;
            }
        }
    }

    TEST(Debuginfo, InlinedHeaderCodeAndTheColdPart)
    {
        for (const char* path : { DI_CXX, DI_CXX_DWARF4 }) {
            const DebugInfo info = load(path);
            const Function* sum = named(info, "numbers::sumSquares(int)");
            ASSERT_NE(sum, nullptr) << path;
            // The template's and the inline function's lines, inside sumSquares' code, marked inlined.
            std::set<int> headerLines;
            for (const LineRange& l : info.lines) {
                if (baseName(info.files[l.file]) == "helpers.h" && l.inlined && l.function >= 0
                    && &info.functions[l.function] == sum)
                    headerLines.insert(l.line);
            }
            EXPECT_FALSE(headerLines.empty()) << path;
            for (int line : headerLines) // Accumulator::add is line 7, mixBits lines 10-13
                EXPECT_TRUE(line == 7 || (line >= 10 && line <= 13)) << path << ": helpers.h:" << line;
            // checkedSum's cold part (its error path) belongs to it.
            const Function* checked = named(info, "numbers::checkedSum(long const*, int)");
            ASSERT_NE(checked, nullptr) << path;
            EXPECT_GE(checked->ranges.size(), 2u) << path;
            bool cold = false;
            for (const NmSymbol& s : nmFunctions(path)) {
                if (s.name.find("checkedSum") != std::string::npos && s.name.find(".cold") != std::string::npos) {
                    cold = true;
                    EXPECT_EQ(info.functionAt(s.address), checked) << path;
                }
            }
            EXPECT_TRUE(cold) << path << ": gcc made no .cold part";
            EXPECT_NE(named(info, "(anonymous namespace)::twice(int)"), nullptr) << path;
        }
    }

    TEST(Debuginfo, Dwarf4And5GiveTheSameFunctionsAndLines)
    {
        const DebugInfo five = load(DI_CXX);
        const DebugInfo four = load(DI_CXX_DWARF4);
        std::set<std::string> a, b;
        for (const Function& f : five.functions)
            a.insert(f.name);
        for (const Function& f : four.functions)
            b.insert(f.name);
        EXPECT_EQ(a, b);
        ASSERT_FALSE(five.units.empty());
        EXPECT_EQ(baseName(five.units.front().name), "cxx.cc");
        EXPECT_NE(five.units.front().producer.find("GNU C++"), std::string::npos);
    }

    TEST(Debuginfo, StaticProgramLibcFunctionsFromTheSymbolTable)
    {
        const DebugInfo info = load(DI_STATIC);
        const Function* collatz = named(info, "collatz");
        ASSERT_NE(collatz, nullptr);
        EXPECT_FALSE(collatz->fromSymbols);
        EXPECT_GE(collatz->unit, 0);
        const Function* printf = named(info, "printf");
        ASSERT_NE(printf, nullptr) << "libc.a has no DWARF here: its functions come from .symtab";
        EXPECT_TRUE(printf->fromSymbols);
    }

    TEST(Debuginfo, SharedLibrarySegmentsPlaceFileOffsets)
    {
        const DebugInfo info = load(DI_LIB);
        const Function* scale = named(info, "scale");
        ASSERT_NE(scale, nullptr);
        // The executable segment's offsets map to its addresses.
        const auto text
            = std::find_if(info.segments.begin(), info.segments.end(), [](const Segment& s) { return s.executable; });
        ASSERT_NE(text, info.segments.end());
        uint64_t address = 0;
        ASSERT_TRUE(info.addressOfFileOffset(text->fileOffset + 16, address));
        EXPECT_EQ(address, text->address + 16);
        EXPECT_FALSE(info.addressOfFileOffset(0, address) && address == 0 && !info.segments.front().executable);
    }

    // The same program stripped, with its DWARF in a split file: found by build id under a debug
    // root, or through .gnu_debuglink (CRC checked).
    TEST(Debuginfo, SplitDebugByBuildIdAndDebuglink)
    {
        TempDir dir;
        const DebugInfo whole = load(DI_CXX);
        const std::string id = whole.buildId;
        ASSERT_GT(id.size(), 2u);
        const std::string debug = dir.file("root/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug");
        std::filesystem::create_directories(std::filesystem::path(debug).parent_path());
        ASSERT_EQ(runProgram({ "objcopy", "--only-keep-debug", DI_CXX, debug }).status, 0);
        ASSERT_EQ(runProgram({ "objcopy", "--strip-all", DI_CXX, dir.file("stripped") }).status, 0);

        const DebugInfo none = load(dir.file("stripped"));
        EXPECT_EQ(none.debugPath, "");
        EXPECT_TRUE(none.units.empty());

        Options options;
        options.debugRoots = { dir.file("root") };
        const DebugInfo byId = load(dir.file("stripped"), options);
        EXPECT_EQ(byId.debugPath, debug);
        EXPECT_EQ(byId.buildId, id);
        EXPECT_EQ(byId.units.size(), whole.units.size());
        EXPECT_EQ(byId.functions.size(), whole.functions.size());
        EXPECT_EQ(byId.lines.size(), whole.lines.size());
        ASSERT_NE(named(byId, "numbers::sumSquares(int)"), nullptr);

        // .gnu_debuglink next to the file.
        ASSERT_EQ(runProgram({ "objcopy", "--only-keep-debug", DI_CXX, dir.file("cxx.debug") }).status, 0);
        ASSERT_EQ(runProgram({ "objcopy", "--strip-debug", "--add-gnu-debuglink=" + dir.file("cxx.debug"), DI_CXX,
                                 dir.file("linked") })
                      .status,
            0);
        options.debugRoots = { dir.file("nothing-here") };
        const DebugInfo linked = load(dir.file("linked"), options);
        EXPECT_EQ(linked.debugPath, dir.file("cxx.debug"));
        EXPECT_EQ(linked.lines.size(), whole.lines.size());
        // A debug file whose CRC is not the link's is not used.
        std::ofstream(dir.file("cxx.debug"), std::ios::app) << "changed";
        const DebugInfo stale = load(dir.file("linked"), options);
        EXPECT_EQ(stale.debugPath, "");
        EXPECT_TRUE(stale.units.empty());
    }

    TEST(Debuginfo, BadInputIsAnErrorNamingTheFile)
    {
        TempDir dir;
        std::ofstream(dir.file("empty")).flush();
        std::ofstream(dir.file("text")) << "this is not an ELF file\n";
        std::ifstream original(DI_CXX, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(original)), std::istreambuf_iterator<char>());
        std::ofstream(dir.file("head"), std::ios::binary) << bytes.substr(0, 40); // inside the ELF header
        struct Case {
            std::string path, message;
        };
        for (const Case& c : { Case { dir.file("missing"), "no such file" }, Case { dir.path(), "a directory" },
                 Case { dir.file("empty"), "empty file" }, Case { dir.file("text"), "not an ELF file" },
                 Case { dir.file("head"), "" } }) {
            auto info = loadDebugInfo(c.path);
            ASSERT_FALSE(info.ok()) << c.path;
            EXPECT_EQ(info.error().file, c.path);
            EXPECT_NE(info.error().str().find(c.message), std::string::npos) << info.error().str();
            EXPECT_EQ(info.error().str().find('\n'), std::string::npos) << info.error().str();
        }
        // Cut anywhere (section headers at the end are lost, DWARF cut short): an error or what could
        // be read, never a crash.
        for (size_t cut : { bytes.size() / 4, bytes.size() / 2, bytes.size() * 3 / 4, bytes.size() - 100 }) {
            const std::string path = dir.file("cut" + std::to_string(cut));
            std::ofstream(path, std::ios::binary) << bytes.substr(0, cut);
            auto info = loadDebugInfo(path);
            if (!info.ok()) {
                EXPECT_EQ(info.error().file, path);
            }
        }
        // DWARF damaged in place: warnings, and the symbols still read.
        std::string damaged = bytes;
        for (size_t i = damaged.size() / 2; i < damaged.size() * 3 / 4; i += 97)
            damaged[i] = char(0xff);
        std::ofstream(dir.file("damaged"), std::ios::binary) << damaged;
        auto info = loadDebugInfo(dir.file("damaged"));
        if (info.ok()) {
            EXPECT_FALSE(info->functions.empty());
        }
    }

    // Units, functions and lines as comparable text (file names, not indexes).
    std::vector<std::string> dwarfSummary(const DebugInfo& info)
    {
        std::vector<std::string> out;
        for (const CompileUnit& u : info.units)
            out.push_back("unit " + u.name + " " + std::to_string(u.ranges.size()));
        for (const Function& f : info.functions)
            out.push_back("function " + f.name + " " + std::to_string(f.ranges.front().start) + " "
                + std::to_string(f.line) + " " + std::to_string(f.unit) + (f.fromSymbols ? " symbol" : ""));
        for (const LineRange& l : info.lines)
            out.push_back("line " + std::to_string(l.start) + "-" + std::to_string(l.end) + " " + info.files.at(l.file)
                + ":" + std::to_string(l.line) + " " + std::to_string(l.function) + (l.inlined ? " inlined" : ""));
        return out;
    }

    void expectSameDwarf(const DebugInfo& compressed, const DebugInfo& plain, const std::string& what)
    {
        EXPECT_TRUE(compressed.warnings.empty()) << what << ": " << compressed.warnings.front();
        EXPECT_FALSE(compressed.lines.empty()) << what;
        EXPECT_FALSE(compressed.units.empty()) << what;
        EXPECT_EQ(dwarfSummary(compressed), dwarfSummary(plain)) << what;
    }

    // Compressed debug sections (gcc -gz, objcopy --compress-debug-sections; Debian's -dbg packages)
    // give what the uncompressed build gives: SHF_COMPRESSED and GNU's .zdebug_*, in executables,
    // shared libraries and split debug files.
    TEST(Debuginfo, CompressedDebugSectionsGiveTheSameUnitsFunctionsAndLines)
    {
        const DebugInfo plain = load(DI_CXX);
        expectSameDwarf(load(DI_CXX_ZLIB), plain, "gcc -gz=zlib");
        expectSameDwarf(load(DI_CXX_ZLIB_GNU), plain, "gcc -gz=zlib-gnu");
        expectSameDwarf(load(DI_LIB_ZLIB), load(DI_LIB), "shared library, gcc -gz=zlib");
        TempDir dir;
        for (const std::string style : { "zlib", "zlib-gnu" }) {
            const std::string path = dir.file("cxx-" + style);
            ASSERT_EQ(runProgram({ "objcopy", "--compress-debug-sections=" + style, DI_CXX, path }).status, 0);
            expectSameDwarf(load(path), plain, "objcopy --compress-debug-sections=" + style);
        }
        const std::string& id = plain.buildId;
        const std::string debug = dir.file("root/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug");
        std::filesystem::create_directories(std::filesystem::path(debug).parent_path());
        ASSERT_EQ(
            runProgram({ "objcopy", "--only-keep-debug", "--compress-debug-sections=zlib", DI_CXX, debug }).status, 0);
        ASSERT_EQ(runProgram({ "objcopy", "--strip-all", DI_CXX, dir.file("stripped") }).status, 0);
        Options options;
        options.debugRoots = { dir.file("root") };
        const DebugInfo split = load(dir.file("stripped"), options);
        EXPECT_EQ(split.debugPath, debug);
        EXPECT_EQ(split.lines.size(), plain.lines.size());
        EXPECT_EQ(split.units.size(), plain.units.size());
    }

    // Lambdas are named as nm -C, c++filt and perf name them (the Programs tests compare every
    // function with nm -C), not `main::'lambda0'(text::Piece)` as LLVM 14's demangler would.
    TEST(Debuginfo, LambdaNamesAreTheGnuToolsOnes)
    {
        const DebugInfo info = load(DI_LAMBDAS);
        std::set<std::string> lambdas;
        for (const Function& f : info.functions) {
            if (f.name.find("lambda") != std::string::npos)
                lambdas.insert(f.name);
        }
        EXPECT_TRUE(lambdas.count("main::{lambda(text::Piece)#1}::operator()(text::Piece) const"))
            << ::testing::PrintToString(lambdas);
        EXPECT_TRUE(lambdas.count("main::{lambda(text::Piece)#2}::operator()(text::Piece) const"))
            << ::testing::PrintToString(lambdas);
        EXPECT_NE(named(info, "long twice<long>(long)"), nullptr);
    }

    // gfortran's names as gdb shows them: the module procedure __kern_MOD_smooth is kern::smooth, the
    // main program MAIN__ is called by its own name; the symbol stays the linkage name.
    TEST(Debuginfo, FortranModuleProceduresAndTheMainProgram)
    {
        if (std::string(DI_FORTRAN).empty())
            GTEST_SKIP() << "no Fortran compiler was found when the tests were configured";
        const DebugInfo info = load(DI_FORTRAN);
        const Function* smooth = named(info, "kern::smooth");
        ASSERT_NE(smooth, nullptr);
        EXPECT_EQ(smooth->linkageName, "__kern_MOD_smooth");
        EXPECT_FALSE(smooth->fromSymbols);
        const Function* program = named(info, "heat");
        ASSERT_NE(program, nullptr);
        EXPECT_EQ(program->linkageName, "MAIN__");
        EXPECT_EQ(named(info, "MAIN__"), nullptr);
        EXPECT_EQ(named(info, "__kern_MOD_smooth"), nullptr);

        // Without DWARF the module procedure's symbol reads the same way.
        TempDir dir;
        ASSERT_EQ(runProgram({ "objcopy", "--strip-debug", DI_FORTRAN, dir.file("stripped") }).status, 0);
        const DebugInfo symbols = load(dir.file("stripped"));
        ASSERT_NE(named(symbols, "kern::smooth"), nullptr);
        EXPECT_TRUE(named(symbols, "kern::smooth")->fromSymbols);
    }

    // zstd-compressed debug sections (objcopy --compress-debug-sections=zstd): LLVM 14 cannot
    // decompress them, so the symbols, and a warning that names the file and says why.
    TEST(Debuginfo, ZstdCompressedDebugSectionsGiveSymbolsAndAWarning)
    {
        TempDir dir;
        const std::string path = dir.file("cxx-zstd");
        if (runProgram({ "objcopy", "--compress-debug-sections=zstd", DI_CXX, path }).status != 0)
            GTEST_SKIP() << "this objcopy cannot compress with zstd";
        const DebugInfo info = load(path);
        ASSERT_EQ(info.warnings.size(), 1u) << ::testing::PrintToString(info.warnings);
        EXPECT_EQ(info.warnings[0],
            path
                + ": debug sections compressed with zstd, which LLVM 14 cannot read: DWARF not read (objcopy "
                  "--decompress-debug-sections makes them readable)");
        EXPECT_TRUE(info.units.empty());
        EXPECT_NE(named(info, "numbers::sumSquares(int)"), nullptr) << "from .symtab";
    }

    // A stripped shared library: its exported functions from .dynsym, and code without any symbol
    // split into functions by its .eh_frame FDEs, named by their address (as perf does).
    TEST(Debuginfo, StrippedLibraryCodeWithoutSymbolsIsSplitByFrameDescriptions)
    {
        TempDir dir;
        ASSERT_EQ(runProgram({ "objcopy", "--strip-all", DI_LIB, dir.file("lib.so") }).status, 0);
        const DebugInfo info = load(dir.file("lib.so"));
        EXPECT_TRUE(info.units.empty());
        const Function* scale = named(info, "scale");
        ASSERT_NE(scale, nullptr);
        EXPECT_TRUE(scale->fromSymbols);
        EXPECT_FALSE(scale->fromFrames);
        uint64_t helper = 0;
        for (const NmSymbol& s : nmFunctions(DI_LIB)) {
            if (s.name == "helper")
                helper = s.address;
        }
        ASSERT_NE(helper, 0u);
        std::ostringstream name;
        name << "func_0x" << std::hex << helper;
        const Function* unnamed = info.functionAt(helper);
        ASSERT_NE(unnamed, nullptr);
        EXPECT_EQ(unnamed->name, name.str());
        EXPECT_TRUE(unnamed->fromFrames);
        EXPECT_EQ(unnamed->ranges.front().start, helper);
        // Named code is never covered twice.
        for (size_t i = 1; i < info.functions.size(); ++i)
            EXPECT_LE(info.functions[i - 1].ranges.back().end, info.functions[i].ranges.front().start)
                << info.functions[i].name;
    }

    // A compressed section whose header claims more than deflate can hold (found by fuzz/fuzz_elf:
    // LLVM allocated the 64 GiB claimed): one warning, the symbols, no DWARF.
    TEST(Debuginfo, ImpossibleDecompressedSizeIsAWarning)
    {
        const testing::RunResult sections = runProgram({ "readelf", "-SW", DI_CXX_ZLIB });
        std::smatch m;
        ASSERT_TRUE(
            std::regex_search(sections.out, m, std::regex(R"(\.debug_info\s+PROGBITS\s+[0-9a-f]+\s+([0-9a-f]+))")))
            << sections.out;
        std::ifstream in(DI_CXX_ZLIB, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const uint64_t claimed = uint64_t(1) << 36;
        std::memcpy(&bytes[std::stoul(m[1], nullptr, 16) + 8], &claimed, sizeof claimed); // Elf64_Chdr::ch_size
        TempDir dir;
        std::ofstream(dir.file("cxx"), std::ios::binary) << bytes;
        const DebugInfo info = load(dir.file("cxx"));
        ASSERT_EQ(info.warnings.size(), 1u) << ::testing::PrintToString(info.warnings);
        EXPECT_NE(
            info.warnings[0].find(dir.file("cxx") + ": .debug_info: damaged compressed section ("), std::string::npos)
            << info.warnings[0];
        EXPECT_TRUE(info.units.empty());
        EXPECT_NE(named(info, "numbers::sumSquares(int)"), nullptr) << "from .symtab";
    }

    // Files the fuzzer found (test/data/debuginfo/README.md): a result or an error, never a crash.
    TEST(Debuginfo, FuzzerFindingsAreReadWithoutACrash)
    {
        for (const char* name : { "bad-symtab-entsize.elf", "bad-line-table-form.elf", "bad-abbreviation.elf" }) {
            const std::string path = std::string(DI_DATA) + "/" + name;
            auto info = loadDebugInfo(path);
            if (!info.ok()) {
                EXPECT_EQ(info.error().file, path);
            }
        }
        auto info = loadDebugInfo(std::string(DI_DATA) + "/bad-line-table-form.elf");
        ASSERT_TRUE(info.ok());
        const bool warned = std::any_of(info->warnings.begin(), info->warnings.end(),
            [](const std::string& w) { return w.find("damaged header, not read") != std::string::npos; });
        EXPECT_TRUE(warned);
        // LLVM itself crashes on this one: read in a child process, then symbols only, with a warning.
        auto crashed = loadDebugInfo(std::string(DI_DATA) + "/bad-abbreviation.elf");
        ASSERT_TRUE(crashed.ok()) << crashed.error().str();
        EXPECT_FALSE(crashed->functions.empty());
        EXPECT_TRUE(crashed->units.empty());
        const bool said = std::any_of(crashed->warnings.begin(), crashed->warnings.end(),
            [](const std::string& w) { return w.find("reading its DWARF failed") != std::string::npos; });
        EXPECT_TRUE(said);
    }

    // Issue 38: the files LLVM 14 itself crashes on (llvm-dwarfdump-14 too) are regression cases of
    // the isolated reader, read as ppeout reads an image and a shared object: symbols, and a
    // warning naming the file, whatever the child died of. fuzz_elf no longer reports them.
    TEST(Debuginfo, TheIsolatedReaderSurvivesLlvmsOwnCrashes)
    {
        for (const char* name : { "bad-abbreviation.elf", "llvm14-die-past-debug-info.elf" }) {
            const std::string path = std::string(DI_DATA) + "/" + name;
            Options image;
            image.onlyWanted = true;
            image.wanted = { { 0, UINT64_MAX } };
            Options object;
            object.onlyWanted = true;
            object.wantedOffsets.emplace();
            for (uint64_t offset = 0; offset < std::filesystem::file_size(path); offset += 16)
                object.wantedOffsets->push_back(offset); // samples everywhere: every unit read
            for (const Options& options : { Options(), image, object }) {
                auto info = loadDebugInfo(path, options);
                ASSERT_TRUE(info.ok()) << info.error().str();
                EXPECT_TRUE(info->units.empty()) << name;
                EXPECT_FALSE(info->functions.empty()) << name << ": the symbols";
                const std::string said = path + ": reading its DWARF failed (damaged debug information?): symbols only";
                EXPECT_NE(std::find(info->warnings.begin(), info->warnings.end(), said), info->warnings.end())
                    << name << ": " << ::testing::PrintToString(info->warnings);
            }
        }
    }

} // namespace
} // namespace ppe::debuginfo
