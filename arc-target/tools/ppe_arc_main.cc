// ppe-arc: samples the PC of a program through its debug server (GDB remote serial protocol) into
// the same histogram and .ppe as the in-process collector; ppeout formats it.
//   ppe-arc sample --remote HOST:PORT --elf PROG [--interval MS] [--duration S] [-o OUT.ppe]
// Options -> runSampling (sample_run.h): a session -> the sampling loop (sampler.h) -> the profile
// (remote_profile.h) -> the .ppe file.
#include "control_commands.h"
#include "counter_commands.h"
#include "ppe/arc/sample_run.h"

#include "ppe/core/output_file.h"

#include <boost/program_options.hpp>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <sstream>

namespace po = boost::program_options;
using namespace ppe::arc;

namespace {

std::atomic<bool> g_stop { false };

extern "C" void onStopSignal(int) { g_stop.store(true, std::memory_order_relaxed); }

[[noreturn]] void fail(const std::string& message)
{
    std::fprintf(stderr, "ppe-arc: error: %s\n", message.c_str());
    std::exit(1);
}

po::options_description describe(SampleRequest& r)
{
    po::options_description options("Options of ppe-arc sample");
    auto add = options.add_options();
    add("remote,r", po::value(&r.remote)->value_name("HOST:PORT"),
        "the debug server (gdbserver, QEMU -g, OpenOCD, ...)");
    add("elf,e", po::value(&r.elf)->value_name("PROG"),
        "the program's executable, as built (its segments and symbols)");
    add("interval,i", po::value(&r.intervalMs)->value_name("MS")->default_value(r.intervalMs),
        "mean time between samples, milliseconds");
    add("duration,d", po::value(&r.durationSeconds)->value_name("S")->default_value(0),
        "stop sampling after this many seconds (0: when the program ends or on Ctrl-C)");
    add("output,o", po::value(&r.output)->value_name("OUT.ppe"), "the profile (default: PROG.ppe here)");
    add("tdesc", po::value(&r.tdesc)->value_name("FILE"), "a target description for a server that has none");
    add("spawn", po::value(&r.spawn)->value_name("'CMD ...'"),
        "start the server with this shell command (so that it can be sent SIGINT if it ignores 0x03)");
    add("baseline", po::bool_switch(&r.baseline),
        "with --spawn: run the program once unsampled first, and print how much longer the sampled run took");
    add("mode", po::value(&r.mode)->value_name("all-stop|non-stop|running|auto")->default_value(r.mode),
        "non-stop: a sample stops one thread, the others run on; running: the PC read while the target runs, "
        "no stop (a server that answers then: OpenOCD); auto: non-stop where the server offers it");
    add("threads", po::value<std::string>()->value_name("all|stopped")->default_value("all"),
        "all-stop mode: read every thread's PC at each stop, or only the stopped thread's");
    add("mem", po::value(&r.memPages)->value_name("PAGES")->default_value(r.memPages),
        "histogram budget in 512-byte pages (PPE_MEM)");
    add("seed", po::value(&r.seed)->value_name("N"), "seed of the sampling jitter (default: from the clock)");
    add("connect-timeout", po::value(&r.connectSeconds)->value_name("S")->default_value(r.connectSeconds),
        "keep trying to connect this long (to a --spawned server only: a refused port is an error at once)");
    add("help,h", "print this help and exit");
    add("version,V", "print the version and exit");
    return options;
}

void usage(const po::options_description& options)
{
    std::cout
        << "usage: ppe-arc sample --remote HOST:PORT --elf PROG [--interval MS] [--duration S] [-o OUT.ppe]\n"
           "                      [--tdesc FILE] [--spawn 'CMD ...' [--baseline]]\n"
           "                      [--mode all-stop|non-stop|running|auto]\n"
           "Samples the program counter of a program through its debug server (the GDB remote serial\n"
           "protocol: gdbserver, QEMU's -g stub, OpenOCD, nSIM, ...): stops it on a jittered schedule, reads\n"
           "the PC, lets it run again. Writes a .ppe profile for ppeout. Sampling ends with --duration,\n"
           "when the program ends, or on Ctrl-C; the program is never left stopped: ppe-arc detaches and\n"
           "it runs on.\n"
           "       ppe-arc poke --remote HOST:PORT [--set REG=HEX] [--write ADDR=HEXBYTES] [--break ADDR\n"
           "                    --kind N] [--hold S] [--journal FILE]\n"
           "Changes a stopped target, each change first in the undo journal; undoes them after --hold.\n"
           "       ppe-arc restore [--journal FILE] [--remote HOST:PORT]\n"
           "Undoes the changes a journal left by a killed ppe-arc names, prints the restored values.\n"
           "       ppe-arc conditions --remote HOST:PORT\n"
           "Lists the ARC performance counters' countable conditions by name.\n"
           "       ppe-arc count --remote HOST:PORT --event NAME,... [--duration S] [--in user|kernel]\n"
           "                     [--range FUNC|LO-HI --core-profile FILE [--elf PROG]]\n"
           "Counts the named conditions over a run (with --range, only while the PC is in it: the core\n"
           "profile names the bit that enables it); the counters are put back as they were found.\n"
           "       ppe-arc calls --remote HOST:PORT --elf PROG --function NAME,... [--event NAME] [--duration S]\n"
           "                     [--method breakpoint|inject --scratch SYMBOL|ADDR:SIZE [--depth N]]\n"
           "Counts calls of functions by breakpoints (with --event, their inclusive counts too), or by\n"
           "code injection where the code can be written (trampolines in the scratch region, no stops).\n"
           "       ppe-arc descend --remote HOST:PORT [--spawn CMD] --elf PROG --event NAME [--graph FILE]\n"
           "                       [--threshold PERCENT] [--batch N] [--dot FILE]\n"
           "Inclusive counts of the functions worth it, a batch per run, pruning by their callers' counts.\n\n"
        << options;
}

// The request, or nullopt when --help or --version asked only for a text.
std::optional<SampleRequest> parse(int argc, char** argv)
{
    SampleRequest r;
    const po::options_description options = describe(r);
    po::options_description all;
    std::vector<std::string> words;
    all.add(options).add_options()("words", po::value(&words));
    po::positional_options_description positional;
    positional.add("words", -1);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        fail(std::string(e.what()) + " (see ppe-arc --help)");
    }
    if (vm.count("help"))
        return usage(options), std::nullopt;
    if (vm.count("version"))
        return std::cout << "ppe-arc " << PPE_VERSION << "\n", std::nullopt;
    if (words.size() != 1 || words[0] != "sample")
        fail("expected the command `sample` (see ppe-arc --help)");
    if (r.remote.empty() || r.elf.empty())
        fail("sample needs --remote HOST:PORT and --elf PROG (see ppe-arc --help)");
    if (!(r.intervalMs >= 0.05 && r.intervalMs <= 60000))
        fail("--interval " + std::to_string(r.intervalMs) + ": not from 0.05 to 60000 ms");
    if (!(r.durationSeconds >= 0))
        fail("--duration: not a number of seconds");
    if (r.mode != "all-stop" && r.mode != "non-stop" && r.mode != "running" && r.mode != "auto")
        fail("--mode " + r.mode + ": not all-stop, non-stop, running or auto");
    const std::string threads = vm["threads"].as<std::string>();
    if (threads != "all" && threads != "stopped")
        fail("--threads " + threads + ": not all or stopped");
    r.everyThread = threads == "all";
    r.seedGiven = vm.count("seed") > 0;
    for (int i = 0; i < argc; ++i)
        r.command.push_back(argv[i]);
    return r;
}

