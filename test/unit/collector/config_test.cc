// The collector's settings from a fake environment: PPE_ON decides everything, each bad value keeps
// its default with exactly one warning naming the variable.
#include "config.h"

#include "ppe/core/env_value.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

namespace ppe {

// Numbers in failure messages instead of the enums' bytes.
static void PrintTo(TimerChoice timer, std::ostream* os) { *os << "TimerChoice " << int(timer); }
static void PrintTo(SampleMode mode, std::ostream* os) { *os << "SampleMode " << int(mode); }

namespace {

    struct Variable {
        const char* name;
        const char* value;
    };

    struct Warning {
        std::string name, value, problem, kept;
    };

    // readConfig takes plain function pointers, as getenv is: the fake environment is a static table.
    std::vector<Variable> g_environment;
    std::vector<Warning> g_warnings;

    const char* fakeLookup(const char* name)
    {
        for (const Variable& v : g_environment) {
            if (std::strcmp(v.name, name) == 0)
                return v.value;
        }
        return nullptr;
    }

    void recordWarning(const char* name, const char* value, const char* problem, const char* kept)
    {
        g_warnings.push_back({ name, value, problem, kept });
    }

    Config readWith(std::initializer_list<Variable> environment)
    {
        g_environment.assign(environment);
        g_warnings.clear();
        return readConfig(fakeLookup, recordWarning);
    }

    void expectDefaults(const Config& c)
    {
        EXPECT_EQ(c.pages, kDefaultPages);
        EXPECT_EQ(c.interval, kDefaultInterval);
        EXPECT_EQ(c.mode, SampleMode::Real);
        EXPECT_EQ(c.timer, TimerChoice::Auto);
        EXPECT_EQ(c.checkpoint, 0u);
        EXPECT_EQ(c.output, nullptr);
    }

    TEST(ReadConfig, WithoutPpeOnNothingIsReadOrWarned)
    {
        const Config c = readWith({ { "PPE_MEM", "lots" }, { "PPE_INT", "0" }, { "PPE_MODE", "7" },
            { "PPE_TIMER", "fast" }, { "PPE_OUT", "" }, { "PPE_CHECKPOINT", "soon" } });
        EXPECT_FALSE(c.enabled);
        expectDefaults(c);
        EXPECT_TRUE(g_warnings.empty());
    }

    TEST(ReadConfig, WithoutPpeOnGoodValuesAreIgnoredToo)
    {
        const Config c = readWith({ { "PPE_MEM", "16" }, { "PPE_OUT", "x.ppe" }, { "PPE_MODE", "1" } });
        EXPECT_FALSE(c.enabled);
        expectDefaults(c);
    }

    TEST(ReadConfig, AnyPpeOnValueEnables)
    {
        for (const char* on : { "1", "", "0", "no", "false" }) {
            SCOPED_TRACE(std::string("PPE_ON=\"") + on + "\"");
            const Config c = readWith({ { "PPE_ON", on } });
            EXPECT_TRUE(c.enabled);
            expectDefaults(c);
            EXPECT_TRUE(g_warnings.empty());
        }
    }

    TEST(ReadConfig, EveryVariableWithAGoodValue)
    {
        const Config c = readWith({ { "PPE_ON", "1" }, { "PPE_OUT", "/tmp/run.ppe" }, { "PPE_MEM", "16" },
            { "PPE_INT", "100" }, { "PPE_MODE", "1" }, { "PPE_TIMER", "itimer" } });
        EXPECT_TRUE(c.enabled);
        EXPECT_STREQ(c.output, "/tmp/run.ppe");
        EXPECT_EQ(c.output, g_environment[1].value) << "PPE_OUT should point into the environment";
        EXPECT_EQ(c.pages, 16u);
        EXPECT_EQ(c.interval, 100u);
        EXPECT_EQ(c.mode, SampleMode::Cpu);
        EXPECT_EQ(c.timer, TimerChoice::Itimer);
        EXPECT_TRUE(g_warnings.empty());
    }

