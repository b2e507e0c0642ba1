// How the real `ppe` reads its command line (issue 38): its options end at the program's name, as
// Boost.Program_options reads them, from one table; and the output patterns it takes are exactly
// those libppe expands. The options and the patterns are read from `ppe --help`, so that an
// option or pattern added to the launcher is tested here without a list of them in the test.
#include "run_program.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace ppe::testing {
namespace {

    // The program the launcher runs: prints its arguments, each in [], then its environment.
    const std::vector<std::string> kShow = { "sh", "-c", "printf '[%s]' \"$@\"; echo; env", "sh" };

    struct HelpOption {
        std::string name; // the long name
        std::string letter; // the short one, or ""
        std::string valueName; // "" for a switch
        std::string help; // its description, lines joined
        std::string variable; // the first PPE_ variable its help names, or ""
    };

    // The options `ppe --help` lists: "  -o [ --output ] FILE|DIR/ profile ..." or "  --lib PATH ...",
    // a description going on in the lines that follow.
    std::vector<HelpOption> optionsInHelp()
    {
        const RunResult r = runProgram({ PPE_LAUNCHER, "--help" });
        EXPECT_EQ(r.status, 0) << r.err;
        const std::regex optionLine(R"(  (?:-(\w) \[ --([\w-]+) \]|--([\w-]+))(?: ([A-Z][A-Z|/]*))?\s+(.*))");
        std::vector<HelpOption> options;
        std::istringstream in(r.out);
        for (std::string line; std::getline(in, line);) {
            std::smatch m;
            if (std::regex_match(line, m, optionLine))
                options.push_back({ m[2].matched ? m[2].str() : m[3].str(), m[1].str(), m[4].str(), m[5].str(), "" });
            else if (!options.empty() && line.starts_with("    "))
                options.back().help += " " + line.substr(line.find_first_not_of(' '));
        }
        for (HelpOption& option : options) {
            std::smatch m;
            if (std::regex_search(option.help, m, std::regex("PPE_[A-Z_]+")))
                option.variable = m.str();
        }
        return options;
    }

    // A value each option takes, by the name its help gives the value.
    std::map<std::string, std::string> sampleValues(const TempDir& dir)
    {
        return { { "FILE|DIR/", dir.file("v.ppe") }, { "PAGES", "64" }, { "N", "5000" }, { "HZ", "2000" },
            { "MODE", "cpu" }, { "KIND", "auto" }, { "PATH", PPE_LIBRARY }, { "NAME", "libc.so.6" },
            { "SECONDS", "60" }, { "SIG", "USR2" }, { "LIVE", dir.file("gone.ppe.1.live") }, { "BYTES", "4096" } };
    }

    // Every way Boost takes `value` for `option`: --NAME V, --NAME=V, -X V, -XV.
    std::vector<std::vector<std::string>> spellings(const HelpOption& option, const std::string& value)
    {
        std::vector<std::vector<std::string>> forms
            = { { "--" + option.name, value }, { "--" + option.name + "=" + value } };
        if (!option.letter.empty()) {
            forms.push_back({ "-" + option.letter, value });
            forms.push_back({ "-" + option.letter + value });
        }
        return forms;
    }

    // `ppe BEFORE sh -c SHOW sh AFTER`, with no PPE_ setting of the caller's.
    RunResult runShow(const TempDir& dir, const std::vector<HelpOption>& options,
        const std::vector<std::string>& before, const std::vector<std::string>& after)
    {
        std::vector<std::string> argv = { PPE_LAUNCHER };
        argv.insert(argv.end(), before.begin(), before.end());
        argv.insert(argv.end(), kShow.begin(), kShow.end());
        argv.insert(argv.end(), after.begin(), after.end());
        std::vector<EnvChange> env;
        for (const HelpOption& option : options) {
            if (!option.variable.empty())
                env.push_back({ option.variable, "", true });
        }
        return runProgram(argv, env, dir.path());
    }

    std::string bracketed(const std::vector<std::string>& words)
    {
        std::string text;
        for (const std::string& word : words)
            text += "[" + word + "]";
        return text;
    }

    bool setsVariable(const RunResult& r, const std::string& variable)
    {
        return ("\n" + r.out).find("\n" + variable + "=") != std::string::npos;
    }

