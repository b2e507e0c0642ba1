// ppe: run a program under the collector without relinking it, like `perf record` or `hpcrun`.
// Sets PPE_ON and the other PPE_* variables from the options, preloads libppe.so and execs the
// program, so its exit status and signals are its own.
#include "config.h"
#include "preload_check.h"

#include "ppe/core/env_value.h"
#include "ppe/core/limits.h"
#include "ppe/core/output_file.h"
#include "ppe/profile/live_recovery.h"

#include <boost/program_options.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

// Exit statuses of the launcher itself, as env(1) and timeout(1) use them.
constexpr int kUsageError = 125;
constexpr int kCannotRun = 126;
constexpr int kNotFound = 127;

struct Options {
    std::optional<std::string> output, mem, interval, frequency, mode, timer, lib, checkpoint;
    std::optional<std::string> object, snapshotSignal;
    bool noChildren = false;
};

// Boost 1.74 cannot store into std::optional: read the strings back from the variables map.
Options optionsFrom(const po::variables_map& vm)
{
    auto get = [&vm](const char* name) -> std::optional<std::string> {
        if (!vm.count(name))
            return std::nullopt;
        return vm[name].as<std::string>();
    };
    return Options { get("output"), get("mem"), get("interval"), get("frequency"), get("mode"), get("timer"),
        get("lib"), get("checkpoint"), get("object"), get("snapshot-signal"), vm.count("no-children") > 0 };
}

po::options_description describeOptions()
{
    po::options_description d("Options (before PROG)");
    d.add_options()("help,h", "print this help and exit")("version,V", "print the version and exit")("output,o",
        po::value<std::string>()->value_name("FILE|DIR/"),
        "profile file, or a directory for one file per process, PROG.rankR.ppe or PROG.PID.ppe (PPE_OUT; patterns "
        "%p pid, %h host, %r rank, %j job id, %%); "
        "default PROG.ppe in the current directory (PROG.rankR.ppe for a rank R of an MPI or Slurm job)")(
        "no-children", "profile only PROG, not the programs it runs (PPE_CHILDREN=0)")("mem,m",
        po::value<std::string>()->value_name("PAGES"),
        ("histogram budget in 512-byte pages (PPE_MEM, " + std::to_string(ppe::kDefaultPages) + ")").c_str())(
        "interval,i", po::value<std::string>()->value_name("N"),
        ("sampling interval in 100 ns units (PPE_INT, " + std::to_string(ppe::kDefaultInterval) + ")").c_str())(
        "frequency,F", po::value<std::string>()->value_name("HZ"), "sampling rate in Hz, instead of --interval")("mode",
        po::value<std::string>()->value_name("MODE"), "real (0, wall-clock; default) or cpu (1) time (PPE_MODE)")(
        "timer", po::value<std::string>()->value_name("KIND"), "auto, perf, itimer, posix or ring (PPE_TIMER)")(
        "lib", po::value<std::string>()->value_name("PATH"), "the libppe.so to preload")("object",
        po::value<std::string>()->value_name("NAME"),
        "monitor this shared object's code instead of PROG's (file name or soname, e.g. libfoo.so; PPE_OBJECT)")(
        "checkpoint", po::value<std::string>()->value_name("SECONDS"),
        "write the profile so far every SECONDS (PPE_CHECKPOINT)")("snapshot-signal",
        po::value<std::string>()->value_name("SIG"),
        "write the profile so far when SIG (USR1, USR2, RTMIN+N, ...) arrives, and carry on (PPE_SNAPSHOT_SIGNAL; "
        "sbatch --signal=B:SIG@SECONDS)")("recover", po::value<std::string>()->value_name("LIVE"),
        "write the profile kept in NAME.ppe.PID.live by a process that was killed (to -o, default NAME.ppe)");
    return d;
}

bool takesValue(const std::string& arg)
{
    static const char* const kWithValue[] = { "-o", "--output", "-m", "--mem", "-i", "--interval", "-F", "--frequency",
        "--mode", "--timer", "--lib", "--recover", "--checkpoint", "--object", "--snapshot-signal" };
    for (const char* name : kWithValue) {
        if (arg == name)
            return true;
    }
    return false;
}

// Options end at the first argument that is not an option (or after "--"): that is PROG.
size_t findProgram(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--")
            return size_t(i + 1);
        if (arg.size() < 2 || arg[0] != '-')
            return size_t(i);
        if (takesValue(arg))
            ++i;
    }
    return size_t(argc);
}