    TEST(ReadConfig, Limits)
    {
        Config c = readWith({ { "PPE_ON", "" }, { "PPE_MEM", "2097152" }, { "PPE_INT", "36000000000" } });
        EXPECT_EQ(c.pages, 2097152u);
        EXPECT_EQ(c.interval, 36'000'000'000u);
        EXPECT_TRUE(g_warnings.empty());
        c = readWith({ { "PPE_ON", "" }, { "PPE_MEM", "1" }, { "PPE_MODE", "0" } });
        EXPECT_EQ(c.pages, 1u);
        EXPECT_EQ(c.mode, SampleMode::Real);
        EXPECT_TRUE(g_warnings.empty());
    }

    struct BadValue {
        const char* value;
        ValueError error;
    };

    // One bad value of one numeric variable: default kept, exactly one warning that names it.
    void expectOneWarning(const char* name, const BadValue& bad, const char* kept)
    {
        SCOPED_TRACE(std::string(name) + "=\"" + bad.value + "\"");
        const Config c = readWith({ { "PPE_ON", "1" }, { name, bad.value } });
        EXPECT_TRUE(c.enabled);
        expectDefaults(c);
        ASSERT_EQ(g_warnings.size(), 1u);
        EXPECT_EQ(g_warnings[0].name, name);
        EXPECT_EQ(g_warnings[0].value, bad.value);
        EXPECT_EQ(g_warnings[0].problem, describe(bad.error));
        EXPECT_EQ(g_warnings[0].kept, kept);
    }

    const BadValue kMalformed[] = {
        { "", ValueError::Empty },
        { " 5", ValueError::NotDecimal },
        { "5 ", ValueError::NotDecimal },
        { "+5", ValueError::NotDecimal },
        { "-5", ValueError::NotDecimal },
        { "0x10", ValueError::NotDecimal },
        { "1e3", ValueError::NotDecimal },
        { "5k", ValueError::NotDecimal },
        { "18446744073709551616", ValueError::TooLarge },
    };

    TEST(ReadConfig, BadPpeMemKeeps2048)
    {
        for (const BadValue& bad : kMalformed)
            expectOneWarning("PPE_MEM", bad, "2048");
        expectOneWarning("PPE_MEM", { "0", ValueError::Zero }, "2048");
        expectOneWarning("PPE_MEM", { "2097153", ValueError::TooLarge }, "2048");
    }

    TEST(ReadConfig, BadPpeIntKeeps5000)
    {
        for (const BadValue& bad : kMalformed)
            expectOneWarning("PPE_INT", bad, "5000");
        expectOneWarning("PPE_INT", { "0", ValueError::Zero }, "5000");
        expectOneWarning("PPE_INT", { "99", ValueError::TooSmall }, "5000");
        expectOneWarning("PPE_INT", { "1", ValueError::TooSmall }, "5000");
        expectOneWarning("PPE_INT", { "36000000001", ValueError::TooLarge }, "5000");
    }

    TEST(ReadConfig, BadPpeModeKeepsRealTime)
    {
        for (const BadValue& bad : kMalformed)
            expectOneWarning("PPE_MODE", bad, "0");
        expectOneWarning("PPE_MODE", { "2", ValueError::TooLarge }, "0");
        expectOneWarning("PPE_MODE", { "CPU", ValueError::NotDecimal }, "0");
        expectOneWarning("PPE_MODE", { "wall", ValueError::NotDecimal }, "0");
    }

    // The launcher's words are taken too (issue 25: `PPE_MODE=cpu` was refused).
    TEST(ReadConfig, PpeModeTakesTheWordsRealAndCpu)
    {
        EXPECT_EQ(readWith({ { "PPE_ON", "1" }, { "PPE_MODE", "cpu" } }).mode, SampleMode::Cpu);
        EXPECT_EQ(readWith({ { "PPE_ON", "1" }, { "PPE_MODE", "real" } }).mode, SampleMode::Real);
        EXPECT_EQ(readWith({ { "PPE_ON", "1" }, { "PPE_MODE", "1" } }).mode, SampleMode::Cpu);
    }

    TEST(ReadConfig, SeveralBadValuesWarnOnceEach)
    {
        const Config c = readWith(
            { { "PPE_ON", "1" }, { "PPE_MEM", "x" }, { "PPE_INT", "1" }, { "PPE_MODE", "2" }, { "PPE_OUT", "" } });
        expectDefaults(c);
        ASSERT_EQ(g_warnings.size(), 4u);
        std::vector<std::string> names;
        for (const Warning& w : g_warnings)
            names.push_back(w.name);
        EXPECT_EQ(names, (std::vector<std::string> { "PPE_OUT", "PPE_MEM", "PPE_INT", "PPE_MODE" }));
    }

    TEST(ReadConfig, CheckpointSeconds)
    {
        EXPECT_EQ(readWith({ { "PPE_ON", "1" }, { "PPE_CHECKPOINT", "60" } }).checkpoint, 60u);
        EXPECT_EQ(readWith({ { "PPE_ON", "1" }, { "PPE_CHECKPOINT", "31536000" } }).checkpoint, 31'536'000u);
        EXPECT_TRUE(g_warnings.empty());
        for (const BadValue& bad : kMalformed)
            expectOneWarning("PPE_CHECKPOINT", bad, "no checkpoints");
        expectOneWarning("PPE_CHECKPOINT", { "0", ValueError::Zero }, "no checkpoints");
        expectOneWarning("PPE_CHECKPOINT", { "31536001", ValueError::TooLarge }, "no checkpoints");
    }

    // Issue 39: PPE_CALLS is set or not; its stack bytes and tree nodes follow PPE's rules, each
    // bad value one warning and the default kept.
    TEST(ReadConfig, CallPathSettings)
    {
        const Config c = readWith(
            { { "PPE_ON", "1" }, { "PPE_CALLS", "" }, { "PPE_CALL_STACK", "4096" }, { "PPE_CALL_NODES", "2048" } });
        EXPECT_TRUE(c.calls);
        EXPECT_EQ(c.callStack, 4096u);
        EXPECT_EQ(c.callNodes, 2048u);
        EXPECT_TRUE(g_warnings.empty());
        EXPECT_FALSE(readWith({ { "PPE_ON", "1" } }).calls);
        for (const BadValue& bad : kMalformed) {
            expectOneWarning("PPE_CALL_STACK", bad, "8192");
            expectOneWarning("PPE_CALL_NODES", bad, "262144");
        }
        expectOneWarning("PPE_CALL_STACK", { "511", ValueError::TooSmall }, "8192");
        expectOneWarning("PPE_CALL_STACK", { "65001", ValueError::TooLarge }, "8192");
        expectOneWarning("PPE_CALL_NODES", { "1023", ValueError::TooSmall }, "262144");
        expectOneWarning("PPE_CALL_NODES", { "4194305", ValueError::TooLarge }, "262144");
    }

    TEST(ReadConfig, SnapshotSignalByNameOrNumber)
    {
        const struct {
            const char* value;
            int signal;
        } kGood[] = { { "USR2", SIGUSR2 }, { "SIGUSR2", SIGUSR2 }, { "USR1", SIGUSR1 }, { "10", SIGUSR1 },
            { "WINCH", SIGWINCH }, { "RTMIN", SIGRTMIN }, { "RTMIN+2", SIGRTMIN + 2 }, { "SIGRTMAX-4", SIGRTMAX - 4 } };
        for (const auto& good : kGood) {
            SCOPED_TRACE(good.value);
            EXPECT_EQ(
                readWith({ { "PPE_ON", "1" }, { "PPE_SNAPSHOT_SIGNAL", good.value } }).snapshotSignal, good.signal);
            EXPECT_TRUE(g_warnings.empty());
        }
        EXPECT_EQ(readWith({ { "PPE_ON", "1" } }).snapshotSignal, 0);
    }

    // The ending, fault, job-control and sampling signals are refused: each would change what the
    // program or the collector does with it.
    TEST(ReadConfig, SnapshotSignalRefusesSignalsWithAnotherJob)
    {
        for (const char* value :
            { "", "TERM", "SIGTERM", "INT", "HUP", "KILL", "9", "STOP", "SEGV", "11", "TRAP", "5", "PROF", "27", "CHLD",
                "CONT", "RTMAX-3", "RTMAX", "RTMIN+99", "RTMIN-1", "usr2", "USR2 ", "0", "65" }) {
            SCOPED_TRACE(std::string("PPE_SNAPSHOT_SIGNAL=\"") + value + "\"");
            EXPECT_EQ(readWith({ { "PPE_ON", "1" }, { "PPE_SNAPSHOT_SIGNAL", value } }).snapshotSignal, 0);
            ASSERT_EQ(g_warnings.size(), 1u);
            EXPECT_EQ(g_warnings[0].name, "PPE_SNAPSHOT_SIGNAL");
            EXPECT_EQ(g_warnings[0].kept, "no snapshots");
        }
    }

    TEST(ReadConfig, TimerChoices)
    {
        const struct {
            const char* value;
            TimerChoice timer;
        } kChoices[] = { { "auto", TimerChoice::Auto }, { "perf", TimerChoice::Perf },
            { "itimer", TimerChoice::Itimer }, { "posix", TimerChoice::Posix }, { "ring", TimerChoice::Ring } };
        for (const auto& choice : kChoices) {
            SCOPED_TRACE(choice.value);
            EXPECT_EQ(readWith({ { "PPE_ON", "1" }, { "PPE_TIMER", choice.value } }).timer, choice.timer);
            EXPECT_TRUE(g_warnings.empty());
        }
    }

    TEST(ReadConfig, RingPagesForTestsOnly)
    {
        EXPECT_EQ(readWith({ { "PPE_ON", "1" } }).ringPages, 0u); // sized for the rate
        EXPECT_EQ(readWith({ { "PPE_ON", "1" }, { "PPE_RING_PAGES", "2" } }).ringPages, 2u);
        EXPECT_TRUE(g_warnings.empty());
        EXPECT_EQ(readWith({ { "PPE_ON", "1" }, { "PPE_RING_PAGES", "4096" } }).ringPages, 0u);
        EXPECT_EQ(g_warnings.size(), 1u);
    }

    TEST(ReadConfig, BadTimerKeepsAuto)
    {
        for (const char* value : { "", "PERF", "perf ", "posi", "posixx", "hpet", "rings" }) {
            SCOPED_TRACE(std::string("PPE_TIMER=\"") + value + "\"");
            const Config c = readWith({ { "PPE_ON", "1" }, { "PPE_TIMER", value } });
            expectDefaults(c);
            ASSERT_EQ(g_warnings.size(), 1u);
            EXPECT_EQ(g_warnings[0].name, "PPE_TIMER");
            EXPECT_EQ(g_warnings[0].value, value);
            EXPECT_EQ(g_warnings[0].problem, "not one of auto, perf, itimer, posix, ring");
            EXPECT_EQ(g_warnings[0].kept, "auto");
        }
    }

    TEST(ReadConfig, EmptyPpeOutWarnsAndUsesTheDefaultName)
    {
        const Config c = readWith({ { "PPE_ON", "1" }, { "PPE_OUT", "" } });
        EXPECT_EQ(c.output, nullptr);
        ASSERT_EQ(g_warnings.size(), 1u);
        EXPECT_EQ(g_warnings[0].name, "PPE_OUT");
        EXPECT_EQ(g_warnings[0].value, "");
        EXPECT_EQ(g_warnings[0].problem, "empty value");
        EXPECT_EQ(g_warnings[0].kept, "the default name");
    }

    TEST(ReadConfig, PpeObjectNamesTheMonitoredSharedObject)
    {
        EXPECT_EQ(readWith({ { "PPE_ON", "1" } }).object, nullptr) << "the executable by default";
        EXPECT_STREQ(readWith({ { "PPE_ON", "1" }, { "PPE_OBJECT", "libkernel.so" } }).object, "libkernel.so");
        EXPECT_TRUE(g_warnings.empty());
        EXPECT_EQ(readWith({ { "PPE_ON", "1" }, { "PPE_OBJECT", "" } }).object, nullptr);
        ASSERT_EQ(g_warnings.size(), 1u);
        EXPECT_EQ(g_warnings[0].name, "PPE_OBJECT");
        EXPECT_EQ(g_warnings[0].kept, "the executable");
    }

    TEST(ReadConfig, TheRankIsTheFirstRankVariableThatIsANumber)
    {
        Config c = readWith({ { "PPE_ON", "1" }, { "SLURM_PROCID", "5" }, { "PMI_RANK", "2" } });
        EXPECT_STREQ(c.rank, "2");
        EXPECT_TRUE(g_warnings.empty());
        c = readWith({ { "PPE_ON", "1" }, { "OMPI_COMM_WORLD_RANK", "x" }, { "PMIX_RANK", "7" } });
        EXPECT_STREQ(c.rank, "7");
        ASSERT_EQ(g_warnings.size(), 1u);
        EXPECT_EQ(g_warnings[0].name, "OMPI_COMM_WORLD_RANK");
        c = readWith({ { "PPE_ON", "1" } });
        EXPECT_EQ(c.rank, nullptr);
    }

    // A batch script has SLURM_PROCID=0 but is one process: only the tasks of an srun step are ranks.
    TEST(ReadConfig, SlurmProcIdIsARankInAStepOnly)
    {
        EXPECT_EQ(readWith({ { "PPE_ON", "1" }, { "SLURM_PROCID", "0" } }).rank, nullptr);
        EXPECT_STREQ(
            readWith({ { "PPE_ON", "1" }, { "SLURM_PROCID", "3" }, { "SLURM_STEP_NUM_TASKS", "4" } }).rank, "3");
        EXPECT_TRUE(g_warnings.empty());
    }

    TEST(ReadConfig, TheJobIdComesFromSlurmOrPbs)
    {
        EXPECT_STREQ(readWith({ { "PPE_ON", "1" }, { "PBS_JOBID", "12.srv" } }).job, "12.srv");
        EXPECT_STREQ(readWith({ { "PPE_ON", "1" }, { "PBS_JOBID", "12" }, { "SLURM_JOB_ID", "99" } }).job, "99");
        EXPECT_EQ(readWith({ { "PPE_ON", "1" } }).job, nullptr);
    }

} // namespace
} // namespace ppe
