// Issue 6's matrix: however the program ends, the profile is there and the program's exit status
// or terminating signal is exactly what it is without the collector.
#include "elf_symbols.h"
#include "run_program.h"
#include "temp_dir.h"

#include "ppe/profile/profile_reader.h"

#include <gtest/gtest.h>

#include <csignal>

namespace ppe::testing {
namespace {

struct Ending {
    const char* how;
    const char* reason; // end-reason in the profile; nullptr: no profile expected
};

void PrintTo(const Ending& e, std::ostream* os) { *os << e.how; }

class EndingTest : public ::testing::TestWithParam<Ending> {
protected:
    TempDir m_dir;
};

TEST_P(EndingTest, ProfileIsWrittenAndTheEndingIsUnchanged)
{
    const Ending& e = GetParam();
    const RunResult bare = runProgram({ PPE_ENDINGS, e.how }, { { "PPE_ON", "", true } }, m_dir.path());
    const std::string out = m_dir.file("end.ppe");
    const RunResult profiled = runProgram({ PPE_LAUNCHER, "-o", out, "--mode", "cpu", PPE_ENDINGS, e.how }, {},
        m_dir.path());
    EXPECT_EQ(profiled.exited, bare.exited) << profiled.err;
    EXPECT_EQ(profiled.status, bare.status) << profiled.err;
    EXPECT_EQ(profiled.signal, bare.signal) << profiled.err;
    EXPECT_EQ(profiled.coreDumped, bare.coreDumped) << profiled.err;
    // An exec'd program inherits PPE_OUT: its own profile takes the plain name, ours is the backup.
    const bool exec = std::string(e.reason) == "exec";
    auto profile = readProfile(exec ? out + ".~1~" : out);
    ASSERT_TRUE(profile) << profile.error().str() << "\n" << profiled.err;
    EXPECT_EQ(profile->endReason, e.reason);
    const FunctionSymbol work = findFunction(functionSymbols(PPE_ENDINGS), "work");
    uint64_t inWork = 0;
    for (const Bin& b : profile->bins)
        inWork += b.address >= work.address && b.address < work.address + work.size ? b.count : 0;
    EXPECT_GT(inWork, 20u) << "the work before the ending was sampled";
    EXPECT_NE(profiled.err.find("ppe: output file is " + out), std::string::npos) << profiled.err;
    if (exec) {
        auto successor = readProfile(out);
        ASSERT_TRUE(successor) << successor.error().str();
        EXPECT_EQ(successor->command.at(0), "true") << "the new image is profiled in its turn";
    }
}

INSTANTIATE_TEST_SUITE_P(Endings, EndingTest,
    ::testing::Values(Ending { "return", "exit" }, Ending { "exit", "exit" }, Ending { "_exit", "_exit" },
        Ending { "_Exit", "_exit" }, Ending { "abort", "signal 6" }, Ending { "segv", "signal 11" },
        Ending { "fpe", "signal 8" }, Ending { "ill", "signal 4" }, Ending { "term", "signal 15" },
        Ending { "int", "signal 2" }, Ending { "hup", "signal 1" }, Ending { "xcpu", "signal 24" },
        Ending { "usr1", "signal 10" }, Ending { "usr2", "signal 12" }, Ending { "pipe", "signal 13" },
        Ending { "quit", "signal 3" }, Ending { "alrm", "signal 14" }, Ending { "exec", "exec" },
        Ending { "execvp", "exec" }, Ending { "own-term", "_exit" }, Ending { "ignored-hup", "exit" }),
    [](const auto& info) {
        std::string name = info.param.how;
        for (char& c : name)
            c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
        return name;
    });

} // namespace
} // namespace ppe::testing