[[noreturn]] void fail(int status, const std::string& message)
{
    std::cerr << "ppe: error: " << message << "\n";
    std::exit(status);
}

std::string checkedNumber(const std::string& option, const std::string& text, uint64_t minimum, uint64_t maximum)
{
    uint64_t value = 0;
    const ppe::ValueError error = ppe::parseDecimal(text.c_str(), minimum, maximum, &value);
    if (error != ppe::ValueError::None)
        fail(kUsageError, "--" + option + " " + text + ": " + ppe::describe(error));
    return std::to_string(value);
}

std::string modeValue(const std::string& text)
{
    if (text == "real" || text == "0")
        return "0";
    if (text == "cpu" || text == "1")
        return "1";
    fail(kUsageError, "--mode " + text + ": expected real, cpu, 0 or 1");
}

fs::path findLibrary(const Options& o, const char* argv0)
{
    if (o.lib)
        return fs::absolute(*o.lib);
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    const fs::path installed = self.parent_path().parent_path() / "lib" / "libppe.so";
    if (!ec && fs::exists(installed))
        return installed;
    const fs::path built = fs::path(PPE_BUILD_LIBDIR) / "libppe.so";
    if (fs::exists(built))
        return built;
    fail(kCannotRun, std::string("cannot find libppe.so next to ") + argv0 + "; use --lib PATH");
}

// The patterns of an output name are libppe's: %p %h %r %j %% (collector/src/output_names.h).
void checkPatterns(const std::string& output)
{
    for (size_t at = output.find('%'); at != std::string::npos; at = output.find('%', at + 2)) {
        if (at + 1 == output.size() || std::string_view("phrj%").find(output[at + 1]) == std::string_view::npos)
            fail(kUsageError,
                "-o " + output + ": '" + output.substr(at, 2)
                    + "' is no pattern (%p pid, %h host, %r rank, %j job id, %% a %)");
    }
}

// PPE_OUT for the launched program, checked now rather than at the end of a long job: -o as given
// (a directory, existing or written with a final '/', gets one file per process inside it; patterns are
// expanded by libppe in each process, so a directory part with a pattern is not checked), else PPE_OUT as
// set in the environment; nullopt: none, PROG.ppe goes to the current directory (PPE_DEFAULT_DIR), as
// perf.data and gmon.out go there. The programs PROG runs write CHILD.PID.ppe beside.
std::optional<std::string> outputSetting(std::optional<std::string> output)
{
    if (const char* set = getenv("PPE_OUT"); !output && set && *set)
        output = set; // the environment's PPE_OUT, when -o is not given
    if (!output)
        return std::nullopt;
    if (*output == "-" || output->empty())
        fail(kUsageError, "-o " + *output + ": the profile is written to a file when the program ends; give its name");
    checkPatterns(*output);
    std::error_code ec;
    if (output->back() == '/' || fs::is_directory(*output, ec)) {
        if (output->find('%') != std::string::npos)
            return *output; // a directory per host or job: libppe expands it, the program may create it
        if (!fs::is_directory(*output, ec))
            fail(kUsageError, "-o " + *output + ": no such directory");
        return output->back() == '/' ? *output : *output + "/";
    }
    const fs::path parent = fs::absolute(*output, ec).parent_path();
    if (parent.string().find('%') == std::string::npos && !fs::is_directory(parent, ec))
        fail(kUsageError, "-o " + *output + ": no such directory " + parent.string());
    return *output;
}

