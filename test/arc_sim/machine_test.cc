// The simulated ARC machine (a STAND-IN for an ARC core, README.md) on its own: the call tree's
// file, the symbols of calls.c built with Debian's ARC cross compiler, and the walk: exact cycles
// against the tree's sums, breakpoints at entries and return addresses, the PCT model counting
// only what ran and, with the range bit, only inside the range.
#include "call_tree.h"
#include "machine.h"
#include "sim_target.h"

#include <gtest/gtest.h>

using namespace ppe::arc::sim;
using ppe::arc::testing::PctModel;

namespace {

#define SKIP_WITHOUT_ARC_IMAGE()                                                                                       \
    if (std::string(PPE_ARC_SIM_CALLS).empty())                                                                        \
    GTEST_SKIP() << "arc-linux-gnu-gcc-12 was not found at configure time: no ARC image for the simulated target"

TEST(SimCallTree, ErrorsNameFileAndLine)
{
    auto bad = parseCallTree("root main\nfn main 10 1\nfn main 3 1\n", "t.tree");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().str(), "t.tree:3: function 'main' given twice");
    bad = parseCallTree("fn main 10 0\n", "t.tree");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().line, 1u);
    bad = parseCallTree("root main\nfn main 10 1\ncall main nowhere 2\n", "t.tree");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().str(), "t.tree:3: a call between functions not given by 'fn'");
    bad = parseCallTree("fn main 1 1 sideways\n", "t.tree");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().str(), "t.tree:1: unexpected 'sideways' (kernel, recurse N)");
}

// A tree on made-up symbols: main calls a twice and the recursive r (depth 3).
CallTree smallTree()
{
    auto tree = parseCallTree("root main\nfn main 5 1\nfn a 3 2\nfn r 2 1 recurse 3\nfn k 4 3 kernel\n"
                              "call main a 2\ncall main r 1\ncall r r 1\ncall a k 1\n",
        "small");
    EXPECT_TRUE(tree) << tree.error().str();
    std::vector<FunctionSymbol> symbols { { "main", 0x1000, 0x40 }, { "a", 0x1040, 0x20 }, { "r", 0x1060, 0x20 },
        { "k", 0x1080, 0x10 } };
    EXPECT_TRUE(placeFunctions(*tree, symbols));
    return std::move(*tree);
}

TEST(SimMachine, RunsTheTreeExactly)
{
    PctModel pct({});
    Machine machine(smallTree(), pct, 0x900);
    // k: 1+12+1 = 14; a: 1+6+1 + (1+14+1) = 24; r at depths 1..3: 4, 4+(2+4)=10... see below.
    const uint64_t k = 14, a = 24, r3 = 1 + 2 + 1, r2 = r3 + 2 + 4, r1 = r2 + 2 + 4;
    EXPECT_EQ(machine.inclusiveCycles("a"), a);
    EXPECT_EQ(machine.inclusiveCycles("r"), r1);
    EXPECT_EQ(machine.inclusiveCycles("k"), k);
    const uint64_t total = 1 + (1 + 5 + 1 + 2 * (a + 2) + (r1 + 2)); // the start's bl, main
    EXPECT_EQ(machine.runCycles(), total);
    EXPECT_EQ(machine.run(1u << 20, true), Machine::Event::Ended);
    EXPECT_EQ(machine.totals().cycles, total);
    EXPECT_EQ(machine.totals().kernelCycles, 2 * k); // k's entry and return too
    EXPECT_EQ(machine.pc(), 0x904u);
}

TEST(SimMachine, BreakpointsAtEntryAndReturnAddressBoundOneCall)
{
    PctModel pct({});
    Machine machine(smallTree(), pct, 0x900);
    machine.breakpoints().insert(0x1040); // a's entry
    ASSERT_EQ(machine.run(1000, true), Machine::Event::Breakpoint);
    EXPECT_EQ(machine.pc(), 0x1040u);
    const uint32_t blink = machine.blink(), sp = machine.sp();
    EXPECT_EQ(machine.functionAt(blink)->name, "main");
    const uint64_t entry = machine.totals().cycles;
    machine.breakpoints().insert(blink);
    ASSERT_EQ(machine.run(1000, true), Machine::Event::Breakpoint);
    EXPECT_EQ(machine.pc(), blink);
    EXPECT_EQ(machine.sp(), sp) << "sp at the return address is sp at the entry";
    EXPECT_EQ(machine.totals().cycles - entry, machine.inclusiveCycles("a"));
}

