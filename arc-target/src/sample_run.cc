#include "ppe/arc/sample_run.h"

#include "ppe/arc/image_check.h"
#include "ppe/arc/remote_profile.h"
#include "ppe/arc/spawned_server.h"
#include "ppe/gdbremote/hex.h"
#include "ppe/gdbremote/session_start.h"
#include "ppe/gdbremote/target_control.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace ppe::arc {

using namespace gdbremote;

namespace {

    // Connects; a refused connection is retried only for a server ppe-arc started (--spawn), which
    // may still be starting, and not once it has ended.
    Result<Session> connectSoon(const SampleRequest& r, pid_t server)
    {
        return connectToServer(r.remote, server, std::chrono::milliseconds(int64_t(r.connectSeconds * 1000)));
    }

    std::string outputPath(const SampleRequest& r)
    {
        if (!r.output.empty())
            return r.output;
        const size_t slash = r.elf.rfind('/');
        return (slash == std::string::npos ? r.elf : r.elf.substr(slash + 1)) + ".ppe";
    }

    std::string absolute(const std::string& path)
    {
        char resolved[PATH_MAX];
        return ::realpath(path.c_str(), resolved) ? std::string(resolved) : path;
    }

    // The process of a stop's thread id "pPID.TID" (multiprocess), else 0.
    uint64_t processOf(const StopReply& stop)
    {
        if (stop.thread.size() < 2 || stop.thread[0] != 'p')
            return 0;
        return parseHexNumber(std::string_view(stop.thread).substr(1, stop.thread.find('.') - 1)).value_or(0);
    }

    // Everything known before the first sample.
    struct Prepared {
        ElfImage elf;
        TargetDescription description;
        RegisterInfo pc;
        PcProbe probe;
        uint64_t loadBias = 0;
        uint64_t pid = 0;
        std::string modeNote; // how the mode was chosen
        bool qemu = false; // the server answers QEMU's own query
        bool qemuUser = false; // ... and offers the auxiliary vector: QEMU's user-mode stub
    };

    Status prepare(Session& session, const SampleRequest& r, Prepared& p)
    {
        auto first = startSession(session, true);
        if (!first)
            return first.error();
        p.pid = processOf(*first);
        auto description = r.tdesc.empty() ? session.readTargetDescription() : readTargetDescriptionFile(r.tdesc);
        if (!description)
            return description.error();
        p.description = std::move(*description);
        const RegisterInfo* pc = p.description.pc();
        if (!pc)
            return Error { p.description.documents.front(), 0,
                "no register named pc, rip or eip (architecture " + p.description.architecture + ")" };
        p.pc = *pc;
        auto bias = checkImage(session, p.elf, p.description.architecture);
        if (!bias)
            return bias.error();
        p.loadBias = *bias;
        Result<QemuStub> qemu = probeQemu(session);
        if (!qemu)
            return qemu.error();
        p.qemu = qemu->qemu;
        p.qemuUser = qemu->user;
        auto mode = chooseMode(session, r.mode);
        if (!mode)
            return mode.error();
        p.modeNote = *mode;
        return std::monostate {};
    }

    // CPU seconds (user + system) process `pid` has used, from /proc/PID/stat; -1 when unknown.
    double cpuSecondsOf(pid_t pid)
    {
        std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
        std::string text((std::istreambuf_iterator<char>(stat)), {});
        const size_t paren = text.rfind(')');
        if (pid <= 0 || paren == std::string::npos)
            return -1;
        std::istringstream fields(text.substr(paren + 2));
        std::string field;
        unsigned long long utime = 0, stime = 0;
        for (int i = 3; i <= 15 && fields >> field; ++i) {
            if (i == 14)
                utime = std::strtoull(field.c_str(), nullptr, 10);
            if (i == 15)
                stime = std::strtoull(field.c_str(), nullptr, 10);
        }
        return double(utime + stime) / double(::sysconf(_SC_CLK_TCK));
    }

    // QEMU's user-mode stub flushes its translated code at every stop (tb_flush in gdb_handlesig):
    // the guest translates its working set again after each resume, and that time counts as running.
    // Known by its own query, whatever the server's name (a wrapper script, a renamed binary).
    std::string qemuWarning(const SampleRequest& r, const std::string& peer)
    {
        const std::string who = r.spawn.empty() ? "at " + peer : "(" + r.spawn.substr(0, r.spawn.find(' ')) + ")";
        return "warning: the server " + who
            + " is QEMU's user-mode stub (it answers qqemu.sstepbits and offers the auxiliary vector): it discards "
              "all translated code at every stop, and translating it again counts as running time, in favour of "
              "code with many distinct blocks; function shares depend on the interval and are distorted most below "
              "10 ms (one function measured at 9.2 % at 1 ms, 17.9 % at 10 ms, 22.9 % at 100 ms, "
              "docs/user-guide.md): take shares from a native run, use QEMU to see where the code is, and "
              "--baseline to see the slowdown";
    }

