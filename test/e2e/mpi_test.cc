// Many processes (issue 20): a real Open MPI job under the real collector, each rank writing its
// own profile; ppeout merging them (a directory, a pattern), re-binning different widths, refusing
// profiles of different programs, and its per-rank imbalance naming the heavy rank.
#include "mpi_support.h"
#include "report_text.h"
#include "run_program.h"
#include "temp_dir.h"

#include "ppe/profile/live_recovery.h"
#include "ppe/profile/profile_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <signal.h>
#include <sstream>
#include <unistd.h>

namespace ppe::testing {
namespace {

    const std::string kExamples = PPE_EXAMPLES_DIR;

    uint64_t totalOf(const std::string& report)
    {
        std::smatch m;
        return std::regex_search(report, m, std::regex(R"(Total count\s+(\d+))")) ? std::stoull(m[1].str()) : 0;
    }

    double hitsOf(const std::string& report, const std::string& module)
    {
        for (const Row& row : moduleRows(report)) {
            if (row.name == module)
                return row.hits;
        }
        return 0;
    }

    Profile readBack(const std::string& path)
    {
        auto profile = readProfile(path);
        EXPECT_TRUE(profile) << (profile ? "" : profile.error().str());
        return profile ? *profile : Profile {};
    }

    // One row of the imbalance section's module table.
    struct Spread {
        double hits = 0, min = 0, mean = 0, max = 0, variation = 0;
        uint64_t maxRank = 0;
        bool found = false;
    };

    Spread spreadOf(const std::string& report, const std::string& module)
    {
        const size_t section = report.find("PER-RANK IMBALANCE");
        Spread s;
        if (section == std::string::npos)
            return s;
        std::istringstream in(report.substr(section));
        const std::regex row(R"(^ *\d+ - (\S+) +(\d+) +([0-9.]+) +([0-9.]+) +([0-9.]+) +(\d+) +([0-9.]+)$)");
        for (std::string line; std::getline(in, line);) {
            std::smatch m;
            if (std::regex_match(line, m, row) && m[1] == module)
                return { std::stod(m[2]), std::stod(m[3]), std::stod(m[4]), std::stod(m[5]), std::stod(m[7]),
                    std::stoull(m[6]), true };
        }
        return s;
    }

#ifdef PPE_MPI_IMBALANCE
    const std::string kMpiProgram = PPE_MPI_IMBALANCE;
#endif

