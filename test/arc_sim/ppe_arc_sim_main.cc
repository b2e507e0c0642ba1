// ppe-arc-sim: the simulated ARC target (a STAND-IN for tests, README.md) as a program: listens on
// 127.0.0.1 at a free port, prints the port on stdout, then the PCT state, serves one connection
// (or --connections N, one after another), prints the PCT state again after each. SIGINT stops the running machine as
// it stops qemu-arc's guest.
#include "rsp_server.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

ppe::arc::sim::RspServer* g_server = nullptr;

extern "C" void onInterrupt(int)
{
    if (g_server)
        g_server->interruptFromOutside();
}

// The PCT model's state on one line ("pct control=1 count0=0 ..."): printed before the connection
// and after it, so that a test sees whether the client put the counters back as it found them.
void printState(ppe::arc::sim::SimTarget& target)
{
    std::lock_guard<std::mutex> lock(target.mutex());
    std::string line = "pct";
    for (const auto& [key, value] : target.pct().state())
        line += " " + key + "=" + std::to_string(value);
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
}

// --busy: counter 5 counts iall from 777 and the counters run, as another user of the core left them.
void makeBusy(ppe::arc::sim::SimTarget& target)
{
    using namespace ppe::arc::aux;
    ppe::arc::testing::PctModel& pct = target.pct();
    (void)(pct.write(kPctIndex, 5) && pct.write(kPctConfig, 3) && pct.write(kPctCountL, 777)
        && pct.write(kPctControl, 1));
}

int usage(const char* message)
{
    std::fprintf(stderr,
        "ppe-arc-sim: %s\nusage: ppe-arc-sim --elf ARC-EXECUTABLE --tree CALL-TREE [--personality "
        "openocd|qemu|gdbserver] [--no-pct-feature] [--busy] [--port N] [--range-bit N] [--connections N] "
        "[--slice-steps N] [--slice-us N]\n",
        message);
    return 2;
}

struct Options {
    ppe::arc::sim::TargetOptions target;
    ppe::arc::sim::ServerOptions server;
    bool busy = false;
    uint16_t port = 0; // a free one
    unsigned connections = 1;
};

// The options; -1 when they are right, else the exit status (after the usage).
int parse(int argc, char** argv, Options& o)
{
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
        if (arg == "--no-pct-feature" || arg == "--busy") {
            o.server.pctFeature = o.server.pctFeature && arg != "--no-pct-feature";
            o.busy = o.busy || arg == "--busy";
            continue;
        }
        if (!value)
            return usage(("unknown option or missing value: " + arg).c_str());
        ++i;
        if (arg == "--elf")
            o.target.elf = value;
        else if (arg == "--tree")
            o.target.tree = value;
        else if (arg == "--personality" && !ppe::arc::sim::parsePersonality(value, o.server.personality))
            return usage("the personality is openocd, qemu or gdbserver");
        else if (arg == "--range-bit")
            o.target.pct.rangeEnableBit = unsigned(std::strtoul(value, nullptr, 0));
        else if (arg == "--connections")
            o.connections = unsigned(std::strtoul(value, nullptr, 0));
        else if (arg == "--port")
            o.port = uint16_t(std::strtoul(value, nullptr, 0));
        else if (arg == "--slice-steps")
            o.server.sliceSteps = std::strtoull(value, nullptr, 0);
        else if (arg == "--slice-us")
            o.server.slicePause = std::chrono::microseconds(std::strtoull(value, nullptr, 0));
        else if (arg != "--personality")
            return usage(("unknown option: " + arg).c_str());
    }
    if (o.target.elf.empty() || o.target.tree.empty())
        return usage("--elf and --tree are needed");
    return -1;
}

} // namespace

int main(int argc, char** argv)
{
    Options o;
    if (const int status = parse(argc, argv, o); status >= 0)
        return status;
    ppe::Result<std::unique_ptr<ppe::arc::sim::SimTarget>> loaded = ppe::arc::sim::SimTarget::load(o.target);
    if (!loaded) {
        std::fprintf(stderr, "ppe-arc-sim: %s\n", loaded.error().str().c_str());
        return 1;
    }
    ppe::arc::sim::RspServer rsp(**loaded, o.server);
    ppe::Result<uint16_t> listening = rsp.listen(o.port);
    if (!listening) {
        std::fprintf(stderr, "ppe-arc-sim: %s\n", listening.error().str().c_str());
        return 1;
    }
    g_server = &rsp;
    std::signal(SIGINT, onInterrupt);
    if (o.busy)
        makeBusy(**loaded);
    std::printf("%u\n", unsigned(*listening));
    printState(**loaded);
    ppe::gdbremote::Status served = std::monostate {};
    for (unsigned i = 0; served && i < o.connections; ++i) {
        served = rsp.serve();
        printState(**loaded);
    }
    if (!served) {
        std::fprintf(stderr, "ppe-arc-sim: %s\n", served.error().str().c_str());
        return 1;
    }
    return 0;
}
