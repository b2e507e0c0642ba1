// The CFI unwinder (collector/src/cfi_unwind.h, issue 39) against glibc's backtrace(), which walks
// the same frames with libgcc's unwinder: a second, independent reading of the same CFI. The frames
// are cfi_subject.c's, built -O2 -fomit-frame-pointer, called back from the C library's qsort.
#include "cfi_cache.h"
#include "cfi_objects.h"
#include "cfi_unwind.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <execinfo.h>
#include <link.h>
#include <memory>
#include <set>
#include <string>
#include <sys/auxv.h>
#include <sys/uio.h>
#include <unistd.h>
#include <utility>
#include <vector>

extern "C" {
extern void (*cfi_hook)(uint64_t pc, uint64_t sp, uint64_t fp, uint64_t lr);
int cfi_subject_run(int depth);
int shape_leaf(int n);
int shape_vla(int n);
int shape_recursive(int n);
int cfi_compare(const void* a, const void* b);
}

namespace ppe {
namespace {

    using testing::ehFrameHdrOf;

    bool readSelf(const void*, uint64_t address, void* out, size_t size)
    {
        iovec local { out, size };
        iovec remote { reinterpret_cast<void*>(address), size };
        return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == ssize_t(size);
    }

    struct Walk {
        std::vector<uint64_t> unwound;
        UnwindEnd end = UnwindEnd::Full;
        std::vector<uint64_t> reference; // backtrace(): return addresses, its own caller first
        // With cfi_cache.h's rows (when `state` is set): two unwinds, and the misses of each.
        UnwindState* state = nullptr;
        std::vector<uint64_t> cached[2];
        uint64_t misses[2] {};
    };
    Walk g_walk;

    void unwindCached(const FrameRegisters& regs)
    {
        const MemoryReader memory { readSelf, nullptr };
        for (int i = 0; i < 2; ++i) {
            const uint64_t before = g_walk.state->misses;
            g_walk.cached[i].assign(256, 0);
            const UnwindResult r = unwindPath(
                cachedRules(*g_walk.state), memory, regs, g_walk.cached[i].data(), g_walk.cached[i].size());
            g_walk.cached[i].resize(r.frames);
            g_walk.misses[i] = g_walk.state->misses - before;
        }
    }

    void onLeaf(uint64_t pc, uint64_t sp, uint64_t fp, uint64_t lr)
    {
        const MemoryReader memory { readSelf, nullptr };
        FrameRegisters regs { pc, sp, fp, lr, lr != 0 };
        g_walk.unwound.assign(256, 0);
        const UnwindResult r = unwindPath(
            ObjectLookup { ehFrameHdrOf, nullptr }, memory, memory, regs, g_walk.unwound.data(), g_walk.unwound.size());
        g_walk.unwound.resize(r.frames);
        g_walk.end = r.end;
        if (g_walk.state)
            unwindCached(regs);
        void* trace[256];
        const int n = backtrace(trace, 256);
        g_walk.reference.clear();
        for (int i = 0; i < n; ++i)
            g_walk.reference.push_back(reinterpret_cast<uint64_t>(trace[i]));
    }

    // Whether `pc` is in `function`, one of the subject's: the closest of their starts at or below
    // it, within 256 bytes (they are short; the test executable exports no symbols for dladdr).
    bool inFunction(uint64_t pc, const void* function)
    {
        const void* subject[] = { reinterpret_cast<const void*>(shape_leaf), reinterpret_cast<const void*>(shape_vla),
            reinterpret_cast<const void*>(shape_recursive), reinterpret_cast<const void*>(cfi_subject_run),
            reinterpret_cast<const void*>(cfi_compare) };
        uint64_t best = 0;
        for (const void* f : subject) {
            const uint64_t start = reinterpret_cast<uint64_t>(f);
            if (start <= pc && start > best)
                best = start;
        }
        return best == reinterpret_cast<uint64_t>(function) && pc - best < 256;
    }

    std::string describe(const std::vector<uint64_t>& pcs)
    {
        std::string out;
        for (uint64_t pc : pcs) {
            Dl_info info {};
            dladdr(reinterpret_cast<void*>(pc), &info);
            char line[256];
            std::snprintf(line, sizeof(line), "  %#lx %s\n", static_cast<unsigned long>(pc),
                info.dli_sname ? info.dli_sname : "?");
            out += line;
        }
        return out;
    }