    // Before PROG, the option takes its value in each spelling (the program runs with the variable
    // it sets); after PROG, the same words are the program's own, untouched. A launcher that finds
    // PROG from a list of its own fails here for an option missing from that list.
    void expectReadOnlyBeforeTheProgram(const TempDir& dir, const std::vector<HelpOption>& options,
        const HelpOption& option, const std::vector<std::vector<std::string>>& forms)
    {
        std::vector<std::string> after;
        for (const std::vector<std::string>& form : forms)
            after.insert(after.end(), form.begin(), form.end());
        for (const std::vector<std::string>& form : forms) {
            const RunResult r = runShow(dir, options, form, after);
            if (option.valueName == "LIVE") { // --recover: no program runs, the missing file is named
                EXPECT_EQ(r.status, 1) << ::testing::PrintToString(form) << r.err;
                EXPECT_NE(r.err.find("gone.ppe.1.live"), std::string::npos) << r.err;
                continue;
            }
            ASSERT_EQ(r.status, 0) << ::testing::PrintToString(form) << "\n" << r.err;
            EXPECT_EQ(r.out.substr(0, r.out.find('\n')), bracketed(after)) << ::testing::PrintToString(form);
            if (!option.variable.empty()) {
                EXPECT_TRUE(setsVariable(r, option.variable)) << ::testing::PrintToString(form) << " " << r.out;
            }
        }
        const RunResult untouched = runShow(dir, options, {}, after);
        ASSERT_EQ(untouched.status, 0) << untouched.err;
        EXPECT_EQ(untouched.out.substr(0, untouched.out.find('\n')), bracketed(after));
        if (!option.variable.empty()) {
            EXPECT_FALSE(setsVariable(untouched, option.variable)) << option.name << " after PROG was ppe's";
        }
    }

    TEST(LauncherTest, EveryOptionIsReadBeforeTheProgramInEachSpellingAndLeftToItAfter)
    {
        TempDir dir;
        const std::vector<HelpOption> options = optionsInHelp();
        ASSERT_GE(options.size(), 10u) << "ppe --help lists its options";
        const std::map<std::string, std::string> samples = sampleValues(dir);
        int checked = 0;
        for (const HelpOption& option : options) {
            SCOPED_TRACE("--" + option.name);
            if (option.valueName.empty() && option.variable.empty())
                continue; // --help, --version: they end ppe (LauncherTest.BundlesAttached... below)
            if (option.valueName.empty()) {
                expectReadOnlyBeforeTheProgram(dir, options, option, { { "--" + option.name } });
                ++checked;
                continue;
            }
            const auto sample = samples.find(option.valueName);
            ASSERT_NE(sample, samples.end()) << "give the test a value for " << option.valueName;
            expectReadOnlyBeforeTheProgram(dir, options, option, spellings(option, sample->second));
            ++checked;
        }
        EXPECT_GE(checked, 10);
    }

    TEST(LauncherTest, BundlesAttachedValuesAndAbbreviationsReadAsBoostReadsThem)
    {
        TempDir dir;
        const std::vector<std::string> showMem = { "sh", "-c", "echo \"$PPE_MEM\"" };
        auto ppe = [&](std::vector<std::string> argv) {
            argv.insert(argv.begin(), PPE_LAUNCHER);
            return runProgram(argv, { { "PPE_MEM", "", true } }, dir.path());
        };
        std::vector<std::string> attached = { "-m64" }, prefix = { "--me", "64" };
        attached.insert(attached.end(), showMem.begin(), showMem.end());
        prefix.insert(prefix.end(), showMem.begin(), showMem.end());
        EXPECT_EQ(ppe(attached).out, "64\n");
        EXPECT_EQ(ppe(prefix).out, "64\n") << "Boost takes a prefix of one option's name";
        // -Vo FILE: -V and -o FILE, so FILE is no program; -V ends ppe.
        const RunResult versionBundle = ppe({ "-Vo", dir.file("v.ppe"), "sh", "-c", "echo ran" });
        EXPECT_EQ(versionBundle.status, 0) << versionBundle.err;
        EXPECT_TRUE(versionBundle.out.starts_with("ppe ")) << versionBundle.out;
        const RunResult helpBundle = ppe({ "-Vh" });
        EXPECT_EQ(helpBundle.status, 0) << helpBundle.err;
        EXPECT_TRUE(helpBundle.out.starts_with("usage: ppe")) << helpBundle.out;
        const RunResult ambiguous = ppe({ "--m", "64", "sh", "-c", "echo ran" });
        EXPECT_EQ(ambiguous.status, 125);
        EXPECT_NE(ambiguous.err.find("'--m' is ambiguous"), std::string::npos) << ambiguous.err;
    }