    TEST(MpiTest, FourRanksWriteFourFilesByRankAndTheMergeIsTheirSum)
    {
        PPE_NEEDS_MPI();
#ifdef PPE_MPI_IMBALANCE
        TempDir dir;
        const RunResult run = mpirun({ kMpiProgram, "1", "2" }, dir.path() + "/");
        ASSERT_EQ(run.status, 0) << run.err;
        uint64_t sum = 0;
        double ownWork = 0;
        for (int rank = 0; rank < 4; ++rank) {
            const std::string file = dir.file("mpi_imbalance.rank" + std::to_string(rank) + ".ppe");
            ASSERT_TRUE(fileExists(file)) << file << "\n" << run.err;
            const Profile p = readBack(file);
            ASSERT_TRUE(p.rank) << file << ": no rank record";
            EXPECT_EQ(*p.rank, uint64_t(rank));
            sum += p.total;
            const RunResult one = runProgram({ PPEOUT, "--by", "function", file, "-" });
            ASSERT_EQ(one.status, 0) << one.err;
            ownWork += hitsOf(one.out, "own_work");
        }
        for (const std::string& input : { dir.path(), dir.path() + "/*.ppe" }) {
            const RunResult merged = runProgram({ PPEOUT, "--by", "function", input, "-" });
            ASSERT_EQ(merged.status, 0) << input << ": " << merged.err;
            EXPECT_EQ(totalOf(merged.out), sum) << merged.out;
            EXPECT_NE(merged.out.find("Merged: 4 profiles"), std::string::npos) << merged.out;
            // One-byte bins: no bin is split, so the merged hits are the files' hits added.
            EXPECT_NEAR(hitsOf(merged.out, "own_work"), ownWork, 0.5) << merged.out;
            const Spread own = spreadOf(merged.out, "own_work");
            ASSERT_TRUE(own.found) << merged.out;
            EXPECT_EQ(own.maxRank, 2u) << "rank 2 does 4 times the own_work of the others\n" << merged.out;
            EXPECT_GT(own.max, own.min) << merged.out;
            EXPECT_GT(own.variation, 0.0) << merged.out;
        }
#endif
    }

#ifdef PPE_MPI_IMBALANCE
    // A merge node by node (issue 35): `ppeout --merge-out` of two ranks' files each, then the
    // report of the two parts, has the module table of the report of the four files at once.
    TEST(MpiTest, ANodeByNodeMergeGivesTheTableOfTheOneLevelMerge)
    {
        PPE_NEEDS_MPI();
        TempDir dir, parts;
        const RunResult run = mpirun({ kMpiProgram, "1", "2" }, dir.path() + "/");
        ASSERT_EQ(run.status, 0) << run.err;
        auto rankFile = [&](int r) { return dir.file("mpi_imbalance.rank" + std::to_string(r) + ".ppe"); };
        for (int node = 0; node < 2; ++node) {
            const RunResult m = runProgram({ PPEOUT, "--merge-out", parts.file("node" + std::to_string(node) + ".ppe"),
                rankFile(2 * node), rankFile(2 * node + 1) });
            ASSERT_EQ(m.status, 0) << m.err;
        }
        const RunResult one = runProgram({ PPEOUT, "--by", "function", dir.path(), "-" });
        const RunResult two = runProgram({ PPEOUT, "--by", "function", parts.path(), "-" });
        ASSERT_EQ(one.status, 0) << one.err;
        ASSERT_EQ(two.status, 0) << two.err;
        EXPECT_NE(two.out.find("Merged: 4 profiles"), std::string::npos) << two.out;
        EXPECT_EQ(totalOf(two.out), totalOf(one.out)) << one.out << two.out;
        const std::vector<Row> a = moduleRows(one.out), b = moduleRows(two.out);
        ASSERT_FALSE(a.empty()) << one.out;
        ASSERT_EQ(a.size(), b.size()) << one.out << two.out;
        for (size_t i = 0; i < a.size(); ++i) {
            EXPECT_EQ(a[i].name, b[i].name);
            EXPECT_EQ(a[i].hits, b[i].hits) << a[i].name;
            EXPECT_EQ(a[i].percent, b[i].percent) << a[i].name;
        }
        EXPECT_NE(two.err.find("merges themselves"), std::string::npos) << "the imbalance is by part\n" << two.err;
    }

    // Rank 1 of mpi_imbalance fails `how` ("abort", "exit", "crash") after working 2 units; the others
    // work until mpirun kills them. Every rank leaves a profile: NAME.rankR.ppe when it wrote it
    // before mpirun's SIGKILL, else its live file, which ppeout recovers. A merge of the directory
    // counts all four (a live file left beside a written profile is not counted twice).
    void expectEveryRankInTheMerge(const std::string& how)
    {
        TempDir dir;
        const RunResult run = mpirun({ kMpiProgram, how, "2", "1" }, dir.path() + "/");
        ASSERT_NE(run.status, 0) << how << ": a failed rank fails the job";
        ASSERT_NE(run.status, 124) << how << ": timed out: the ranks were not killed\n" << run.err;
        std::map<int, std::string> profiles;
        for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
            const std::string name = entry.path().filename().string();
            std::smatch m;
            if (std::regex_match(name, m, std::regex(R"(mpi_imbalance\.rank(\d)\.ppe(\.\d+\.live)?)"))
                && (!profiles.count(std::stoi(m[1])) || !m[2].matched))
                profiles[std::stoi(m[1])] = entry.path().string();
        }
        ASSERT_EQ(profiles.size(), 4u) << how << "\n" << run.err;
        uint64_t sum = 0;
        for (const auto& [rank, file] : profiles) {
            const RunResult out = runProgram({ PPEOUT, "--by", "function", file, "-" });
            ASSERT_EQ(out.status, 0) << file << ": " << out.err;
            EXPECT_GT(totalOf(out.out), 0u) << file << "\n" << out.out;
            sum += totalOf(out.out);
            std::smatch status;
            const bool partial = std::regex_search(out.out, status, std::regex(R"(Profile status: (\w+))"));
            std::cout << how << ": rank " << rank << ": " << std::filesystem::path(file).filename().string() << ", "
                      << totalOf(out.out) << " samples, " << (partial ? status[1].str() : "complete") << "\n";
            if (rank == 1) {
                EXPECT_GT(hitsOf(out.out, "own_work"), 0) << "the failing rank worked first\n" << out.out;
            }
        }
        const RunResult merged = runProgram({ PPEOUT, "--by", "function", dir.path(), "-" });
        ASSERT_EQ(merged.status, 0) << merged.err;
        EXPECT_NE(merged.out.find("Merged: 4 profiles"), std::string::npos) << merged.out << merged.err;
        EXPECT_NE(merged.out.find("PER-RANK IMBALANCE OF 4 MERGED PROFILES"), std::string::npos) << merged.out;
        EXPECT_EQ(totalOf(merged.out), sum) << merged.out;
        EXPECT_EQ(merged.out.find("still running"), std::string::npos) << "every rank has ended\n" << merged.out;
        for (const auto& [rank, file] : profiles) {
            if (file.ends_with(".live")) {
                EXPECT_NE(merged.err.find(file + ": a process that did not write its profile"), std::string::npos)
                    << merged.err;
            }
        }
    }
#endif

