// ppe: run a program under the collector without relinking it, like `perf record` or `hpcrun`.
// Sets PPE_ON and the other PPE_* variables from the options, preloads libppe.so and execs the
// program, so its exit status and signals are its own.
#include "config.h"
#include "preload_check.h"

#include "ppe/core/env_value.h"
#include "ppe/core/limits.h"
#include "ppe/core/output_file.h"
#include "ppe/core/output_patterns.h"
#include "ppe/profile/live_recovery.h"

#include <boost/program_options.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

// Exit statuses of the launcher itself, as env(1) and timeout(1) use them.
constexpr int kUsageError = 125;
constexpr int kCannotRun = 126;
constexpr int kNotFound = 127;

[[noreturn]] void fail(int status, const std::string& message)
{
    std::cerr << "ppe: error: " << message << "\n";
    std::exit(status);
}

// The value an option's variable gets, checked (a bad one fails with kUsageError); `option` is
// its long name, for the message.
using Setting = std::string (*)(const std::string& option, const std::string& value);

// One option of ppe. Boost's description (and so --help and the parse), the walk that finds PROG
// and the settings the program gets all come from the table of these: no other list of options.
struct OptionRow {
    const char* name; // the long name
    char letter; // the short name, or 0
    const char* valueName; // nullptr: a switch
    std::string help;
    const char* variable; // the PPE_ variable it sets, or nullptr
    Setting setting; // its value from the option's; nullptr: set otherwise (-o) or none
};

std::string checkedNumber(const std::string& option, const std::string& text, uint64_t minimum, uint64_t maximum)
{
    uint64_t value = 0;
    const ppe::ValueError error = ppe::parseDecimal(text.c_str(), minimum, maximum, &value);
    if (error != ppe::ValueError::None)
        fail(kUsageError, "--" + option + " " + text + ": " + ppe::describe(error));
    return std::to_string(value);
}

std::string modeValue(const std::string&, const std::string& text)
{
    if (text == "real" || text == "0")
        return "0";
    if (text == "cpu" || text == "1")
        return "1";
    fail(kUsageError, "--mode " + text + ": expected real, cpu, 0 or 1");
}

std::string objectValue(const std::string&, const std::string& text)
{
    if (text.empty())
        fail(kUsageError, "--object: give the shared object's file name or soname");
    return text;
}

std::string snapshotSignalValue(const std::string&, const std::string& text)
{
    if (!ppe::parseSnapshotSignal(text.c_str()))
        fail(kUsageError,
            "--snapshot-signal " + text
                + ": not a signal the collector can take (USR1, USR2, URG, WINCH, PWR, RTMIN+N, RTMAX-N from 4, or "
                  "their numbers)");
    return text;
}

// "%p pid, %h host, %r rank, %j job id, %%": the patterns libppe expands, from its own list.
std::string patternList()
{
    std::string list;
    for (const ppe::OutputPattern& pattern : ppe::kOutputPatterns) {
        list += (list.empty() ? "%" : ", %") + std::string(1, pattern.letter);
        if (pattern.meaning)
            list += std::string(" ") + pattern.meaning;
    }
    return list;
}

