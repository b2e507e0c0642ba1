// ppe-gdbremote-capture: runs the probing session (probe.h) against a real server and writes its
// transcript, both directions, timing removed. Used by test/data/gdb-remote/capture.sh.
#include "ppe/gdbremote/probe.h"
#include "ppe/gdbremote/transcript.h"

#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

using namespace ppe::gdbremote;

namespace {

struct Args {
    std::string remote;
    std::string out;
    std::vector<std::string> comments;
    ProbeOptions probe;
    pid_t sigintPid = 0;
};

bool parseArgs(int argc, char** argv, Args& args)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string key = argv[i], value = argv[i + 1];
        if (key == "--remote")
            args.remote = value;
        else if (key == "--out")
            args.out = value;
        else if (key == "--comment")
            args.comments.push_back(value);
        else if (key == "--sigint")
            args.sigintPid = static_cast<pid_t>(std::stol(value));
        else if (key == "--stops")
            args.probe.stops = std::stoi(value);
        else if (key == "--run-ms")
            args.probe.runFor = std::chrono::milliseconds(std::stoi(value));
        else if (key == "--tdesc")
            args.probe.tdescFile = value;
        else
            return false;
    }
    return !args.remote.empty() && !args.out.empty() && argc % 2 == 1;
}

void usage()
{
    std::fputs("usage: ppe-gdbremote-capture --remote HOST:PORT --out FILE [--comment TEXT]... [--sigint PID]\n"
               "                             [--stops N] [--run-ms MS] [--tdesc FILE]\n",
        stderr);
}

} // namespace

int main(int argc, char** argv)
{
    Args args;
    if (!parseArgs(argc, argv, args)) {
        usage();
        return 2;
    }
    std::vector<TranscriptLine> lines;
    SessionOptions options;
    options.tap = [&lines](char direction, std::string_view raw) { lines.push_back({ direction, std::string(raw) }); };
    options.console = [](std::string_view text) { std::cout << "console: " << text; };
    if (args.sigintPid) {
        pid_t pid = args.sigintPid;
        args.probe.fallbackInterrupt = [pid]() -> Status {
            if (::kill(pid, SIGINT) != 0)
                return ppe::Error { {}, 0, std::string("cannot signal the server: ") + std::strerror(errno) };
            return std::monostate {};
        };
    }
    // The server may still be starting: retry a refused connection for a few seconds.
    auto session = Session::connect(args.remote, std::chrono::milliseconds(5000), options);
    for (int i = 0; i < 100 && !session; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        session = Session::connect(args.remote, std::chrono::milliseconds(5000), options);
    }
    if (!session) {
        std::cerr << "ppe-gdbremote-capture: error: " << session.error().str() << "\n";
        return 1;
    }
    auto result = probeSession(*session, args.probe);
    std::ofstream(args.out) << formatTranscript(lines, args.comments);
    if (!result) {
        std::cerr << "ppe-gdbremote-capture: error: " << result.error().str() << "\n";
        return 1;
    }
    std::cout << result->report();
    return 0;
}