void exportSettings(const Options& o)
{
    setenv("PPE_ON", "1", 1);
    if (const std::optional<std::string> output = outputSetting(o.output)) {
        setenv("PPE_OUT", output->c_str(), 1);
    } else {
        unsetenv("PPE_OUT"); // an empty one
        setenv("PPE_DEFAULT_DIR", fs::current_path().string().c_str(), 1);
    }
    setenv("PPE_LAUNCHED", std::to_string(getpid()).c_str(), 1); // exec keeps the pid
    if (o.noChildren)
        setenv("PPE_CHILDREN", "0", 1);
    if (o.mem)
        setenv("PPE_MEM", checkedNumber("mem", *o.mem, 1, ppe::kMaxPages).c_str(), 1);
    if (o.interval && o.frequency)
        fail(kUsageError, "--interval and --frequency both given; choose one");
    if (o.interval)
        setenv("PPE_INT", checkedNumber("interval", *o.interval, ppe::kMinInterval, ppe::kMaxInterval).c_str(), 1);
    if (o.frequency) {
        const uint64_t hz = std::stoull(checkedNumber("frequency", *o.frequency, 1, ppe::kMaxFrequencyHz));
        setenv("PPE_INT", std::to_string(ppe::kIntervalsPerSecond / hz).c_str(), 1);
    }
    if (o.mode)
        setenv("PPE_MODE", modeValue(*o.mode).c_str(), 1);
    if (o.timer)
        setenv("PPE_TIMER", o.timer->c_str(), 1);
    if (o.object && o.object->empty())
        fail(kUsageError, "--object: give the shared object's file name or soname");
    if (o.object)
        setenv("PPE_OBJECT", o.object->c_str(), 1);
    if (o.checkpoint)
        setenv("PPE_CHECKPOINT", checkedNumber("checkpoint", *o.checkpoint, 1, ppe::kMaxCheckpointSeconds).c_str(), 1);
    if (o.snapshotSignal && !ppe::parseSnapshotSignal(o.snapshotSignal->c_str()))
        fail(kUsageError,
            "--snapshot-signal " + *o.snapshotSignal
                + ": not a signal the collector can take (USR1, USR2, URG, WINCH, PWR, RTMIN+N, RTMAX-N from 4, or "
                  "their "
                  "numbers)");
    if (o.snapshotSignal)
        setenv("PPE_SNAPSHOT_SIGNAL", o.snapshotSignal->c_str(), 1);
}

void preload(const fs::path& library)
{
    std::string value = library.string();
    if (const char* existing = getenv("LD_PRELOAD"); existing && *existing)
        value += std::string(":") + existing;
    setenv("LD_PRELOAD", value.c_str(), 1);
}

// `ppe --recover LIVE`: the samples of a killed process, as a .ppe marked recovered.
int recover(const std::string& live, const std::optional<std::string>& output)
{
    std::vector<std::string> notes;
    auto text = ppe::recoverLiveFile(live, &notes);
    if (!text)
        fail(1, text.error().str());
    for (const std::string& note : notes)
        std::cerr << "ppe: " << note << "\n";
    std::string target = output ? *output : ppe::profilePathForLiveFile(live);
    if (target.empty()) // any other name: LIVE.ppe (without a .live ending)
        target = (live.ends_with(".live") ? live.substr(0, live.size() - 5) : live) + ".ppe";
    // -o is the user's own name (a device or FIFO of theirs is written into); LIVE.ppe is made up.
    const char* refusal = nullptr;
    const int error = ppe::writeOutputFile(target.c_str(), text->data(), text->size(),
        output ? ppe::OutputName::Given : ppe::OutputName::MadeUp, &refusal);
    if (error)
        fail(1, target + ": " + std::strerror(error) + (refusal ? std::string(": ") + refusal : ""));
    std::cerr << "ppe: recovered profile written to " << target << " (" << live << " is left as it is)\n";
    return 0;
}

void usage(const po::options_description& d)
{
    std::cout << "usage: ppe [options] PROG [ARGS...]\n"
                 "       ppe --recover LIVE [-o FILE]   (NAME.ppe.PID.live gives NAME.ppe, another LIVE.ppe)\n"
                 "Runs PROG with the ppe collector preloaded; the profile goes to PROG.ppe\n"
                 "(see `ppeout` to format it).\n\n"
              << d;
}

} // namespace

int main(int argc, char** argv)
{
    const po::options_description d = describeOptions();
    const size_t program = findProgram(argc, argv);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(int(program), argv).options(d).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        fail(kUsageError, std::string(e.what()) + " (see ppe --help)");
    }
    if (vm.count("help"))
        return usage(d), 0;
    if (vm.count("version"))
        return std::cout << "ppe " << PPE_VERSION << "\n", 0;
    const Options o = optionsFrom(vm);
    if (vm.count("recover"))
        return recover(vm["recover"].as<std::string>(), o.output);
    if (program >= size_t(argc))
        fail(kUsageError, "no program to run (see ppe --help)");
    if (const auto why = ppe::whyPreloadCannotReach(argv[program]))
        fail(kCannotRun, "cannot profile " + *why);
    exportSettings(o);
    preload(findLibrary(o, argv[0]));
    execvp(argv[program], argv + program);
    const int error = errno;
    fail(error == ENOENT ? kNotFound : kCannotRun,
        std::string("cannot run ") + argv[program] + ": " + std::strerror(error));
}
