// The disassembler behind ppeout --asm, against the GNU disassembler of each target: the same
// instruction addresses over whole code sections of programs built here (x86-64 natively, AArch64
// with the cross compiler when it is installed), and mnemonics that agree.
#include "ppe/debuginfo/disassembly.h"

#include "run_program.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace ppe::debuginfo {
namespace {

    using testing::runProgram;

    // objdump's instructions: address -> mnemonic, and the .text section's range.
    struct Dump {
        std::map<uint64_t, std::string> mnemonics;
        uint64_t start = 0, end = 0;
    };

    Dump objdump(const std::string& tool, const std::string& path)
    {
        Dump d;
        const auto run = runProgram({ tool, "-d", "-j", ".text", "--no-show-raw-insn", path });
        EXPECT_EQ(run.status, 0) << run.err;
        static const std::regex kRow(R"(^ *([0-9a-f]+):\t(\S+).*$)");
        std::istringstream in(run.out);
        std::smatch m;
        for (std::string line; std::getline(in, line);) {
            if (std::regex_match(line, m, kRow))
                d.mnemonics[std::stoull(m[1], nullptr, 16)] = m[2];
        }
        const auto headers = runProgram({ tool, "-h", path });
        std::smatch s;
        if (std::regex_search(headers.out, s, std::regex(R"(\.text\s+([0-9a-f]+)\s+([0-9a-f]+))"))) {
            d.start = std::stoull(s[2], nullptr, 16);
            d.end = d.start + std::stoull(s[1], nullptr, 16);
        }
        return d;
    }

    // Every instruction objdump shows starts one of ours; returns how many mnemonics agree (ours
    // may carry an AT&T size suffix objdump leaves out).
    size_t compare(const Dump& dump, const std::vector<Instruction>& ours)
    {
        std::map<uint64_t, std::string> byAddress;
        for (const Instruction& i : ours)
            byAddress[i.address] = i.text.substr(0, i.text.find(' '));
        size_t agreeing = 0;
        for (const auto& [address, mnemonic] : dump.mnemonics) {
            const auto found = byAddress.find(address);
            EXPECT_NE(found, byAddress.end()) << std::hex << address << " " << mnemonic;
            if (found != byAddress.end() && found->second.rfind(mnemonic, 0) == 0)
                ++agreeing;
        }
        return agreeing;
    }

    // True when `name` is a program in PATH (runProgram fails the test for one that cannot start).
    bool installed(const std::string& name)
    {
        const char* path = std::getenv("PATH");
        std::istringstream dirs(path ? path : "/usr/bin:/bin");
        for (std::string dir; std::getline(dirs, dir, ':');) {
            if (!dir.empty() && access((dir + "/" + name).c_str(), X_OK) == 0)
                return true;
        }
        return false;
    }

    TEST(Disassembly, X86InstructionsStartWhereObjdumpsDo)
    {
        const Dump dump = objdump("objdump", DI_CXX);
        ASSERT_GT(dump.mnemonics.size(), 50u);
        auto ours = disassemble(DI_CXX, { { dump.start, dump.end } });
        ASSERT_TRUE(ours.ok()) << ours.error().str();
        EXPECT_EQ(ours->front().address, dump.start);
        EXPECT_EQ(ours->back().address + ours->back().size, dump.end) << "every byte, in order";
        for (size_t i = 1; i < ours->size(); ++i)
            ASSERT_EQ((*ours)[i - 1].address + (*ours)[i - 1].size, (*ours)[i].address);
        EXPECT_GT(compare(dump, *ours), dump.mnemonics.size() * 9 / 10);
    }

