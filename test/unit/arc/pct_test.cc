// The PCT driver (pct.h) against the stand-in PCT model (pct_model.h: no ARC target with counters
// can be had here): build registers, conditions by name, configuring, running, snapshot reads within
// the counter's width, the privilege bits, and the registers put back by undoing the writes newest
// first, as the undo journal does on detach.
#include "pct_model.h"
#include "ppe/arc/pct.h"

#include <gtest/gtest.h>

#include <utility>

using namespace ppe::arc;
using ppe::arc::testing::PctModel;

namespace {

// The model behind a journal of old values, undone newest first (what TargetAccess does).
class Journalled : public AuxRegisters {
public:
    explicit Journalled(PctModel& model)
        : m_model(model)
    {
    }
    ppe::Result<uint32_t> read(uint32_t address) override { return m_model.read(address); }
    ppe::gdbremote::Status write(uint32_t address, uint32_t value) override
    {
        ppe::Result<uint32_t> old = m_model.read(address);
        if (!old)
            return old.error();
        m_undo.push_back({ address, *old });
        return m_model.write(address, value);
    }
    ppe::gdbremote::Status writeTransient(uint32_t address, uint32_t value) override
    {
        ++transient;
        return m_model.write(address, value);
    }
    std::string backEnd() const override { return "journalled model"; }
    size_t journalled() const { return m_undo.size(); }
    size_t transient = 0;
    void undoAll()
    {
        for (; !m_undo.empty(); m_undo.pop_back())
            ASSERT_TRUE(m_model.write(m_undo.back().first, m_undo.back().second));
    }

private:
    PctModel& m_model;
    std::vector<std::pair<uint32_t, uint32_t>> m_undo;
};

TEST(Pct, ReadsTheBuildAndFindsConditionsByName)
{
    PctModel model({ 4, 1, true, { "never", "always", "crun", "iall", "longname" } });
    ppe::Result<Pct> pct = Pct::open(model);
    ASSERT_TRUE(pct) << pct.error().str();
    EXPECT_EQ(pct->build().counters, 4u);
    EXPECT_EQ(pct->build().counterBits, 48u);
    EXPECT_TRUE(pct->build().interrupts);
    ASSERT_EQ(pct->conditions().size(), 5u);
    EXPECT_EQ(pct->conditions()[4].name, "longname");
    ppe::Result<uint32_t> crun = pct->condition("CRUN");
    ASSERT_TRUE(crun);
    EXPECT_EQ(*crun, 2u);
    ppe::Result<uint32_t> none = pct->condition("cycles");
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().message, "no countable condition 'cycles' (ppe-arc conditions lists them)");
}

TEST(Pct, CountsWhileRunningInThePrivilegeLevelsAsked)
{
    PctModel model({});
    ppe::Result<Pct> pct = Pct::open(model);
    ASSERT_TRUE(pct) << pct.error().str();
    ASSERT_TRUE(pct->configure(0, *pct->condition("crun")));
    ASSERT_TRUE(pct->configure(1, *pct->condition("iall"), CountIn::User));
    ASSERT_TRUE(pct->configure(2, *pct->condition("iall"), CountIn::Kernel));
    model.happen("crun", 50); // not running yet: not counted
    ASSERT_TRUE(pct->start());
    model.happen("crun", 1000);
    model.happen("iall", 700);
    model.happen("iall", 30, true);
    model.happen("icm", 5);
    ASSERT_TRUE(pct->stop());
    model.happen("crun", 9); // stopped
    const uint64_t expected[] = { 1000, 700, 30, 0 };
    for (unsigned counter = 0; counter < 4; ++counter) {
        ppe::Result<uint64_t> value = pct->read(counter);
        ASSERT_TRUE(value) << value.error().str();
        EXPECT_EQ(*value, expected[counter]) << "counter " << counter;
    }
    ASSERT_TRUE(pct->clear());
    EXPECT_EQ(*pct->read(0), 0u);
    ppe::Result<uint64_t> beyond = pct->read(8);
    ASSERT_FALSE(beyond);
    EXPECT_EQ(beyond.error().message, "no counter 8: the core has 8");
}