const std::vector<OptionRow>& optionTable()
{
    using ppe::kDefaultInterval, ppe::kDefaultPages, std::to_string;
    static const std::vector<OptionRow> table = {
        { "help", 'h', nullptr, "print this help and exit", nullptr, nullptr },
        { "version", 'V', nullptr, "print the version and exit", nullptr, nullptr },
        { "output", 'o', "FILE|DIR/",
            "profile file, or a directory for one file per process, PROG.rankR.ppe or PROG.PID.ppe (PPE_OUT; patterns "
                + patternList()
                + "); default PROG.ppe in the current directory (PROG.rankR.ppe for a rank R of an MPI or Slurm job)",
            "PPE_OUT", nullptr },
        { "no-children", 0, nullptr, "profile only PROG, not the programs it runs (PPE_CHILDREN=0)", "PPE_CHILDREN",
            [](const std::string&, const std::string&) { return std::string("0"); } },
        { "mem", 'm', "PAGES", "histogram budget in 512-byte pages (PPE_MEM, " + to_string(kDefaultPages) + ")",
            "PPE_MEM",
            [](const std::string& o, const std::string& v) { return checkedNumber(o, v, 1, ppe::kMaxPages); } },
        { "interval", 'i', "N", "sampling interval in 100 ns units (PPE_INT, " + to_string(kDefaultInterval) + ")",
            "PPE_INT",
            [](const std::string& o, const std::string& v) {
                return checkedNumber(o, v, ppe::kMinInterval, ppe::kMaxInterval);
            } },
        { "frequency", 'F', "HZ", "sampling rate in Hz, instead of --interval", "PPE_INT",
            [](const std::string& o, const std::string& v) {
                return to_string(ppe::kIntervalsPerSecond / std::stoull(checkedNumber(o, v, 1, ppe::kMaxFrequencyHz)));
            } },
        { "mode", 0, "MODE", "real (0, wall-clock; default) or cpu (1) time (PPE_MODE)", "PPE_MODE", modeValue },
        { "timer", 0, "KIND", "auto, perf, itimer, posix or ring (PPE_TIMER)", "PPE_TIMER",
            [](const std::string&, const std::string& v) { return v; } },
        { "lib", 0, "PATH", "the libppe.so to preload", nullptr, nullptr },
        { "object", 0, "NAME",
            "monitor this shared object's code instead of PROG's (file name or soname, e.g. libfoo.so; PPE_OBJECT)",
            "PPE_OBJECT", objectValue },
        { "calls", 'g', nullptr,
            "record each sample's call path (unwound from a copy of the stack; perf-ring only; PPE_CALLS)", "PPE_CALLS",
            [](const std::string&, const std::string&) { return std::string("1"); } },
        { "call-stack", 0, "BYTES", "stack bytes copied with each sample for its call path (PPE_CALL_STACK, 8192)",
            "PPE_CALL_STACK",
            [](const std::string& o, const std::string& v) { return checkedNumber(o, v, 512, 65000); } },
        { "call-nodes", 0, "N",
            "calling contexts the call paths' tree holds; paths beyond are cut and counted (PPE_CALL_NODES, 262144)",
            "PPE_CALL_NODES",
            [](const std::string& o, const std::string& v) { return checkedNumber(o, v, 1024, ppe::kMaxCallNodes); } },
        { "checkpoint", 0, "SECONDS", "write the profile so far every SECONDS (PPE_CHECKPOINT)", "PPE_CHECKPOINT",
            [](const std::string& o, const std::string& v) {
                return checkedNumber(o, v, 1, ppe::kMaxCheckpointSeconds);
            } },
        { "snapshot-signal", 0, "SIG",
            "write the profile so far when SIG (USR1, USR2, RTMIN+N, ...) arrives, and carry on (PPE_SNAPSHOT_SIGNAL; "
            "sbatch --signal=B:SIG@SECONDS)",
            "PPE_SNAPSHOT_SIGNAL", snapshotSignalValue },
        { "recover", 0, "LIVE",
            "write the profile kept in NAME.ppe.PID.live by a process that was killed (to -o, default NAME.ppe)",
            nullptr, nullptr },
    };
    return table;
}

po::options_description describeOptions()
{
    po::options_description d("Options (before PROG)");
    for (const OptionRow& row : optionTable()) {
        const std::string names = row.letter ? row.name + std::string(",") + row.letter : row.name;
        if (row.valueName)
            d.add_options()(names.c_str(), po::value<std::string>()->value_name(row.valueName), row.help.c_str());
        else
            d.add_options()(names.c_str(), row.help.c_str());
    }
    return d;
}

