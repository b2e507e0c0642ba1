#include "ppe/gdbremote/stop_reply.h"

#include <gtest/gtest.h>

using namespace ppe::gdbremote;

TEST(StopReply, ReadsExpeditedRegistersAndThread)
{
    // gdbserver 13 on x86-64 (gdbserver-launch.txt), run-length decoded.
    auto r = parseStopReply("T0506:0000000000000000;07:a0e6ffffff7f0000;10:704bfef7ff7f0000;thread:p259e.259e;core:0;");
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_TRUE(r->stopped());
    EXPECT_EQ(r->code, 5);
    EXPECT_EQ(r->thread, "p259e.259e");
    EXPECT_EQ(r->reason, "core");
    ASSERT_EQ(r->registers.count(16), 1u);
    EXPECT_EQ(r->registers.at(16), std::string("\x70\x4b\xfe\xf7\xff\x7f\x00\x00", 8));
}

TEST(StopReply, ReadsTheOtherKinds)
{
    auto s = parseStopReply("S02");
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->code, 2);
    auto w = parseStopReply("W2a;process:1f");
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(w->kind, StopReply::Kind::Exited);
    EXPECT_EQ(w->code, 42);
    EXPECT_EQ(w->process, "1f");
    EXPECT_TRUE(w->ended());
    auto x = parseStopReply("X09");
    ASSERT_TRUE(x.ok());
    EXPECT_EQ(x->kind, StopReply::Kind::Terminated);
    EXPECT_EQ(parseStopReply("N")->kind, StopReply::Kind::NoResumed);
    EXPECT_EQ(parseStopReply("T02thread:p01.2dc0;")->thread, "p01.2dc0");
}

TEST(StopReply, RefusesMalformedReplies)
{
    for (const char* bad : { "", "T", "Tzz", "Q05", "T0510:12345;", "T0510:zz;" }) {
        auto r = parseStopReply(bad);
        EXPECT_FALSE(r.ok()) << bad;
        if (!r.ok()) {
            EXPECT_NE(r.error().message.find("stop reply"), std::string::npos);
        }
    }
}
