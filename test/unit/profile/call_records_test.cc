// Format version 3 (issue 39): the calling-context tree of the samples, `call-paths` and
// `call-node` records with run-time addresses that the reader names through the `mapping` records
// (in the monitored image: its link-time address; in a shared object: a file offset), and a
// marker for paths that stopped short. Damaged records are one error each, naming the line.
#include "profile_head.h"

#include "ppe/core/call_tree.h"
#include "ppe/profile/profile_reader.h"

#include <gtest/gtest.h>

#include <string>

namespace ppe {
namespace {

    const std::string kHead = test::profileHead(3, "perf-ring", R"(count in-range 9
count below 0
count above 0
count shared 0
count vdso 0
count anon 0
count unknown 0
count lost 0
count total 9
mapping 0x401000 0x403000 0x1000 none "/bin/prog"
mapping 0x7f0000001000 0x7f0000002000 0x1000 aabb "/lib/liba.so"
bin 0x1000 9
)");

    // main (image) > a library function > leaf (image) 7 samples; a short path [no CFI] 1; and
    // one sample cut at the root.
    const char* const kTree = R"(call-paths 9 1 5
call-node 1 0 0x401100 0
call-node 2 1 0x7f0000001010 0
call-node 3 2 0x401200 7
call-node 4 0 0x13 0
call-node 5 4 0x7f0000001020 1
)";

    Result<Profile> parse(const std::string& tree)
    {
        return parseProfile(std::string(kHead) + tree + "end\n", "t.ppe");
    }

    TEST(CallRecords, NodesAreNamedThroughTheMappings)
    {
        auto p = parse(kTree);
        ASSERT_TRUE(p) << p.error().str();
        const CallPaths& c = p->calls;
        ASSERT_EQ(c.nodes.size(), 6u);
        EXPECT_EQ(c.samples, 9u);
        EXPECT_EQ(c.cut, 1u);
        EXPECT_EQ(c.nodes[0].self, 1u) << "the sample no node held, at the root";
        EXPECT_EQ(c.nodes[1].place.kind, CodeLocation::Kind::Image);
        EXPECT_EQ(c.nodes[1].place.address, 0x1100u) << "link-time: the run-time address less the load bias";
        EXPECT_EQ(c.nodes[2].place.kind, CodeLocation::Kind::Object);
        ASSERT_LT(c.nodes[2].place.object, p->objects.size());
        EXPECT_EQ(p->objects[c.nodes[2].place.object].path, "/lib/liba.so");
        EXPECT_EQ(c.nodes[2].place.address, 0x1010u) << "the file offset";
        EXPECT_EQ(c.nodes[3].parent, 2u);
        EXPECT_EQ(c.nodes[3].self, 7u);
        EXPECT_EQ(c.nodes[4].marker, kShortPathBase + 3);
        EXPECT_EQ(c.nodes[4].place.kind, CodeLocation::Kind::None);
    }

    // A merge written as a .ppe (ppeout --merge-out) names its nodes' places as its blocked places:
    // image+0xADDRESS (link-time), OBJECT+0xOFFSET of an object named before.
    TEST(CallRecords, AMergesNodesAreNamedPlaces)
    {
        auto p = parse("call-paths 2 0 2\ncall-node 1 0 image+0x1100 0\ncall-node 2 1 image+0x1200 2\n");
        ASSERT_TRUE(p) << p.error().str();
        ASSERT_EQ(p->calls.nodes.size(), 3u);
        EXPECT_EQ(p->calls.nodes[1].place.kind, CodeLocation::Kind::Image);
        EXPECT_EQ(p->calls.nodes[1].place.address, 0x1100u) << "as written: already link-time";
        EXPECT_EQ(p->calls.nodes[2].place.address, 0x1200u);
        EXPECT_EQ(p->calls.nodes[2].self, 2u);
    }

    TEST(CallRecords, AProfileWithoutThemHasNone)
    {
        auto p = parse("");
        ASSERT_TRUE(p) << p.error().str();
        EXPECT_TRUE(p->calls.nodes.empty());
    }

    void expectError(const std::string& tree, size_t line, const std::string& words)
    {
        auto p = parse(tree);
        ASSERT_FALSE(p) << tree;
        EXPECT_EQ(p.error().line, line) << p.error().str();
        EXPECT_NE(p.error().message.find(words), std::string::npos) << p.error().str();
    }

    TEST(CallRecords, DamagedRecordsAreOneErrorNamingTheLine)
    {
        const size_t first = 31; // the line after kHead's last
        expectError("call-node 1 0 0x401100 0\n", first, "before the 'call-paths' line");
        expectError("call-paths 9 1\n", first, "call-paths: expected SAMPLES CUT NODES");
        expectError("call-paths 1 2 0\n", first, "CUT <= SAMPLES");
        expectError("call-paths 1 0 1\ncall-node 2 0 0x401100 1\n", first + 1, "ids must count up from 1");
        expectError("call-paths 1 0 2\ncall-node 1 1 0x401100 1\n", first + 1, "must come before it");
        expectError("call-paths 1 0 1\ncall-node 1 0 0x401100 1\ncall-node 2 1 0x401100 0\n", first + 2,
            "more call-node lines than 'call-paths' says");
        expectError("call-paths 1 0 1\ncall-node 1 0 xyz 1\n", first + 1, "call-node: expected ID PARENT");
        expectError("call-paths 1 0 1\ncall-node 1 0 - 1\n", first + 1, "call-node: expected ID PARENT");
        expectError("call-paths 1 0 1\ncall-node 1 0 5+0x10 1\n", first + 1, "of an object named before");
        expectError("call-paths 1 0 2\ncall-node 1 0 0x401100 1\n", 0, "promises 2 nodes; 1 call-node lines follow");
        expectError("call-paths 1 0 1\ncall-node 1 0 0x401100 5\n", 0, "add up to more than call-paths' 1");
        expectError("call-paths 1 0 1\ncall-paths 1 0 1\n", first + 1, "a second 'call-paths' line");
        expectError("call-paths 1 0 99999999\n", first, "nodes (the limit of a profile)");
    }

} // namespace
} // namespace ppe