// True when the option `arg` takes the next argument as its value, as Boost reads it: "--NAME"
// (or a prefix Boost accepts for it) without "=VALUE", or a bundle of short ones ("-Vo") whose last
// takes a value. Boost's own lookup in `d` answers, so that this knows no option of its own.
bool valueFollows(const po::options_description& d, const std::string& arg)
{
    if (arg.starts_with("--")) {
        if (arg.find('=') != std::string::npos)
            return false;
        try {
            const po::option_description* option = d.find_nothrow(arg.substr(2), true);
            return option && option->semantic()->max_tokens() > 0;
        } catch (const po::ambiguous_option&) {
            return false; // Boost's parse says which options it fits, by name
        }
    }
    for (size_t at = 1; at < arg.size(); ++at) {
        const po::option_description* option = d.find_nothrow(std::string("-") + arg[at], false);
        if (!option)
            return false; // Boost says it is unknown
        if (option->semantic()->max_tokens() > 0)
            return at + 1 == arg.size(); // else the rest of `arg` is the value, as in -ox
    }
    return false;
}

// Options end at the first argument that is not an option, or after "--": that is PROG, and what
// follows is its own, options like ppe's included. Boost sees only the arguments before it, and
// reports any it does not know.
int findProgram(const po::options_description& d, int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--")
            return i + 1;
        if (arg.size() < 2 || arg[0] != '-')
            return i;
        if (valueFollows(d, arg))
            ++i;
    }
    return argc;
}

// A given option's value; nullopt when it is not given.
std::optional<std::string> valueOf(const po::variables_map& vm, const char* name)
{
    if (!vm.count(name))
        return std::nullopt;
    return vm[name].as<std::string>();
}

fs::path findLibrary(const po::variables_map& vm, const char* argv0)
{
    if (const std::optional<std::string> lib = valueOf(vm, "lib"))
        return fs::absolute(*lib);
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

// The patterns of an output name are libppe's (ppe/core/output_patterns.h): any other is refused
// now, where libppe would keep it as it is.
void checkPatterns(const std::string& output)
{
    for (size_t at = output.find('%'); at != std::string::npos; at = output.find('%', at + 2)) {
        if (at + 1 == output.size() || !ppe::isOutputPattern(output[at + 1]))
            fail(
                kUsageError, "-o " + output + ": '" + output.substr(at, 2) + "' is no pattern (" + patternList() + ")");
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

// The PPE_* variables the program gets: PPE_ON, the output, and one for each option given that
// sets one (optionTable).
void exportSettings(const po::variables_map& vm)
{
    setenv("PPE_ON", "1", 1);
    if (const std::optional<std::string> output = outputSetting(valueOf(vm, "output"))) {
        setenv("PPE_OUT", output->c_str(), 1);
    } else {
        unsetenv("PPE_OUT"); // an empty one
        setenv("PPE_DEFAULT_DIR", fs::current_path().string().c_str(), 1);
    }
    setenv("PPE_LAUNCHED", std::to_string(getpid()).c_str(), 1); // exec keeps the pid
    if (vm.count("interval") && vm.count("frequency"))
        fail(kUsageError, "--interval and --frequency both given; choose one");
    for (const OptionRow& row : optionTable()) {
        if (row.setting && vm.count(row.name))
            setenv(row.variable, row.setting(row.name, row.valueName ? *valueOf(vm, row.name) : "").c_str(), 1);
    }
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
    const int program = findProgram(d, argc, argv);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(program, argv).options(d).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        fail(kUsageError, std::string(e.what()) + " (see ppe --help)");
    }
    if (vm.count("help"))
        return usage(d), 0;
    if (vm.count("version"))
        return std::cout << "ppe " << PPE_VERSION << "\n", 0;
    if (vm.count("recover"))
        return recover(vm["recover"].as<std::string>(), valueOf(vm, "output"));
    if (program >= argc)
        fail(kUsageError, "no program to run (see ppe --help)");
    if (const auto why = ppe::whyPreloadCannotReach(argv[program]))
        fail(kCannotRun, "cannot profile " + *why);
    exportSettings(vm);
    preload(findLibrary(vm, argv[0]));
    execvp(argv[program], argv + program);
    const int error = errno;
    fail(error == ENOENT ? kNotFound : kCannotRun,
        std::string("cannot run ") + argv[program] + ": " + std::strerror(error));
}