    // The sampled run against the unsampled one (--baseline): how much longer, and how much of the
    // running time between stops was not the program's (QEMU translating its code again).
    std::string slowdownNote(double baseline, const SamplingResult& result)
    {
        char text[400];
        if (result.end != SamplingEnd::TargetExited) {
            std::snprintf(text, sizeof text,
                "baseline: the program ran %.3f s unsampled through the same server; sampling ended before the "
                "program did (after %.3f s): no slowdown to compare",
                baseline, result.wallSeconds);
            return text;
        }
        const Intrusion in = intrusionOf(result);
        const double running = result.wallSeconds - in.stopped;
        std::snprintf(text, sizeof text,
            "slowdown: the program took %.3f s sampled against %.3f s unsampled through the same server "
            "(--baseline), %.2f times as long; it ran %.3f s between stops, %.3f s %s than unsampled%s",
            result.wallSeconds, baseline, baseline > 0 ? result.wallSeconds / baseline : 0.0, running,
            std::abs(running - baseline), running >= baseline ? "more" : "less",
            in.stops > 0 && running > 1.1 * baseline
                ? ": the server's own work after the stops, counted as the program's running "
                  "time (QEMU translating the code again)"
                : "");
        return text;
    }

    // A --baseline server: waited for when it ends by itself after the program (QEMU, gdbserver
    // without --multi), killed on every other way out.
    std::function<Status()> signalling(pid_t server);

    // --baseline: the program once through a server of its own with no stop of ppe-arc's, to its
    // end: the wall seconds from the first resume. The same command, so the same emulator, options
    // and program; only the stops differ.
    Result<double> unsampledSeconds(const SampleRequest& r, const std::atomic<bool>& stop)
    {
        auto spawned = spawnServer(r.spawn);
        if (!spawned)
            return spawned.error();
        SpawnedServer server(*spawned);
        auto session = connectSoon(r, server.pid);
        if (!session)
            return session.error();
        if (auto first = startSession(*session, false); !first)
            return first.error();
        ControlOptions options;
        options.fallbackInterrupt = signalling(server.pid);
        TargetControl control(*session, options);
        auto seconds = runToEnd(control, &stop);
        if (!seconds)
            (void)control.kill();
        return seconds;
    }

    std::function<Status()> signalling(pid_t server)
    {
        if (server <= 0)
            return {};
        return [server]() -> Status {
            if (::kill(server, SIGINT) != 0)
                return Error { {}, 0, std::string("cannot signal the server: ") + std::strerror(errno) };
            return std::monostate {};
        };
    }

    // After a refusal before sampling began: an attached program is detached and runs on, but one
    // ppe-arc started itself (--spawn) is ended, with its server, rather than left running where
    // nobody can reach it (`k`; the server reaped, killed if it outlives its program by 5 s).
    void endAfterRefusal(TargetControl& control, pid_t server)
    {
        if (server <= 0) {
            (void)control.detach(); // never leave the program stopped
            return;
        }
        (void)control.kill();
        SpawnedServer reaped(server);
    }

} // namespace

Result<QemuStub> probeQemu(Session& session)
{
    auto reply = session.request("qqemu.sstepbits");
    if (!reply)
        return reply.error();
    const bool qemu = reply->rfind("ENABLE=", 0) == 0;
    return QemuStub { qemu, qemu && session.features().auxvRead };
}

Result<std::string> chooseMode(Session& session, const std::string& mode)
{
    if (mode == "all-stop")
        return std::string("all-stop mode (--mode all-stop)");
    if (mode == "running")
        return std::string("running mode (--mode running): the PC read with `p` while the target runs, where the "
                           "server answers then (OpenOCD over JTAG); no stop for a sample");
    if (!session.features().nonStop) {
        if (mode == "non-stop")
            return Error { session.peer(), 0,
                "the server does not offer non-stop mode (no QNonStop+ in qSupported): use --mode all-stop" };
        return std::string("all-stop mode: the server does not offer non-stop mode (no QNonStop+)");
    }
    if (auto enabled = session.enableNonStop(); !enabled) {
        if (mode == "non-stop")
            return enabled.error();
        return "all-stop mode: " + enabled.error().message;
    }
    auto first = session.haltReason(); // the threads stopped so far, by vStopped
    if (!first)
        return first.error();
    return std::string("non-stop mode (QNonStop:1): a sample stops one thread, round-robin; the others run on");
}

