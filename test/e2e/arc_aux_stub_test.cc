// The third way to the aux registers (aux_registers.h): the lr/sr stub, run by the real qemu-arc in
// arc_inject.c, whose ppe_scratch the program makes writable and runnable. qemu-arc has no PCT, and
// aborts the emulator on an lr of one, so the stub is checked on lp_start (aux 0x2), a register a
// user-mode program may read and write, against what the target description's `p` reads: the
// stub's read agrees, its journalled write reads back through `p`, the stopped thread's registers
// are as they were, the undo puts the old value back, and the program's output is its own. On this
// Linux user-mode target the probe does not try the stub for the PCT, and says why.
#include "arc_session.h"
#include "temp_dir.h"

#include "ppe/arc/counting.h"
#include "ppe/arc/elf_image.h"
#include "ppe/arc/image_check.h"

#include <gtest/gtest.h>

using namespace ppe::testing;
using namespace ppe::arc;
using namespace ppe::gdbremote;

namespace {

uint64_t registerOr0(TargetAccess& access, const std::string& name)
{
    ppe::Result<uint64_t> value = access.readRegister(name);
    return value ? *value : 0;
}

// The stopped thread's registers the stub borrows.
std::map<std::string, uint64_t> borrowed(TargetAccess& access)
{
    std::map<std::string, uint64_t> values;
    for (const char* name : { "r0", "r1", "pc", "status32" }) {
        ppe::Result<uint64_t> value = access.readRegister(name);
        EXPECT_TRUE(value) << name << ": " << value.error().str();
        values[name] = value ? *value : 0;
    }
    return values;
}

} // namespace

TEST(ArcAuxStub, QemuArcRunsLrAndSrOnARegisterTheProgramMayUse)
{
    if (!executable(PPE_QEMU_ARC) || std::string(PPE_INJECT_ARC).empty())
        GTEST_SKIP() << "qemu-arc (test/README.md: -DPPE_QEMU_ARC, QEMU_ARC, PATH) or arc-linux-gnu-gcc-12 is absent";
    const RunResult alone = aloneUnderQemu({ PPE_INJECT_ARC, "12", "4" });
    ASSERT_EQ(alone.status, 0) << alone.err;
    TempDir dir;
    std::unique_ptr<QemuArcSession> q = startQemuArc({ PPE_INJECT_ARC, "12", "4" }, dir.file("stub.undo"));
    ASSERT_TRUE(q->error.empty()) << q->error;
    Session& session = *q->session;
    TargetControl& control = *q->control;
    TargetAccess& access = *q->access;
    UndoJournal& journal = *q->journal;

    // To main: the program's constructor has made ppe_scratch runnable by then.
    ppe::Result<ElfImage> elf = readElfImage(PPE_INJECT_ARC);
    ASSERT_TRUE(elf) << elf.error().str();
    ppe::Result<uint64_t> bias = checkImage(session, *elf, q->description.architecture);
    ASSERT_TRUE(bias) << bias.error().str();
    uint64_t main = 0;
    ppe::Result<std::vector<ElfFunction>> functions = readElfFunctions(PPE_INJECT_ARC);
    ASSERT_TRUE(functions) << functions.error().str();
    for (const ElfFunction& f : *functions)
        main = f.name == "main" ? f.address + *bias : main;
    ASSERT_NE(main, 0u);
    ASSERT_TRUE(access.insertBreakpoint(main, 2));
    ppe::Result<RunEnd> ran = runUntil(control, Clock::now() + std::chrono::seconds(60), nullptr,
        [&](const StopReply&) -> ppe::Result<bool> { return registerOr0(access, "pc") == main; });
    ASSERT_TRUE(ran && ran->why.empty()) << (ran ? ran->why : ran.error().str());
    ASSERT_TRUE(access.removeBreakpoint(main, 2));
    ppe::Result<ElfObject> scratch = readElfObject(PPE_INJECT_ARC, "ppe_scratch");
    ASSERT_TRUE(scratch) << scratch.error().str();
    const uint32_t area = uint32_t(scratch->address + *bias);

    AuxProbe probe = probeAuxRegisters(access, aux::kPctBuild, { &control, area });
    EXPECT_FALSE(probe.registers) << probe.report;
    EXPECT_NE(probe.report.find("lr/sr stub: not tried: the target is a Linux user-mode program"), std::string::npos)
        << probe.report;

    const std::map<std::string, uint64_t> before = borrowed(access);
    ppe::Result<uint64_t> described = access.readRegister("lp_start");
    ASSERT_TRUE(described) << described.error().str();
    StubAuxRegisters stub(control, access, area);
    ppe::Result<uint32_t> read = stub.read(0x2);
    ASSERT_TRUE(read) << read.error().str();
    EXPECT_EQ(*read, uint32_t(*described)) << "lr and p read lp_start differently";
    const uint32_t changed = uint32_t(*described) ^ 0x1230;
    ASSERT_TRUE(stub.write(0x2, changed));
    EXPECT_EQ(registerOr0(access, "lp_start"), changed) << "sr did not reach lp_start";
    EXPECT_NE(readFile(journal.path()).find("\ntool "), std::string::npos) << readFile(journal.path());
    EXPECT_EQ(borrowed(access), before) << "the stub's registers were not put back";
    ASSERT_TRUE(access.undoAll());
    EXPECT_EQ(registerOr0(access, "lp_start"), *described) << "the undo did not put lp_start back";
    EXPECT_FALSE(fileExists(journal.path()));

    const RunResult served = q->finish();
    EXPECT_EQ(served.status, 0) << served.err;
    EXPECT_EQ(served.out, alone.out) << "the program's output changed";
}