    TEST(MpiTest, WhenOneRankAbortsEveryRankLeavesAProfileAndTheMergeCountsThemAll)
    {
        PPE_NEEDS_MPI();
#ifdef PPE_MPI_IMBALANCE
        expectEveryRankInTheMerge("abort");
#endif
    }

    // A rank that fails without MPI_Abort: mpirun sees its exit status (or its signal) and kills the
    // others.
    TEST(MpiTest, WhenOneRankExitsOrCrashesEveryRankLeavesAProfileAndTheMergeCountsThemAll)
    {
        PPE_NEEDS_MPI();
#ifdef PPE_MPI_IMBALANCE
        expectEveryRankInTheMerge("exit");
        expectEveryRankInTheMerge("crash");
#endif
    }

    // `ppe -o` with patterns: the host and pid in the name, a forked child with its own pid, and a
    // Slurm rank and job id from the environment.
    TEST(MpiTest, TheLaunchersOutputTakesPatternsAndAForkedChildItsOwnPid)
    {
        TempDir dir;
        const RunResult run = runProgram(
            { PPE_LAUNCHER, "--mode", "cpu", "-o", dir.file("%h.%p.ppe"), PPE_FORK_CHILD }, {}, dir.path());
        ASSERT_EQ(run.status, 0) << run.err;
        std::smatch child;
        ASSERT_TRUE(std::regex_search(run.out, child, std::regex("child ([0-9]+) "))) << run.out;
        std::vector<Profile> profiles;
        for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
            profiles.push_back(readBack(entry.path().string()));
        ASSERT_EQ(profiles.size(), 2u) << run.err;
        for (const Profile& p : profiles) {
            const std::string host = p.host.substr(0, p.host.find('.'));
            EXPECT_TRUE(fileExists(dir.file(host + "." + std::to_string(p.pid) + ".ppe"))) << p.pid;
        }
        EXPECT_TRUE(profiles[0].pid == std::stoull(child[1]) || profiles[1].pid == std::stoull(child[1]));
        std::filesystem::create_directory(dir.file("job42"));
        const RunResult inJob = runProgram({ PPE_LAUNCHER, "-o", dir.file("job%j/"), kExamples + "/simp", "1000003" },
            { { "SLURM_PROCID", "6" }, { "SLURM_STEP_NUM_TASKS", "8" }, { "SLURM_JOB_ID", "42" } });
        ASSERT_EQ(inJob.status, 0) << inJob.err;
        const Profile ranked = readBack(dir.file("job42/simp.rank6.ppe"));
        ASSERT_TRUE(ranked.rank);
        EXPECT_EQ(*ranked.rank, 6u);
        const RunResult bad = runProgram({ PPE_LAUNCHER, "-o", dir.file("%y.ppe"), kExamples + "/simp", "3" });
        EXPECT_NE(bad.status, 0);
        EXPECT_NE(bad.err.find("'%y' is no pattern"), std::string::npos) << bad.err;
    }