static RemoteRun describeRun(
    const SampleRequest& r, const Session& session, const Prepared& p, const SamplingResult& result)
{
    RemoteRun run;
    run.producer = r.producer;
    run.server = session.peer();
    if (!r.spawn.empty())
        run.server += " (" + r.spawn.substr(0, r.spawn.find(' ')) + ")";
    if (p.qemu)
        run.server += p.qemuUser ? " (QEMU's user-mode stub)" : " (QEMU)";
    run.target = p.description.architecture;
    run.osabi = p.description.osabi;
    run.pc = p.pc.name + " (regnum " + std::to_string(p.pc.regnum) + ") read by " + pcStrategyName(p.probe.strategy);
    if (result.nonStop && p.probe.expedited)
        run.pc = p.pc.name + " (regnum " + std::to_string(p.pc.regnum) + ") from the stop notification (expedited)";
    run.mode = result.whileRunning ? "read-while-running (the target never stopped for a sample)"
        : result.nonStop           ? "halt-and-read (non-stop: one thread a sample, round-robin)"
        : result.everyThread       ? "halt-and-read (all-stop: every thread's PC at each stop)"
                                   : "halt-and-read (all-stop: the stopped thread's PC)";
    run.interrupt = result.nonStop ? "vCont;t:TID (non-stop)"
        : result.whileRunning      ? "none while sampling; " + result.stopMeans + " once, to detach"
                                   : result.stopMeans;
    run.command = r.command;
    run.pid = p.pid;
    return run;
}

// Running mode: no stop; what each read took.
static std::string readingNote(const SamplingResult& result)
{
    SamplingResult reads;
    reads.stopSeconds = result.readSeconds;
    reads.wallSeconds = result.wallSeconds;
    const Intrusion r = intrusionOf(reads);
    char text[320];
    std::snprintf(text, sizeof text,
        "%llu samples read while the target ran, 0 stops, in %.3f s (%llu ticks missed); a read took %.3f ms "
        "(p90 %.3f ms)",
        static_cast<unsigned long long>(result.samples), result.wallSeconds,
        static_cast<unsigned long long>(result.missed), r.mean * 1e3, r.p90 * 1e3);
    std::string out = text;
    if (result.programSignals)
        out += "; " + std::to_string(result.programSignals) + " stops for the program's own signals, passed on";
    return out;
}

static std::string intrusionNote(const SamplingResult& result)
{
    if (result.whileRunning)
        return readingNote(result);
    const Intrusion in = intrusionOf(result);
    char text[320];
    std::snprintf(text, sizeof text,
        "%llu samples from %llu stops in %.3f s (%llu ticks missed); %s stopped %.2f%% of the time, %.3f ms a "
        "stop (p90 %.3f ms); %llu threads at most",
        static_cast<unsigned long long>(result.samples), static_cast<unsigned long long>(in.stops), result.wallSeconds,
        static_cast<unsigned long long>(result.missed), result.nonStop ? "one thread at a time was" : "the target was",
        in.ratio * 100, in.mean * 1e3, in.p90 * 1e3, static_cast<unsigned long long>(result.threadsMax));
    std::string out = text;
    if (!result.heldSeconds.empty()) {
        SamplingResult held;
        held.stopSeconds = result.heldSeconds;
        held.wallSeconds = result.wallSeconds;
        const Intrusion h = intrusionOf(held);
        std::snprintf(text, sizeof text,
            "; from its stop notification to its resume a thread stood %.2f%% of the time, %.3f ms a stop (p90 %.3f "
            "ms)",
            h.ratio * 100, h.mean * 1e3, h.p90 * 1e3);
        out += text;
    }
    if (result.threadsGone)
        out += "; " + std::to_string(result.threadsGone) + " threads had gone when asked to stop";
    if (result.programSignals)
        out += "; " + std::to_string(result.programSignals) + " stops for the program's own signals, passed on";
    return out;
}