void onSignals()
{
    struct sigaction action { };
    action.sa_handler = onStopSignal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGHUP, &action, nullptr);
    signal(SIGPIPE, SIG_IGN);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc > 1 && (std::string(argv[1]) == "poke" || std::string(argv[1]) == "restore")) {
        onSignals();
        return controlMain(argc, argv, g_stop);
    }
    const std::string command = argc > 1 ? argv[1] : "";
    if (command == "conditions" || command == "count" || command == "calls" || command == "descend") {
        onSignals();
        return counterMain(argc, argv, g_stop);
    }
    std::optional<SampleRequest> request = parse(argc, argv);
    if (!request)
        return 0;
    request->producer = std::string("ppe-arc ") + PPE_VERSION;
    onSignals();
    SampleOutcome outcome = runSampling(*request, g_stop);
    for (const std::string& note : outcome.notes)
        std::fprintf(stderr, "ppe-arc: %s\n", note.c_str());
    if (!outcome.text.empty()) {
        // -o is the user's own name (a device or FIFO of theirs is written into); PROG.ppe is made up.
        const char* refusal = nullptr;
        const int error = ppe::writeOutputFile(outcome.output.c_str(), outcome.text.data(), outcome.text.size(),
            request->output.empty() ? ppe::OutputName::MadeUp : ppe::OutputName::Given, &refusal);
        if (error)
            fail(outcome.output + ": cannot write: " + std::strerror(error)
                + (refusal ? std::string(": ") + refusal : ""));
        std::fprintf(stderr, "ppe-arc: output file is %s\n", outcome.output.c_str());
    }
    if (!outcome.error.empty())
        fail(outcome.error);
    return 0;
}