    // Processes that know no rank, run side by side into one directory: one file each, named by
    // pid (they used to share DIR/diff_work.ppe, each keeping the last one's as a backup), and the
    // merge of the directory is all of them.
    TEST(MpiTest, RanklessProcessesIntoOneDirectoryEachWriteTheirOwnFile)
    {
        TempDir dir;
        std::vector<Running> runs;
        for (int i = 0; i < 3; ++i)
            runs.push_back(startProgram({ kExamples + "/diff_work", "20" },
                { { "PPE_ON", "1" }, { "PPE_MODE", "1" }, { "PPE_OUT", dir.path() + "/" } }));
        uint64_t sum = 0;
        for (const Running& running : runs) {
            const RunResult r = waitProgram(running);
            ASSERT_EQ(r.status, 0) << r.err;
            const std::string file = dir.file("diff_work." + std::to_string(running.pid) + ".ppe");
            EXPECT_NE(r.err.find("ppe: output file is " + file), std::string::npos) << r.err;
            const Profile p = readBack(file);
            EXPECT_EQ(p.pid, uint64_t(running.pid));
            EXPECT_GT(p.total, 0u) << file;
            sum += p.total;
        }
        EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 3) << "no backups, no others";
        const RunResult merged = runProgram({ PPEOUT, dir.path() + "/", "-" });
        ASSERT_EQ(merged.status, 0) << merged.err;
        EXPECT_NE(merged.out.find("Merged: 3 profiles"), std::string::npos) << merged.out;
        EXPECT_EQ(totalOf(merged.out), sum) << merged.out;
    }

    // The live file in `dir`, once its process has taken `samples` samples ("" if it never does).
    std::string liveFileWith(const std::string& dir, uint64_t samples)
    {
        for (int attempt = 0; attempt < 15000; ++attempt) {
            for (const auto& entry : std::filesystem::directory_iterator(dir)) {
                const std::string path = entry.path().string();
                auto text = path.ends_with(".live") ? recoverLiveFile(path) : Result<std::string>(Error {});
                auto p = text ? parseProfile(*text, path) : Result<Profile>(Error {});
                if (p && p->total >= samples)
                    return path;
            }
            usleep(2000); // polling interval only: the condition is the sample count
        }
        return "";
    }

    // Waits until `pid`, a child not yet reaped, is a zombie (state Z in /proc/PID/stat).
    bool waitForZombie(int pid)
    {
        for (int attempt = 0; attempt < 5000; ++attempt) {
            const std::string stat = readFile("/proc/" + std::to_string(pid) + "/stat");
            const size_t paren = stat.rfind(')');
            if (paren != std::string::npos && stat.compare(paren, 3, ") Z") == 0)
                return true;
            usleep(1000); // polling interval only: the condition is the process's state
        }
        return false;
    }

    // A directory with one complete profile, the live file of a process killed before it wrote its
    // profile, and a live file left beside a written profile: the merge takes the first two (the
    // killed one as recovered, with a warning) and leaves the third out (with a note).
    TEST(MpiTest, AMergeTakesAKilledProcesssLiveFileAndLeavesOutOneBesideItsProfile)
    {
        TempDir dir;
        const std::vector<EnvChange> env { { "PPE_ON", "1" }, { "PPE_MODE", "1" }, { "PPE_OUT", dir.path() + "/" } };
        const Running finished = startProgram({ kExamples + "/diff_work", "20" }, env);
        const RunResult done = waitProgram(finished);
        ASSERT_EQ(done.status, 0) << done.err;
        const Running endless = startProgram({ kExamples + "/diff_work", "100000" }, env);
        const std::string live = liveFileWith(dir.path(), 200);
        kill(endless.pid, SIGKILL);
        // Not reaped yet: a zombie, whose /proc entry stays, and which recovery must not take for a
        // process still running.
        const bool zombie = waitForZombie(endless.pid);
        const std::string complete = dir.file("diff_work." + std::to_string(finished.pid) + ".ppe");
        const std::string stale = complete + "." + std::to_string(finished.pid) + ".live";
        if (!live.empty())
            std::filesystem::copy_file(live, stale); // as if killed between writing its profile and removing this
        const RunResult merged = runProgram({ PPEOUT, dir.path(), "-" });
        const RunResult killed = waitProgram(endless);
        ASSERT_FALSE(live.empty()) << "no live file reached 200 samples\n" << killed.err;
        EXPECT_EQ(killed.signal, SIGKILL);
        EXPECT_TRUE(zombie) << "the killed process never showed as a zombie";
        const uint64_t sum = readBack(complete).total + parseProfile(*recoverLiveFile(live), live)->total;
        ASSERT_EQ(merged.status, 0) << merged.err;
        EXPECT_NE(merged.out.find("Merged: 2 profiles"), std::string::npos) << merged.out << merged.err;
        EXPECT_EQ(totalOf(merged.out), sum) << merged.out;
        EXPECT_NE(merged.err.find("warning: " + live + ": a process that did not write its profile"), std::string::npos)
            << merged.err;
        EXPECT_NE(merged.err.find(stale + ": left out: its process wrote its profile"), std::string::npos)
            << merged.err;
        EXPECT_NE(merged.out.find("recovered, killed  " + live), std::string::npos) << merged.out;
        EXPECT_EQ(merged.out.find("still running"), std::string::npos) << merged.out;
    }

    // diff_work (about 1 s of work in four functions) run twice with different PPE_MEM: bins of
    // different widths. A second, because where perf events are refused itimer-prof fires on the
    // scheduler tick (250 Hz here): 0.4 s gave 88 samples.
    std::pair<Profile, Profile> twoWidths(TempDir& dir)
    {
        for (const char* mem : { "1", "2048" }) {
            const RunResult r = runProgram({ kExamples + "/diff_work", "55" },
                { { "PPE_ON", "1" }, { "PPE_MODE", "1" }, { "PPE_MEM", mem },
                    { "PPE_OUT", dir.file(std::string("s") + mem + ".ppe") } });
            EXPECT_EQ(r.status, 0) << r.err;
        }
        return { readBack(dir.file("s2048.ppe")), readBack(dir.file("s1.ppe")) };
    }

    std::map<std::string, Row> functionRows(const std::string& input)
    {
        const RunResult r = runProgram({ PPEOUT, "--by", "function", input, "-" });
        EXPECT_EQ(r.status, 0) << input << ": " << r.err;
        std::map<std::string, Row> rows;
        for (const Row& row : moduleRows(r.out))
            rows[row.name.substr(0, row.name.find(' '))] = row;
        return rows;
    }

    TEST(MpiTest, ProfilesWithDifferentBinWidthsMergeToTheWidest)
    {
        TempDir dir;
        const auto [narrow, wide] = twoWidths(dir);
        ASSERT_LT(narrow.binWidth, wide.binWidth)
            << "PPE_MEM 2048 and 1 give bins of " << narrow.binWidth << " and " << wide.binWidth << " bytes";
        ASSERT_GT(narrow.inRange(), 100u) << "too few samples for the merge to mean anything";
        ASSERT_GT(wide.inRange(), 100u) << "too few samples for the merge to mean anything";
        const RunResult merged = runProgram({ PPEOUT, dir.path(), "-" });
        ASSERT_EQ(merged.status, 0) << merged.err;
        std::smatch width;
        ASSERT_TRUE(std::regex_search(merged.out, width, std::regex(R"(Bin width, bytes\s*(\d+))"))) << merged.out;
        EXPECT_EQ(std::stoul(width[1]), wide.binWidth);
        EXPECT_EQ(totalOf(merged.out), narrow.total + wide.total);
        EXPECT_EQ(std::stoull(inRangeCount(merged.out)), narrow.inRange() + wide.inRange());
        EXPECT_NE(merged.err.find("merged in bins of"), std::string::npos) << merged.err;
        // The four functions start on wide-bin boundaries (16-byte aligned by gcc -O2): no wide bin
        // holds two of them, so each function's hits are the two files' hits added.
        const auto one = functionRows(dir.file("s2048.ppe"));
        const auto other = functionRows(dir.file("s1.ppe"));
        const auto sum = functionRows(dir.path());
        for (const char* f : { "north", "east", "south", "west" }) {
            ASSERT_TRUE(one.count(f) && other.count(f) && sum.count(f)) << f;
            ASSERT_EQ(one.at(f).address % wide.binWidth, 0u) << f << " is not on a bin boundary";
            EXPECT_GT(one.at(f).hits, 0) << f;
            EXPECT_FALSE(sum.at(f).split) << f;
            EXPECT_NEAR(sum.at(f).hits, one.at(f).hits + other.at(f).hits, 0.5) << f;
        }
    }

    TEST(MpiTest, ProfilesOfDifferentProgramsAreRefused)
    {
        TempDir dir;
        ASSERT_EQ(
            runProgram({ kExamples + "/simp", "1000003" }, { { "PPE_ON", "1" }, { "PPE_OUT", dir.file("a.ppe") } })
                .status,
            0);
        // mathlib has no libppe linked in: preloaded.
        ASSERT_EQ(runProgram({ kExamples + "/mathlib", "20" },
                      { { "PPE_ON", "1" }, { "PPE_OUT", dir.file("b.ppe") }, { "LD_PRELOAD", PPE_LIBRARY } })
                      .status,
            0);
        ASSERT_TRUE(fileExists(dir.file("b.ppe")));
        const RunResult merged = runProgram({ PPEOUT, dir.path(), dir.file("out.txt") });
        EXPECT_EQ(merged.status, 1);
        EXPECT_NE(merged.err.find(dir.file("a.ppe")), std::string::npos) << merged.err;
        EXPECT_NE(merged.err.find(dir.file("b.ppe")), std::string::npos) << merged.err;
        EXPECT_NE(merged.err.find("different programs"), std::string::npos) << merged.err;
        EXPECT_EQ(std::count(merged.err.begin(), merged.err.end(), '\n'), 1) << merged.err;
        EXPECT_FALSE(fileExists(dir.file("out.txt")));
    }

    TEST(MpiTest, DamagedInputsGiveOneLineErrorsNamingTheFile)
    {
        TempDir dir;
        ASSERT_EQ(
            runProgram({ kExamples + "/simp", "1000003" }, { { "PPE_ON", "1" }, { "PPE_OUT", dir.file("a.ppe") } })
                .status,
            0);
        std::ofstream(dir.file("b.ppe")).close(); // empty: an error with --strict, else skipped (security_input_test)
        RunResult r = runProgram({ PPEOUT, "--strict", dir.path(), "-" });
        EXPECT_EQ(r.status, 1);
        EXPECT_NE(r.err.find(dir.file("b.ppe")), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        std::filesystem::create_directory(dir.file("none"));
        r = runProgram({ PPEOUT, dir.file("none"), "-" });
        EXPECT_EQ(r.status, 1);
        EXPECT_NE(r.err.find(dir.file("none") + ": a directory without .ppe files"), std::string::npos) << r.err;
        r = runProgram({ PPEOUT, dir.file("none") + "/*.ppe", "-" });
        EXPECT_EQ(r.status, 1);
        EXPECT_NE(r.err.find("no file matches this pattern"), std::string::npos) << r.err;
    }

#ifdef PPE_MPI_IMBALANCE
    // The paths in `dir` whose names end with `suffix`, and hold `text` when it is given.
    std::vector<std::string> filesEndingIn(const TempDir& dir, const std::string& suffix, const std::string& text = "")
    {
        std::vector<std::string> out;
        for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
            const std::string name = entry.path().string();
            if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0
                && (text.empty() || readFile(name).find(text) != std::string::npos))
                out.push_back(name);
        }
        return out;
    }

    // Whether process `pid` has a handler for `signal` (SigCgt of /proc/PID/status).
    bool catches(int pid, int signal)
    {
        std::istringstream status(readFile("/proc/" + std::to_string(pid) + "/status"));
        for (std::string line; std::getline(status, line);) {
            if (line.rfind("SigCgt:", 0) == 0)
                return (std::stoull(line.substr(7), nullptr, 16) >> (signal - 1)) & 1;
        }
        return false;
    }

    // Polls until every process of a live file in `dir` (NAME.PID.live) has a handler for `signal`,
    // for up to a minute: a signal sent before would meet its default action.
    bool waitForHandlers(const TempDir& dir, int signal)
    {
        for (int polls = 0; polls < 6000; ++polls) {
            bool all = true;
            for (const std::string& live : filesEndingIn(dir, ".live")) {
                const std::string stem = live.substr(0, live.size() - 5);
                all = all && catches(std::stoi(stem.substr(stem.rfind('.') + 1)), signal);
            }
            if (all)
                return true;
            usleep(10000);
        }
        return false;
    }

    // Polls for `count` files as filesEndingIn says, for up to a minute.
    bool waitForFiles(const TempDir& dir, size_t count, const std::string& suffix, const std::string& text = "")
    {
        for (int polls = 0; polls < 6000; ++polls) {
            if (filesEndingIn(dir, suffix, text).size() >= count)
                return true;
            usleep(10000);
        }
        return false;
    }