// Samples through a prepared session into the outcome's .ppe text.
static void sampleInto(TargetControl& control, PcReader& reader, const SampleRequest& r, Prepared& p, pid_t server,
    double baseline, const std::atomic<bool>& stop, SampleOutcome& out)
{
    Session& session = control.session();
    const auto interval = std::chrono::microseconds(int64_t(r.intervalMs * 1000));
    auto profile = RemoteProfile::create(p.elf, p.loadBias, uint64_t(r.intervalMs * 10000), r.memPages * 512);
    if (!profile) {
        out.error = profile.error().str();
        (void)control.detach();
        return;
    }
    std::vector<Library> libraries;
    Clock::time_point refreshed {};
    SamplerOptions options;
    options.interval = interval;
    options.duration = std::chrono::microseconds(int64_t(r.durationSeconds * 1e6));
    options.seed = r.seedGiven ? r.seed : 0;
    (void)server; // the control's fallback signals it
    options.stop = &stop;
    options.everyThread = r.everyThread;
    options.whileRunning = r.mode == "running";
    // The library list is read again at the end and, at most ten times a second, when a PC lies
    // outside the image (perhaps in a library loaded since).
    const uint64_t imageStart = profile->imageStart(), imageEnd = profile->imageEnd();
    options.whileStopped = [&](bool last, uint64_t pc) {
        const bool outside = pc < imageStart || pc >= imageEnd;
        if (!last && !(outside && Clock::now() - refreshed >= std::chrono::milliseconds(100)))
            return;
        refreshed = Clock::now();
        if (auto list = readLibraries(session))
            libraries = std::move(*list);
    };
    const int64_t start = int64_t(std::time(nullptr));
    const double serverCpu = cpuSecondsOf(server);
    SamplingResult result = arc::sample(control, reader, options, [&profile](uint64_t pc) { profile->add(pc); });
    const double serverCpuEnd = cpuSecondsOf(server);
    RemoteRun run = describeRun(r, session, p, result);
    run.startTime = start;
    out.text = profile->text(run, result, libraries);
    out.notes.push_back(intrusionNote(result));
    if (serverCpu >= 0 && serverCpuEnd >= serverCpu && result.wallSeconds > 0) {
        char text[200];
        std::snprintf(text, sizeof text, "the server (pid %d) used %.2f s of CPU in the %.2f s of sampling (%.0f%%)",
            int(server), serverCpuEnd - serverCpu, result.wallSeconds,
            100 * (serverCpuEnd - serverCpu) / result.wallSeconds);
        out.notes.push_back(text);
    }
    if (baseline > 0)
        out.notes.push_back(slowdownNote(baseline, result));
    if (p.qemuUser)
        out.notes.push_back(qemuWarning(r, session.peer()));
    if (result.end == SamplingEnd::PeerError)
        out.error = result.error;
}

SampleOutcome runSampling(const SampleRequest& r, const std::atomic<bool>& stop)
{
    SampleOutcome out;
    out.output = outputPath(r);
    Prepared p;
    auto elf = readElfImage(absolute(r.elf));
    if (!elf)
        return out.error = elf.error().str(), out;
    p.elf = std::move(*elf);
    double baseline = 0;
    if (r.baseline) {
        if (r.spawn.empty())
            return out.error = "--baseline needs --spawn: the program runs twice, once unsampled", out;
        auto seconds = unsampledSeconds(r, stop);
        if (!seconds)
            return out.error = "--baseline: " + seconds.error().str(), out;
        baseline = *seconds;
    }
    pid_t server = -1;
    if (!r.spawn.empty()) {
        auto spawned = spawnServer(r.spawn);
        if (!spawned)
            return out.error = spawned.error().str(), out;
        server = *spawned;
    }
    auto session = connectSoon(r, server);
    if (!session) {
        if (server > 0 && ::kill(-server, SIGKILL) == 0) // the server ppe-arc started, and its program
            ::waitpid(server, nullptr, 0);
        return out.error = session.error().str(), out;
    }
    ControlOptions controlOptions;
    controlOptions.fallbackInterrupt = signalling(server);
    TargetControl control(*session, controlOptions);
    if (auto ready = prepare(*session, r, p); !ready) {
        out.error = ready.error().str();
        endAfterRefusal(control, server);
        return out;
    }
    PcReader reader(*session, p.pc, p.elf.bigEndian);
    auto probe = reader.probe();
    if (!probe) {
        out.error = probe.error().str();
        endAfterRefusal(control, server);
        return out;
    }
    p.probe = *probe;
    if (r.mode == "running" && !probe->registerPacket) {
        out.error = session->peer() + ": --mode running reads the PC with `p`, and this server has no `p` ("
            + probe->registerPacketNote + ")";
        endAfterRefusal(control, server);
        return out;
    }
    if (p.qemuUser) // it ignores 0x03 while the guest runs: a short program would end during the wait
        control.interruptByteIgnored();
    out.notes.push_back(p.modeNote);
    sampleInto(control, reader, r, p, server, baseline, stop, out);
    return out;
}

} // namespace ppe::arc