    TEST(LauncherTest, AnUnknownOptionBeforeTheProgramIsAOneLineUsageError)
    {
        TempDir dir;
        for (const std::vector<std::string>& before :
            { std::vector<std::string> { "--bogus" }, { "--bogus=1" }, { "--bogus", "1" }, { "-x" } }) {
            std::vector<std::string> argv = { PPE_LAUNCHER };
            argv.insert(argv.end(), before.begin(), before.end());
            argv.insert(argv.end(), { "sh", "-c", "echo ran" });
            const RunResult r = runProgram(argv, {}, dir.path());
            EXPECT_EQ(r.status, 125) << r.err;
            EXPECT_EQ(r.out, "") << "the program must not run";
            EXPECT_TRUE(r.err.starts_with("ppe: error: unrecognised option '" + before[0] + "'")) << r.err;
            EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        }
    }

    // "--" ends ppe's options: a program whose name starts with '-' runs, with its own -o.
    TEST(LauncherTest, AfterDoubleDashTheProgramsNameMayStartWithADash)
    {
        TempDir dir;
        const std::string script = dir.file("-weird");
        std::ofstream(script) << "#!/bin/sh\nprintf '[%s]' \"$@\"\n";
        ASSERT_EQ(chmod(script.c_str(), 0755), 0);
        const std::vector<EnvChange> path = { { "PATH", dir.path() + ":" + getenv("PATH") } };
        const RunResult r
            = runProgram({ PPE_LAUNCHER, "-o", dir.file("w.ppe"), "--", "-weird", "-o", "x" }, path, dir.path());
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.out, "[-o][x]");
        const RunResult without = runProgram({ PPE_LAUNCHER, "-weird" }, path, dir.path());
        EXPECT_EQ(without.status, 125) << without.err;
        EXPECT_EQ(without.out, "");
    }

    // What libppe makes of "%<letter>" in an output name, run with SLURM_JOB_ID=42 and no rank:
    // a letter missing here fails the test, which then says which.
    std::map<char, std::string> expansions(int pid)
    {
        char host[256] = "";
        gethostname(host, sizeof(host) - 1);
        const std::string shortHost = std::string(host).substr(0, std::string(host).find('.'));
        return { { 'p', std::to_string(pid) }, { 'h', shortHost }, { 'r', std::to_string(pid) }, { 'j', "42" },
            { '%', "%" } };
    }

    const std::vector<EnvChange> kJobWithoutRank = { { "SLURM_JOB_ID", "42" }, { "SLURM_PROCID", "", true },
        { "PMI_RANK", "", true }, { "OMPI_COMM_WORLD_RANK", "", true }, { "PMIX_RANK", "", true },
        { "PBS_JOBID", "", true }, { "PPE_OUT", "", true } };

    // The letters `ppe -o` takes after a '%' are exactly those libppe expands: each one the
    // launcher takes gives the file name libppe makes of it, each one it refuses (before the
    // program runs) libppe keeps as it is; and the help names the ones it takes.
    TEST(LauncherTest, TheOutputPatternsItTakesAreExactlyThoseTheCollectorExpands)
    {
        TempDir dir;
        std::string taken, refused;
        for (char letter = '!'; letter <= '~'; ++letter) {
            if (letter == '/')
                continue;
            const std::string name = dir.file(std::string("x%") + letter + ".ppe");
            const Running running = startProgram({ PPE_LAUNCHER, "-o", name, "true" }, kJobWithoutRank, dir.path());
            const RunResult r = waitProgram(running);
            if (r.status == 125) {
                EXPECT_NE(r.err.find(std::string("'%") + letter + "' is no pattern"), std::string::npos) << r.err;
                refused += letter;
                continue;
            }
            ASSERT_EQ(r.status, 0) << r.err;
            taken += letter;
            const std::map<char, std::string> expected = expansions(running.pid);
            ASSERT_TRUE(expected.count(letter)) << "ppe -o takes %" << letter << ": say what libppe makes of it";
            EXPECT_TRUE(fileExists(dir.file("x" + expected.at(letter) + ".ppe"))) << "%" << letter << "\n" << r.err;
        }
        EXPECT_EQ(taken.size(), expansions(0).size()) << taken;
        std::string help;
        for (const HelpOption& option : optionsInHelp())
            help += option.name == "output" ? option.help : "";
        for (char letter : taken)
            EXPECT_NE(help.find(std::string("%") + letter), std::string::npos) << "--help names %" << letter;
        std::string kept = "y";
        for (char letter : refused)
            kept += std::string("%") + letter;
        std::vector<EnvChange> env = kJobWithoutRank;
        env.insert(env.end(), { { "PPE_ON", "1" }, { "LD_PRELOAD", PPE_LIBRARY }, { "PPE_OUT", dir.file(kept) } });
        const RunResult direct = runProgram({ "true" }, env, dir.path());
        ASSERT_EQ(direct.status, 0) << direct.err;
        EXPECT_TRUE(fileExists(dir.file(kept))) << "libppe keeps every pattern ppe refuses as it is\n" << direct.err;
    }

} // namespace
} // namespace ppe::testing
