// ppe-arc's ELF reading without LLVM (elf_image.h), on real executables for x86-64 and ARC HS,
// and the library list and auxiliary vector (libraries.h).
#include "ppe/arc/elf_image.h"
#include "ppe/arc/libraries.h"

#include <elf.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sys/resource.h>
#include <sys/stat.h>

using namespace ppe::arc;

TEST(ElfImage, ReadsTheNativeLoop)
{
    auto elf = readElfImage(PPE_LOOP_NATIVE);
    ASSERT_TRUE(elf.ok()) << elf.error().str();
    EXPECT_TRUE(elf->is64);
    EXPECT_FALSE(elf->bigEndian);
    EXPECT_FALSE(elf->shared); // built -no-pie
    EXPECT_EQ(machineName(elf->machine), "x86_64");
    EXPECT_EQ(machineGranularity(elf->machine), 1u);
    EXPECT_EQ(elf->buildId.size(), 20u); // Debian's gcc links with --build-id (SHA-1)
    uint64_t start = 0, end = 0, offset = 0;
    ASSERT_TRUE(elf->executableRange(start, end));
    EXPECT_LE(start, elf->entry);
    EXPECT_LT(elf->entry, end);
    EXPECT_TRUE(elf->fileOffsetOf(elf->entry, offset));
}

TEST(ElfImage, ReadsAnArcExecutable)
{
    if (std::string(PPE_LOOP_ARC).empty())
        GTEST_SKIP() << "arc-linux-gnu-gcc-12 is not installed (Debian: gcc-12-arc-linux-gnu)";
    auto elf = readElfImage(PPE_LOOP_ARC);
    ASSERT_TRUE(elf.ok()) << elf.error().str();
    EXPECT_FALSE(elf->is64);
    EXPECT_EQ(elf->machine, EM_ARCV2);
    EXPECT_EQ(machineName(elf->machine), "arc");
    EXPECT_EQ(machineGranularity(elf->machine), 2u);
    uint64_t start = 0, end = 0;
    ASSERT_TRUE(elf->executableRange(start, end));
    EXPECT_LE(start, elf->entry);
    EXPECT_LT(elf->entry, end);
}

// The functions of the symbol table, as `nm` lists them (type T/t with a size: nm -S).
std::map<std::string, std::pair<uint64_t, uint64_t>> nmFunctions(const std::string& nm, const std::string& elf)
{
    std::map<std::string, std::pair<uint64_t, uint64_t>> out;
    FILE* pipe = ::popen((nm + " -S --defined-only " + elf).c_str(), "r");
    if (!pipe)
        return out;
    char line[512];
    while (std::fgets(line, sizeof(line), pipe)) {
        unsigned long long address = 0, size = 0;
        char type = 0, name[400] = {};
        if (std::sscanf(line, "%llx %llx %c %399s", &address, &size, &type, name) == 4 && (type == 'T' || type == 't'))
            out[name] = { address, size };
    }
    ::pclose(pipe);
    return out;
}

TEST(ElfFunctions, AreTheFunctionsNmLists)
{
    for (const auto& [elf, nm] :
        { std::pair<std::string, std::string> { PPE_LOOP_NATIVE, "nm" }, { PPE_LOOP_ARC, "arc-linux-gnu-nm" } }) {
        if (elf.empty())
            continue; // no ARC compiler: ReadsAnArcExecutable says so
        auto functions = readElfFunctions(elf);
        ASSERT_TRUE(functions) << functions.error().str();
        const auto expected = nmFunctions(nm, elf);
        ASSERT_FALSE(expected.empty()) << nm << " listed nothing for " << elf;
        size_t found = 0;
        for (const ElfFunction& f : *functions) {
            auto it = expected.find(f.name);
            if (it == expected.end())
                continue; // nm -S prints one name per address; aliases differ
            ++found;
            EXPECT_EQ(f.address, it->second.first) << f.name;
            EXPECT_EQ(f.size, it->second.second) << f.name;
        }
        EXPECT_EQ(found, expected.size()) << elf;
        EXPECT_TRUE(std::is_sorted(functions->begin(), functions->end(),
            [](const ElfFunction& a, const ElfFunction& b) { return a.address < b.address; }));
    }
    EXPECT_FALSE(readElfFunctions("/dev/null"));
}

