// The call-graph file of `ppe-arc descend --graph` (arc-target descent.h readCallGraph) against
// hostile sizes: a file without newlines is refused at its first line without being held whole,
// and one caller with 700000 callees is read in linear time (a search of the callees per edge
// took 30 s for 500000 here).
// Beside the simulated target's tests because descend is tested end to end here.
#include "ppe/arc/descent.h"

#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <streambuf>

namespace {

// `size` bytes of 'a' and no newline, made as they are read: nothing holds them all.
class Endless : public std::streambuf {
public:
    explicit Endless(size_t size)
        : m_left(size)
    {
    }

private:
    int_type underflow() override
    {
        if (m_left == 0)
            return traits_type::eof();
        const size_t n = std::min(m_left, sizeof(m_block));
        std::fill(m_block, m_block + n, 'a');
        m_left -= n;
        setg(m_block, m_block, m_block + n);
        return traits_type::to_int_type('a');
    }
    char m_block[4096];
    size_t m_left;

public:
    size_t left() const { return m_left; }
};

TEST(CallGraphInput, ALineWithoutEndIsRefusedAtItsStart)
{
    Endless bytes(size_t(256) << 20); // 256 MiB: held whole it would show in the test's memory
    std::istream in(&bytes);
    ppe::Result<ppe::arc::CallGraph> g = ppe::arc::readCallGraph(in, "huge.graph");
    ASSERT_FALSE(g);
    EXPECT_EQ(g.error().str(), "huge.graph:1: a line longer than 65536 bytes");
    EXPECT_GT(bytes.left(), (size_t(256) << 20) - (1u << 20)) << "read no further than the limit";
}

TEST(CallGraphInput, ACallerOfSevenHundredThousandFunctionsIsReadInLinearTime)
{
    std::string text;
    for (int i = 0; i < 700000; ++i)
        text += "main -> f" + std::to_string(i) + "\n";
    text += "main -> f7\n"; // a repeat is one edge
    std::istringstream in(text);
    const auto start = std::chrono::steady_clock::now();
    ppe::Result<ppe::arc::CallGraph> g = ppe::arc::readCallGraph(in, "wide.graph");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_TRUE(g) << g.error().str();
    EXPECT_EQ(g->callees.at(g->index.at("main")).size(), 700000u);
    EXPECT_LT(seconds, 20.0) << "a search of the callees per edge: 2.5 * 10^11 steps";
}

} // namespace