    // Calls and jumps name their target as objdump does ("call 0x1149 <foo>", "jne 0x11a0 <bar+0x20>"),
    // where a function symbol holds it (objdump's PLT entries, from relocations, are not symbols).
    TEST(Disassembly, X86BranchTargetsNamedAsObjdumpNamesThem)
    {
        const auto run = runProgram({ "objdump", "-d", "-j", ".text", "--no-show-raw-insn", DI_CXX });
        ASSERT_EQ(run.status, 0) << run.err;
        const Dump dump = objdump("objdump", DI_CXX);
        auto ours = disassemble(DI_CXX, { { dump.start, dump.end } });
        ASSERT_TRUE(ours.ok()) << ours.error().str();
        std::map<uint64_t, std::string> text;
        for (const Instruction& i : *ours)
            text[i.address] = i.text;
        static const std::regex kBranch(R"(^ *([0-9a-f]+):\t(call|jmp|j[a-z]+) +[0-9a-f]+ (<[^@>]+>)$)");
        std::istringstream in(run.out);
        std::smatch m;
        size_t named = 0;
        for (std::string line; std::getline(in, line);) {
            if (!std::regex_match(line, m, kBranch))
                continue;
            const std::string& ourText = text[std::stoull(m[1], nullptr, 16)];
            EXPECT_TRUE(ourText.ends_with(" " + m[3].str())) << line << " | ours: " << ourText;
            ++named;
        }
        EXPECT_GT(named, 5u);
    }

    TEST(Disassembly, AArch64InstructionsAgreeWithTheCrossObjdump)
    {
        if (!installed("aarch64-linux-gnu-gcc") || !installed("aarch64-linux-gnu-objdump"))
            GTEST_SKIP() << "aarch64-linux-gnu-gcc is not installed (Debian: gcc-aarch64-linux-gnu)";
        testing::TempDir dir;
        const std::string object = dir.file("lib.o");
        const auto cc = runProgram({ "aarch64-linux-gnu-gcc", "-O2", "-c", DI_SOURCES "/lib.c", "-o", object });
        ASSERT_EQ(cc.status, 0) << cc.err;
        const Dump dump = objdump("aarch64-linux-gnu-objdump", object);
        ASSERT_GT(dump.mnemonics.size(), 5u);
        auto ours = disassemble(object, { { dump.start, dump.end } });
        ASSERT_TRUE(ours.ok()) << ours.error().str();
        EXPECT_EQ(ours->size(), dump.mnemonics.size());
        EXPECT_EQ(compare(dump, *ours), dump.mnemonics.size());
    }

    TEST(Disassembly, AMachineWithoutATargetIsAnErrorNamingTheFile)
    {
        if (!installed("arc-linux-gnu-gcc-12"))
            GTEST_SKIP() << "arc-linux-gnu-gcc-12 is not installed (Debian: gcc-12-arc-linux-gnu)";
        testing::TempDir dir;
        const std::string object = dir.file("lib.o");
        const auto cc = runProgram({ "arc-linux-gnu-gcc-12", "-O2", "-c", DI_SOURCES "/lib.c", "-o", object });
        ASSERT_EQ(cc.status, 0) << cc.err;
        auto ours = disassemble(object, { { 0, 0x40 } });
        ASSERT_FALSE(ours.ok());
        EXPECT_NE(ours.error().str().find(object), std::string::npos) << ours.error().str();
        EXPECT_NE(ours.error().str().find("no disassembler"), std::string::npos) << ours.error().str();
    }

    // Issue 38 (fuzz_elf, now fuzzing what ppeout runs in its own process): a symbol table whose
    // sh_entsize is 34359738370 kept the symbol iterator of --asm going for minutes. In a child,
    // so that a regression fails at the deadline instead of hanging the suite.
    TEST(Disassembly, ADamagedSymbolTableIsDecodedWithoutNames)
    {
        const pid_t child = fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            auto ours = disassemble(DI_DATA "/bad-symtab-entsize.elf", { { 0, UINT64_MAX } });
            _exit(ours.ok() ? 0 : 1);
        }
        int status = 0;
        pid_t done = 0;
        for (int polls = 0; polls < 2000 && (done = waitpid(child, &status, WNOHANG)) == 0; ++polls)
            usleep(10'000); // polling interval only: the deadline is 20 s
        if (done == 0)
            kill(child, SIGKILL);
        ASSERT_EQ(done, child) << "disassembling bad-symtab-entsize.elf took more than 20 s";
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
    }

} // namespace
} // namespace ppe::debuginfo