    TEST(CfiUnwind, AgreesWithBacktraceThroughOptimisedFramesAndTheCLibrary)
    {
#if !defined(__x86_64__) && !defined(__aarch64__)
        GTEST_SKIP() << "cfi_subject.c takes its registers on x86-64 and AArch64 only";
#endif
        cfi_hook = onLeaf;
        const int depth = 5;
        cfi_subject_run(depth);
        const Walk w = g_walk;
        ASSERT_GE(w.reference.size(), 12u) << describe(w.reference);
        // backtrace()'s entries start in onLeaf (after ASan's interceptor of backtrace, in an ASan
        // build), then the return into shape_leaf; the unwinder starts at shape_leaf's own pc. From
        // the leaf's caller on they are the same.
        ASSERT_GE(w.unwound.size(), 2u) << "ended " << int(w.end);
        EXPECT_TRUE(inFunction(w.unwound[0], reinterpret_cast<const void*>(shape_leaf)));
        const auto intoLeaf = std::find_if(w.reference.begin(), w.reference.end(),
            [](uint64_t pc) { return inFunction(pc, reinterpret_cast<const void*>(shape_leaf)); });
        ASSERT_NE(intoLeaf, w.reference.end()) << describe(w.reference);
        std::vector<uint64_t> expected(intoLeaf + 1, w.reference.end());
        std::vector<uint64_t> got(w.unwound.begin() + 1, w.unwound.end());
        EXPECT_EQ(got, expected) << "unwound:\n" << describe(w.unwound) << "backtrace:\n" << describe(w.reference);
        EXPECT_EQ(w.end, UnwindEnd::Outermost) << int(w.end);
        // The shapes: the VLA frame (its CFA the frame pointer), depth + 1 recursive frames, the
        // comparator's qsort frames in the C library, and the subject's entry.
        int recursive = 0;
        bool vla = false, entry = false, comparator = false;
        for (uint64_t pc : got) {
            comparator = comparator || inFunction(pc, reinterpret_cast<const void*>(cfi_compare));
            recursive += inFunction(pc, reinterpret_cast<const void*>(shape_recursive));
            vla = vla || inFunction(pc, reinterpret_cast<const void*>(shape_vla));
            entry = entry || inFunction(pc, reinterpret_cast<const void*>(cfi_subject_run));
        }
        EXPECT_EQ(recursive, depth + 1) << describe(w.unwound);
        EXPECT_TRUE(vla && comparator && entry) << describe(w.unwound);
    }

    // The same check on AArch64 (its own DWARF numbers, the return address in x30 at a leaf, frames
    // whose CFA is sp itself): cfi_cross_drive.cc, cross-built, under qemu-aarch64.
    TEST(CfiUnwind, AgreesWithBacktraceOnAArch64UnderQemu)
    {
        if (!*PPE_CFI_AARCH64)
            GTEST_SKIP() << "clang++, aarch64-linux-gnu-gcc or qemu-aarch64 is not installed (Debian: clang, "
                            "gcc-aarch64-linux-gnu, qemu-user)";
        const std::string command
            = std::string(PPE_QEMU_AARCH64) + " -L /usr/aarch64-linux-gnu " + PPE_CFI_AARCH64 + " 2>&1";
        FILE* pipe = popen(command.c_str(), "r");
        ASSERT_NE(pipe, nullptr);
        std::string out;
        char buffer[4096];
        for (size_t n; (n = fread(buffer, 1, sizeof(buffer), pipe)) > 0;)
            out.append(buffer, n);
        const int status = pclose(pipe);
        EXPECT_EQ(status, 0) << out;
        EXPECT_NE(out.find("\nagree\n"), std::string::npos) << out;
        size_t frames = 0;
        EXPECT_EQ(std::sscanf(out.c_str(), "unwound %zu frames", &frames), 1) << out;
        EXPECT_GE(frames, 12u) << out; // the leaf, the VLA frame, six recursive ones, qsort's, main's
    }

