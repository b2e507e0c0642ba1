// The calling-context tree (core/call_tree.h): paths fold into one node per distinct call path,
// recursion deepens it, and a tree with no room left cuts paths where they stop fitting, counting
// their samples there and in `cut`, so that every sample added is in the tree once.
#include "ppe/core/call_tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

namespace ppe {
namespace {

    struct Tree {
        std::vector<uint64_t> memory;
        CallTree tree;
        explicit Tree(uint32_t capacity)
            : memory((callTreeBytes(capacity) + 7) / 8, 0)
            , tree(makeCallTree(memory.data(), capacity))
        {
        }
        void add(std::vector<uint64_t> outermostFirst, uint64_t weight, bool fits = true)
        {
            std::vector<uint64_t> leafFirst(outermostFirst.rbegin(), outermostFirst.rend());
            EXPECT_EQ(addCallPath(tree, leafFirst.data(), leafFirst.size(), weight), fits);
        }
        // The path of node `i`, outermost first.
        std::vector<uint64_t> path(uint32_t i) const
        {
            std::vector<uint64_t> out;
            for (; i; i = tree.nodes[i].parent)
                out.insert(out.begin(), tree.nodes[i].pc);
            return out;
        }
        std::map<std::vector<uint64_t>, uint64_t> selves() const
        {
            std::map<std::vector<uint64_t>, uint64_t> out;
            for (uint32_t i = 0; i < tree.header->used; ++i) {
                if (tree.nodes[i].self)
                    out[path(i)] += tree.nodes[i].self;
            }
            return out;
        }
    };

    TEST(CallTree, PathsFoldIntoOneNodePerCallingContext)
    {
        Tree t(64);
        t.add({ 0xa00, 0xb00, 0x1000 }, 3);
        t.add({ 0xa00, 0xb00, 0x2000 }, 1);
        t.add({ 0xa00, 0xc00, 0x1000 }, 2);
        t.add({ 0xa00, 0xb00, 0x1000 }, 1);
        EXPECT_EQ(t.tree.header->used, 7u) << "root, a, a>b, a>b>1000, a>b>2000, a>c, a>c>1000";
        EXPECT_EQ(t.tree.header->samples, 7u);
        EXPECT_EQ(t.tree.header->cut, 0u);
        const std::map<std::vector<uint64_t>, uint64_t> expected {
            { { 0xa00, 0xb00, 0x1000 }, 4 },
            { { 0xa00, 0xb00, 0x2000 }, 1 },
            { { 0xa00, 0xc00, 0x1000 }, 2 },
        };
        EXPECT_EQ(t.selves(), expected);
    }

    TEST(CallTree, RecursionDeepensThePath)
    {
        Tree t(64);
        t.add({ 0xa00, 0xe00, 0xe00, 0xe00, 0x1000 }, 1);
        t.add({ 0xa00, 0xe00, 0x1000 }, 1);
        EXPECT_EQ(t.tree.header->used, 7u) << "root, a, r, r, r, leaf under the third r, leaf under the first";
    }

    TEST(CallTree, AFullTreeCutsPathsAndCountsEverySample)
    {
        Tree t(5); // the root and four nodes
        t.add({ 0xa00, 0xb00, 0x1000 }, 2);
        t.add({ 0xa00, 0xc00, 0x2000 }, 3, false); // a>c fits, its leaf does not
        t.add({ 0xd00 }, 5, false); // nothing fits: counted at the root
        t.add({ 0xa00, 0xb00, 0x1000 }, 1); // an old path still adds
        EXPECT_EQ(t.tree.header->used, 5u);
        EXPECT_EQ(t.tree.header->samples, 11u);
        EXPECT_EQ(t.tree.header->cut, 8u);
        const std::map<std::vector<uint64_t>, uint64_t> expected {
            { {}, 5 },
            { { 0xa00, 0xb00, 0x1000 }, 3 },
            { { 0xa00, 0xc00 }, 3 },
        };
        EXPECT_EQ(t.selves(), expected);
    }

    // A tree read back from memory (a killed process's live file): as written, or dropped whole
    // when its header or its nodes are not a tree's.
    TEST(CallTree, ATreeReadBackIsTheOneWrittenOrNone)
    {
        Tree t(64);
        t.add({ 0xa00, 0xb00, 0x1000 }, 3);
        const CallTree back = readCallTree(t.memory.data(), 64);
        ASSERT_NE(back.header, nullptr);
        EXPECT_EQ(back.header->used, 4u);
        EXPECT_EQ(back.nodes[3].self, 3u);
        EXPECT_EQ(readCallTree(t.memory.data(), 32).header, nullptr) << "another capacity";
        t.tree.nodes[2].parent = 3; // after its child: a loop a reader would follow for ever
        EXPECT_EQ(readCallTree(t.memory.data(), 64).header, nullptr);
        t.tree.nodes[2].parent = 1;
        t.tree.header->used = 65;
        EXPECT_EQ(readCallTree(t.memory.data(), 64).header, nullptr) << "more nodes than room";
    }

    // Many random paths against a plain map of them: with room, the same counts; with too little,
    // every sample still counted once, at its path or the longest part of it that fit.
    TEST(CallTree, RandomPathsAgreeWithAMapOfThem)
    {
        for (const uint32_t capacity : { 100000u, 300u }) {
            Tree t(capacity);
            std::map<std::vector<uint64_t>, uint64_t> model;
            std::mt19937_64 random(capacity);
            uint64_t total = 0;
            for (int i = 0; i < 20000; ++i) {
                std::vector<uint64_t> path(1 + random() % 12);
                for (uint64_t& pc : path)
                    pc = 0x1000 + 0x10 * (random() % 6);
                const uint64_t weight = 1 + random() % 3;
                total += weight;
                model[path] += weight;
                std::vector<uint64_t> leafFirst(path.rbegin(), path.rend());
                addCallPath(t.tree, leafFirst.data(), leafFirst.size(), weight);
            }
            uint64_t inTree = 0;
            for (uint32_t n = 0; n < t.tree.header->used; ++n)
                inTree += t.tree.nodes[n].self;
            EXPECT_EQ(inTree, total);
            EXPECT_EQ(t.tree.header->samples, total);
            if (capacity == 100000u) {
                EXPECT_EQ(t.tree.header->cut, 0u);
                EXPECT_EQ(t.selves(), model);
            } else {
                EXPECT_EQ(t.tree.header->used, capacity);
                EXPECT_GT(t.tree.header->cut, 0u);
                for (const auto& [path, self] : t.selves()) {
                    const bool prefix = std::any_of(model.begin(), model.end(), [&](const auto& m) {
                        return m.first.size() >= path.size() && std::equal(path.begin(), path.end(), m.first.begin());
                    });
                    EXPECT_TRUE(prefix) << "a node that is no added path's part";
                    const auto exact = model.find(path);
                    if (exact != model.end()) {
                        EXPECT_GE(self, exact->second) << "a path in the tree holds at least its own samples";
                    }
                }
            }
        }
    }

} // namespace
} // namespace ppe