TEST(ElfImage, ErrorsNameTheFile)
{
    auto missing = readElfImage("/nonexistent/prog");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().str(), "/nonexistent/prog: cannot open: No such file or directory");
    auto text = readElfImage(PPE_GDB_REMOTE_DIR "/loop.c");
    ASSERT_FALSE(text.ok());
    EXPECT_EQ(text.error().message, "not an ELF file");
}

TEST(Libraries, ParsesGdbserversList)
{
    // As gdbserver 13 answers qXfer:libraries-svr4:read for a program linked with libm.
    const char* xml = R"(<library-list-svr4 version="1.0" main-lm="0x7ffff7ffe2e0">)"
                      R"(<library name="/lib/x86_64-linux-gnu/libm.so.6" lm="0x7ffff7fc3690" l_addr="0x7ffff7e9b000" )"
                      R"(l_ld="0x7ffff7f7e8a0" lmid="0x0"/>)"
                      R"(<library name="/lib64/ld-linux-x86-64.so.2" lm="0x7ffff7ffdaf0" l_addr="0x7ffff7fc5000" )"
                      R"(l_ld="0x7ffff7ffce70" lmid="0x0"/></library-list-svr4>)";
    auto list = parseLibraryList(xml, "libraries-svr4");
    ASSERT_TRUE(list.ok()) << list.error().str();
    ASSERT_EQ(list->size(), 2u);
    EXPECT_EQ((*list)[0].name, "/lib/x86_64-linux-gnu/libm.so.6");
    EXPECT_EQ((*list)[0].bias, 0x7ffff7e9b000u);
    auto bad = parseLibraryList(R"(<library-list-svr4><library name="x"/></library-list-svr4>)", "doc");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().str(), "doc:1: a <library> without name or l_addr");
}

TEST(Libraries, EntryFromTheAuxiliaryVector)
{
    auto word32 = [](uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); };
    const std::string auxv
        = word32(AT_PHDR) + word32(0x10034) + word32(AT_ENTRY) + word32(0x10380) + word32(AT_NULL) + word32(0);
    EXPECT_EQ(auxvEntry(auxv, false, false), 0x10380u);
    EXPECT_EQ(auxvEntry(auxv.substr(0, 8), false, false), std::nullopt);
}

// Issue 32: a 64-byte ELF header claiming 65535 program headers of 65535 bytes made the reader
// allocate 4 GiB before it read; a FIFO at a library's name hung its open.
TEST(ElfImage, HeaderCountsDoNotSizeTheRead)
{
    char dir[] = "/tmp/ppe-arc-elf-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string path = std::string(dir) + "/claims.elf";
    Elf64_Ehdr h {};
    std::memcpy(h.e_ident, ELFMAG, SELFMAG);
    h.e_ident[EI_CLASS] = ELFCLASS64;
    h.e_ident[EI_DATA] = ELFDATA2LSB;
    h.e_type = ET_EXEC;
    h.e_phoff = 64;
    h.e_phentsize = 65535;
    h.e_phnum = 65535;
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(&h), sizeof h);
    rusage before {}, after {};
    getrusage(RUSAGE_SELF, &before);
    auto elf = readElfImage(path);
    getrusage(RUSAGE_SELF, &after);
    EXPECT_FALSE(elf.ok());
    EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 64 * 1024) << "KiB more at the peak";
    const std::string fifo = std::string(dir) + "/libfifo.so";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    auto fromFifo = readElfImage(fifo); // returns: O_NONBLOCK, and a FIFO is no ELF file
    EXPECT_FALSE(fromFifo.ok());
    std::filesystem::remove_all(dir);
}