    // cfi_cache.h's objects, from /proc/self/maps and each object's program headers, name the
    // tables the loader names: the executable's, the C and C++ libraries', the vDSO's.
    std::unique_ptr<UnwindState> unwindStateOfThisProcess()
    {
        auto scratch = std::make_unique<MapsScratch>();
        MapsTable maps {};
        EXPECT_TRUE(readMapsInto(*scratch, &maps));
        auto state = std::make_unique<UnwindState>();
        state->code = MemoryReader { readSelf, nullptr };
        refreshUnwindObjects(*state, maps);
        return state;
    }

    TEST(CfiCache, ObjectsAgreeWithTheLoader)
    {
        const auto state = unwindStateOfThisProcess();
        const uint64_t pcs[] = { reinterpret_cast<uint64_t>(shape_leaf) + 4, reinterpret_cast<uint64_t>(qsort) + 4,
            reinterpret_cast<uint64_t>(&std::terminate) + 4, getauxval(AT_SYSINFO_EHDR) + 0x100 };
        for (uint64_t pc : pcs) {
            EXPECT_NE(ehFrameHdrFor(*state, pc), 0u) << std::hex << pc;
            EXPECT_EQ(ehFrameHdrFor(*state, pc), ehFrameHdrOf(nullptr, pc)) << std::hex << pc;
        }
        EXPECT_EQ(ehFrameHdrFor(*state, 0x1000), 0u) << "an address nothing is mapped at";
    }

    // An unwind with the kept rows finds what the tables give, and a second one of the same path
    // reads no table at all.
    TEST(CfiCache, KeptRowsUnwindAsTheTablesDoAndAreReused)
    {
        const auto state = unwindStateOfThisProcess();
        g_walk.state = state.get();
        cfi_hook = onLeaf;
        cfi_subject_run(5);
        g_walk.state = nullptr;
        ASSERT_GE(g_walk.unwound.size(), 12u);
        EXPECT_EQ(g_walk.cached[0], g_walk.unwound);
        EXPECT_EQ(g_walk.cached[1], g_walk.unwound);
        // One row read for each return address (and the sampled PC), the outermost's included: the
        // recursive frames share theirs.
        const std::set<uint64_t> distinct(g_walk.unwound.begin() + 1, g_walk.unwound.end());
        EXPECT_EQ(g_walk.misses[0], distinct.size() + 1);
        EXPECT_LT(distinct.size() + 1, g_walk.unwound.size());
        EXPECT_EQ(g_walk.misses[1], 0u);
    }