TEST(SimMachine, CountsOnlyWhatRunsAndInsideTheRange)
{
    PctModel::Config config;
    config.rangeEnableBit = 20;
    PctModel pct(config);
    Machine machine(smallTree(), pct, 0x900);
    // Counter 0: crun everywhere; counter 1: crun inside k only; counter 2: iall in kernel mode.
    ASSERT_TRUE(pct.write(ppe::arc::aux::kPctIndex, 0) && pct.write(ppe::arc::aux::kPctConfig, 2));
    ASSERT_TRUE(pct.write(ppe::arc::aux::kPctIndex, 1) && pct.write(ppe::arc::aux::kPctConfig, 2 | 1u << 20));
    ASSERT_TRUE(pct.write(ppe::arc::aux::kPctRangeL, 0x1080) && pct.write(ppe::arc::aux::kPctRangeH, 0x108F));
    ASSERT_TRUE(pct.write(ppe::arc::aux::kPctIndex, 2) && pct.write(ppe::arc::aux::kPctConfig, 3 | 1u << 19));
    EXPECT_EQ(*pct.read(ppe::arc::aux::kPctConfig), 3u | 1u << 19);
    machine.run(10, true); // counters not running: nothing counted
    EXPECT_EQ(pct.count(0), 0u);
    ASSERT_TRUE(pct.write(ppe::arc::aux::kPctControl, 1));
    const uint64_t before = machine.totals().cycles;
    ASSERT_EQ(machine.run(1u << 20, true), Machine::Event::Ended);
    EXPECT_EQ(pct.count(0), machine.totals().cycles - before);
    EXPECT_EQ(pct.count(1), 2 * 14u);
    EXPECT_EQ(pct.count(2), 2 * 6u); // k's entry, 4 own, return: in kernel mode
    PctModel noRange({}); // no range bit: it reads back clear
    ASSERT_TRUE(noRange.write(ppe::arc::aux::kPctConfig, 2 | 1u << 20));
    EXPECT_EQ(*noRange.read(ppe::arc::aux::kPctConfig), 2u);
}

TEST(SimMachine, PlacedOnTheSymbolsOfARealArcImage)
{
    SKIP_WITHOUT_ARC_IMAGE();
    auto symbols = readFunctionSymbols(PPE_ARC_SIM_CALLS);
    ASSERT_TRUE(symbols) << symbols.error().str();
    auto target = SimTarget::load({ PPE_ARC_SIM_CALLS, PPE_ARC_SIM_TREE, {} });
    ASSERT_TRUE(target) << target.error().str();
    Machine& machine = (*target)->machine();
    for (const TreeFunction& f : machine.tree().functions) {
        const auto s = std::find_if(symbols->begin(), symbols->end(), [&](auto& each) { return each.name == f.name; });
        ASSERT_NE(s, symbols->end()) << f.name;
        EXPECT_EQ(f.address, s->address) << f.name;
    }
    EXPECT_EQ(machine.pc(), (*target)->image().entry); // __start, which calls main
    EXPECT_EQ(machine.run(1, true), Machine::Event::None);
    EXPECT_EQ(machine.pc(), machine.tree().functions[machine.tree().root].address);
    EXPECT_EQ(machine.blink(), (*target)->image().entry + 4);
    // The bytes at main are the image's: an ARC instruction stream, not zeros.
    auto bytes = (*target)->readMemory(machine.pc(), 4);
    ASSERT_TRUE(bytes);
    EXPECT_NE(*bytes, std::string(4, '\0'));
    EXPECT_EQ(machine.run(1ull << 32, true), Machine::Event::Ended);
    EXPECT_EQ(machine.totals().cycles, machine.runCycles());
    auto missing = SimTarget::load({ PPE_ARC_SIM_CALLS, "/nonexistent.tree", {} });
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().file, "/nonexistent.tree");
}

} // namespace