TEST(Pct, ReadsAreWithinTheCounterWidthAndUntorn)
{
    PctModel model({ 2, 0, false, { "never", "crun" } }); // 32-bit counters
    ppe::Result<Pct> pct = Pct::open(model);
    ASSERT_TRUE(pct) << pct.error().str();
    EXPECT_EQ(pct->build().counterBits, 32u);
    ASSERT_TRUE(pct->configure(0, 1));
    ASSERT_TRUE(pct->start());
    model.happen("crun", 0xFFFFFFF0u);
    model.happen("crun", 0x20); // wraps at 32 bits, as the hardware does
    EXPECT_EQ(*pct->read(0), 0x10u);
    PctModel wide({ 1, 2, false, { "never", "crun" } }); // 64-bit counters
    ppe::Result<Pct> widePct = Pct::open(wide);
    ASSERT_TRUE(widePct);
    ASSERT_TRUE(widePct->configure(0, 1));
    ASSERT_TRUE(widePct->start());
    wide.happen("crun", 0x123456789abcull);
    EXPECT_EQ(*widePct->read(0), 0x123456789abcull);
}

TEST(Pct, UndoingTheWritesPutsThePctBackAsItWasFound)
{
    PctModel model({});
    { // what another user of the core left: a counter running on crun
        ppe::Result<Pct> theirs = Pct::open(model);
        ASSERT_TRUE(theirs && theirs->configure(5, 2) && theirs->start());
        model.happen("crun", 4242);
    }
    const auto before = model.state();
    Journalled journalled(model);
    ppe::Result<Pct> pct = Pct::open(journalled);
    ASSERT_TRUE(pct);
    ASSERT_TRUE(pct->stop() && pct->clear() && pct->configure(0, 3) && pct->configure(5, 4) && pct->start());
    model.happen("iall", 10);
    ASSERT_TRUE(pct->stop());
    const size_t journalledBefore = journalled.journalled();
    EXPECT_EQ(*pct->read(0), 10u);
    EXPECT_EQ(*pct->read(5), 0u); // another counter than the one the journal chose last
    EXPECT_EQ(journalled.journalled(), journalledBefore) << "a read journalled a write";
    EXPECT_GT(journalled.transient, 0u);
    EXPECT_NE(model.state(), before);
    journalled.undoAll();
    EXPECT_EQ(model.state(), before);
}

TEST(Pct, ACoreWithoutCountersSaysSo)
{
    PctModel model({ 0, 0, false, { "never" } });
    ppe::Result<Pct> pct = Pct::open(model);
    ASSERT_FALSE(pct);
    EXPECT_EQ(pct.error().message, "the core has no performance counters (PCT_BUILD is 3)");
}

TEST(Pct, ConditionNamesArePaddedWithNulOrSpace)
{
    EXPECT_EQ(conditionName(0x6e757263, 0), "crun"); // "crun" then NULs
    EXPECT_EQ(conditionName(0x6c6c6169, 0x20202020), "iall"); // space-padded
    EXPECT_EQ(conditionName(0x676e6f6c, 0x656d616e), "longname"); // all eight
}

TEST(AuxNames, TableAndMonitorNumbers)
{
    EXPECT_EQ(auxAddress("PCT_CONFIG"), aux::kPctConfig);
    EXPECT_EQ(auxName(0x25A), "pct_rangeh");
    EXPECT_FALSE(auxName(0x1234));
    EXPECT_EQ(parseMonitorNumber("0x1f\n"), 31u);
    EXPECT_EQ(parseMonitorNumber(" 4294967295 "), 4294967295u);
    EXPECT_FALSE(parseMonitorNumber("Register 0x254 is invalid"));
    EXPECT_FALSE(parseMonitorNumber("0x"));
    EXPECT_FALSE(parseMonitorNumber("0x100000000"));
    EXPECT_FALSE(parseMonitorNumber(""));
}

} // namespace