    // The run-time address of this executable's section `name`, from its section headers (0: none).
    uint64_t sectionAddress(const char* name)
    {
        std::FILE* f = std::fopen("/proc/self/exe", "rb");
        if (!f)
            return 0;
        std::vector<uint8_t> elf;
        uint8_t buffer[65536];
        for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), f)) > 0;)
            elf.insert(elf.end(), buffer, buffer + n);
        std::fclose(f);
        const auto* eh = reinterpret_cast<const ElfW(Ehdr)*>(elf.data());
        const auto* sh = reinterpret_cast<const ElfW(Shdr)*>(elf.data() + eh->e_shoff);
        const char* names = reinterpret_cast<const char*>(elf.data() + sh[eh->e_shstrndx].sh_offset);
        uint64_t bias = 0;
        dl_iterate_phdr( // the first object is the executable
            [](dl_phdr_info* info, size_t, void* data) {
                *static_cast<uint64_t*>(data) = info->dlpi_addr;
                return 1;
            },
            &bias);
        for (int i = 0; i < eh->e_shnum; ++i) {
            if (std::strcmp(names + sh[i].sh_name, name) == 0)
                return bias + sh[i].sh_addr;
        }
        return 0;
    }

    // The PLT's CFA is a DWARF expression (rsp + 8, and 8 more once an entry has pushed its index):
    // the linker's own, in this executable.
    TEST(CfiUnwind, FollowsTheLinkersPltExpression)
    {
#if !defined(__x86_64__)
        GTEST_SKIP() << "the x86-64 PLT";
#endif
        const uint64_t plt = sectionAddress(".plt");
        ASSERT_NE(plt, 0u) << "no .plt in the test executable";
        const MemoryReader code { readSelf, nullptr };
        uint64_t stack[2] = { 0x1111, 0x2222 }; // the return address, before and after the push
        const uint64_t sp = reinterpret_cast<uint64_t>(stack);
        for (const auto& [offset, expected] : { std::pair { 3, 0x1111u }, std::pair { 12, 0x2222u } }) {
            const uint64_t pc = plt + 16 + uint64_t(offset); // in the first entry after PLT0
            FrameRule rule;
            UnwindEnd why = UnwindEnd::Full;
            ASSERT_TRUE(findFrameRule(code, ehFrameHdrOf(nullptr, pc), pc, false, &rule, &why)) << int(why);
            EXPECT_GT(rule.cfaExpressionSize, 0) << "the PLT's FDE gives its CFA as an expression";
            FrameRegisters regs { pc, sp, 0, 0, false };
            ASSERT_TRUE(stepFrame(rule, code, &regs, &why)) << int(why);
            EXPECT_EQ(regs.pc, expected) << "entry offset " << offset;
            EXPECT_EQ(regs.sp, sp + (offset >= 11 ? 16 : 8));
        }
    }

    // A signal trampoline's frame (glibc's __restore_rt: the CIE's 'S', and the interrupted frame's
    // registers given as expressions over the signal frame) ends the path with its reason.
    TEST(CfiUnwind, ASignalFrameEndsThePathAsUnsupported)
    {
        struct sigaction action { };
        action.sa_handler = [](int) {};
        struct sigaction old { };
        ASSERT_EQ(sigaction(SIGUSR2, &action, &old), 0);
        struct sigaction installed { };
        ASSERT_EQ(sigaction(SIGUSR2, &old, &installed), 0);
        const uint64_t restorer = reinterpret_cast<uint64_t>(installed.sa_restorer);
        if (!restorer)
            GTEST_SKIP() << "the C library installs no signal return trampoline of its own";
        const MemoryReader memory { readSelf, nullptr };
        FrameRule rule;
        UnwindEnd why = UnwindEnd::Full;
        if (findFrameRule(memory, ehFrameHdrOf(nullptr, restorer), restorer, false, &rule, &why)) {
            EXPECT_TRUE(rule.signalFrame); // a trampoline whose rules are plain offsets: 'S' stops it
            FrameRegisters regs { restorer, reinterpret_cast<uint64_t>(&rule), 0, 0, false };
            EXPECT_FALSE(stepFrame(rule, memory, &regs, &why));
        }
        EXPECT_EQ(why, UnwindEnd::Unsupported);
    }

    // An .eh_frame_hdr of nonsense, or one whose table leads nowhere: an unwind ends with a reason,
    // never reads outside what the reader gives it.
    struct Buffer {
        std::vector<uint8_t> bytes;
        uint64_t base = 0x10000;
    };

    bool readBuffer(const void* context, uint64_t address, void* out, size_t size)
    {
        const auto* b = static_cast<const Buffer*>(context);
        if (address < b->base || address - b->base > b->bytes.size() || size > b->bytes.size() - (address - b->base))
            return false;
        std::memcpy(out, b->bytes.data() + (address - b->base), size);
        return true;
    }

    TEST(CfiUnwind, DamagedTablesEndThePathWithAReason)
    {
        Buffer b;
        b.bytes = { 1, 0x1b, 0x03, 0x3b, 8, 0, 0, 0, 5, 0, 0, 0 }; // five entries promised, none there
        const MemoryReader memory { readBuffer, &b };
        FrameRule rule;
        UnwindEnd why = UnwindEnd::Full;
        EXPECT_FALSE(findFrameRule(memory, b.base, b.base + 4, false, &rule, &why));
        EXPECT_EQ(why, UnwindEnd::Unreadable);
        b.bytes[0] = 2; // a version not known
        EXPECT_FALSE(findFrameRule(memory, b.base, b.base + 4, false, &rule, &why));
        b.bytes = { 1, 0x1b, 0x03, 0x3b, 8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0 };
        b.bytes.resize(0x60, 0xff); // the one entry's FDE: a length of 0xffffffff, then 0xff...
        EXPECT_FALSE(findFrameRule(memory, b.base, b.base + 4, false, &rule, &why));
        EXPECT_EQ(why, UnwindEnd::Unreadable);
    }

} // namespace
} // namespace ppe