#endif

    // docs/batch.md's MPI job script ends `exec mpirun ...`, so the batch shell is mpirun and it
    // gets the scheduler's warning (`--signal=B:USR2@120`): Open MPI's mpirun passes SIGUSR2 on to
    // every rank, each writes its snapshot and works on; the SIGTERM of the time limit then ends
    // the job with every rank's complete profile.
    TEST(MpiTest, MpirunPassesTheSnapshotSignalToEveryRank)
    {
        PPE_NEEDS_MPI();
#ifdef PPE_MPI_IMBALANCE
        TempDir dir, session;
        // Rank 1 would abort after 10^5 units (hours): every rank works until the SIGTERM.
        // mpirun itself gets the signals: GNU timeout would die of a SIGUSR2 rather than pass it on.
        // As docs/batch.md's script: the ranks get more than Open MPI's 1 s between the SIGTERM it
        // passes on and its SIGKILL (under the CI's ASan step a rank's fsync of its profile took
        // longer: it was killed with its snapshot the last file written, its live file left for a
        // merge). mpirun waits out the time before it ends: 5 s here, not the script's 10.
        std::vector<std::string> argv = mpirunArgv({ kMpiProgram, "abort", "100000", "1" }, dir.path() + "/",
            { "-x", "PPE_SNAPSHOT_SIGNAL=USR2", "--mca", "odls_base_sigkill_timeout", "5" });
        argv.erase(argv.begin(), argv.begin() + 2);
        ASSERT_EQ(argv.front(), PPE_MPIRUN);
        const Running job = startProgram(argv, mpirunEnv(session));
        ASSERT_TRUE(waitForFiles(dir, 4, ".live")) << "four ranks running under the collector";
        ASSERT_TRUE(waitForHandlers(dir, SIGUSR2)) << "every rank ready for the snapshot signal";
        ASSERT_TRUE(filesEndingIn(dir, ".ppe").empty()) << "a profile before the snapshot was asked for";
        ASSERT_EQ(kill(job.pid, SIGUSR2), 0);
        if (!waitForFiles(dir, 4, ".ppe", "status checkpoint")) {
            std::string found;
            for (const std::string& name : filesEndingIn(dir, ""))
                found += " " + name;
            ADD_FAILURE() << "not every rank's snapshot; files:" << found;
        }
        ASSERT_EQ(kill(job.pid, SIGTERM), 0);
        const RunResult ended = waitProgram(job);
        for (int rank = 0; rank < 4; ++rank) {
            const Profile p = readBack(dir.file("mpi_imbalance.rank" + std::to_string(rank) + ".ppe"));
            EXPECT_EQ(p.status, ProfileStatus::Complete) << "rank " << rank << "\n" << ended.err;
            EXPECT_GT(p.total, 0u) << "rank " << rank;
        }
#endif
    }

} // namespace
} // namespace ppe::testing
