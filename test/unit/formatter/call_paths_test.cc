// The call paths by function (formatter/call_paths.h, issue 39) on trees made by hand: inclusive and
// self time, callers and callees with their shares, recursion and mutual recursion counted once,
// short paths apart, and a tree as deep as it is long read in linear time.
#include "ppe/core/call_tree.h"
#include "ppe/formatter/call_paths.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace ppe::formatter {
namespace {

    // A tree whose places are functions by address: function k's code is [16k, 16k + 16), a node's
    // place is 16k + 8 (the namer names the instruction before an address, as for a return address).
    struct TreeBuilder {
        std::vector<std::string> names;
        Report report;
        explicit TreeBuilder(std::vector<std::string> n)
            : names(std::move(n))
        {
            report.profile.calls.nodes.emplace_back();
        }
        // A node under `parent` in function `fn` (-1: a marker) with `self` samples.
        uint32_t add(uint32_t parent, int fn, uint64_t self)
        {
            CallPathNode node;
            node.parent = parent;
            node.self = self;
            if (fn < 0)
                node.marker = kShortPathBase + 3;
            else
                node.place = CodeLocation { CodeLocation::Kind::Image, 0, uint64_t(fn) * 16 + 8 };
            report.profile.calls.nodes.push_back(node);
            report.profile.calls.samples += self;
            return uint32_t(report.profile.calls.nodes.size() - 1);
        }
        const CallPathsReport& build()
        {
            addCallPaths(
                report, [this](const CodeLocation& p) { return names.at((p.address - 1) / 16); }, 100);
            return *report.calls;
        }
    };

    const CallFunctionRow& row(const CallPathsReport& c, const std::string& name)
    {
        for (const CallFunctionRow& r : c.functions) {
            if (r.name == name)
                return r;
        }
        static const CallFunctionRow none;
        ADD_FAILURE() << "no row " << name;
        return none;
    }

    std::map<std::string, double> shares(const std::vector<CallEdge>& edges)
    {
        std::map<std::string, double> out;
        for (const CallEdge& e : edges)
            out[e.name] = e.percent;
        return out;
    }

    // main > a > leaf 6, main > b > leaf 2, main > a 2 (a's own): leaf's callers 75:25; a's
    // inclusive 8 of 10, its callee leaf 75 % of it.
    TEST(CallPaths, InclusiveSelfCallersAndCallees)
    {
        TreeBuilder t({ "main", "a", "b", "leaf" });
        const uint32_t main = t.add(0, 0, 0);
        const uint32_t a = t.add(main, 1, 2);
        t.add(a, 3, 6);
        t.add(t.add(main, 2, 0), 3, 2);
        const CallPathsReport& c = t.build();
        EXPECT_DOUBLE_EQ(row(c, "leaf").inclusivePercent, 80);
        EXPECT_DOUBLE_EQ(row(c, "leaf").selfPercent, 80);
        EXPECT_DOUBLE_EQ(row(c, "a").inclusivePercent, 80);
        EXPECT_DOUBLE_EQ(row(c, "a").selfPercent, 20);
        EXPECT_EQ(shares(row(c, "leaf").callers), (std::map<std::string, double> { { "a", 75 }, { "b", 25 } }));
        EXPECT_EQ(shares(row(c, "a").callees), (std::map<std::string, double> { { "leaf", 75 } }));
        EXPECT_EQ(shares(row(c, "main").callees), (std::map<std::string, double> { { "a", 80 }, { "b", 20 } }));
        EXPECT_GT(row(c, "a").inclusiveError, 0);
        EXPECT_EQ(c.functions.front().name, "main") << "decreasing inclusive time";
    }

    // main > r > r > r > leaf 4: r's inclusive once (100 %), its caller main alone, its callee leaf.
    // main > f > g > f > h 2: f's callees g alone (h's time is g's already).
    TEST(CallPaths, RecursionIsCountedOnce)
    {
        TreeBuilder t({ "main", "r", "leaf", "f", "g", "h" });
        const uint32_t main = t.add(0, 0, 0);
        t.add(t.add(t.add(t.add(main, 1, 0), 1, 0), 1, 0), 2, 4);
        t.add(t.add(t.add(t.add(main, 3, 0), 4, 0), 3, 0), 5, 2);
        const CallPathsReport& c = t.build();
        EXPECT_NEAR(row(c, "r").inclusivePercent, 100.0 * 4 / 6, 1e-9);
        EXPECT_EQ(shares(row(c, "r").callers), (std::map<std::string, double> { { "main", 100 } }));
        EXPECT_EQ(shares(row(c, "r").callees), (std::map<std::string, double> { { "leaf", 100 } }));
        EXPECT_EQ(shares(row(c, "f").callees), (std::map<std::string, double> { { "g", 100 } }));
        EXPECT_NEAR(row(c, "f").inclusivePercent, 100.0 * 2 / 6, 1e-9);
    }

    TEST(CallPaths, ShortPathsStandApart)
    {
        TreeBuilder t({ "main", "leaf" });
        t.add(t.add(0, 0, 0), 1, 9);
        t.add(t.add(0, -1, 0), 1, 1);
        const CallPathsReport& c = t.build();
        ASSERT_EQ(c.shortPaths.size(), 1u);
        EXPECT_EQ(c.shortPaths[0].name, shortPathName(kShortPathBase + 3));
        EXPECT_DOUBLE_EQ(c.shortPaths[0].percent, 10);
        EXPECT_DOUBLE_EQ(row(c, "leaf").inclusivePercent, 100);
        for (const CallFunctionRow& r : c.functions)
            EXPECT_NE(r.name.front(), '[') << "a marker is no function";
    }

    // A chain of 200 000 nodes alternating two functions: quadratic work would take minutes.
    TEST(CallPaths, ADeepTreeIsReadInLinearTime)
    {
        TreeBuilder t({ "f", "g" });
        uint32_t node = 0;
        for (int i = 0; i < 200000; ++i)
            node = t.add(node, i % 2, i == 199999 ? 1 : 0);
        const auto start = std::chrono::steady_clock::now();
        const CallPathsReport& c = t.build();
        EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
        EXPECT_DOUBLE_EQ(row(c, "f").inclusivePercent, 100);
        EXPECT_DOUBLE_EQ(row(c, "g").inclusivePercent, 100);
    }

} // namespace
} // namespace ppe::formatter
