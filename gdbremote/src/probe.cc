#include "ppe/gdbremote/probe.h"

#include "ppe/gdbremote/hex.h"
#include "ppe/gdbremote/target_control.h"

#include <thread>

namespace ppe::gdbremote {

std::string ProbeResult::report() const
{
    std::string out = "qSupported: " + features.reply + "\n";
    out += std::string("no-ack mode: ") + (ackMode ? "no" : "yes") + "\n";
    out += "architecture: " + description.architecture + ", " + std::to_string(description.registers.size())
        + " registers in " + std::to_string(description.documents.size()) + " documents\n";
    out += "pc: " + pc.name + " regnum " + std::to_string(pc.regnum) + ", " + std::to_string(pc.bitsize)
        + " bits at byte " + std::to_string(pc.offset) + " of g\n";
    out += pcProbe.str() + "\n";
    out += "0x03 stops the running target: "
        + std::string(!interruptByte ? "not tried"
                : *interruptByte     ? "yes"
                                     : "no (ignored)")
        + "\n";
    for (auto v : pcs)
        out += "pc 0x" + hexNumber(v) + "\n";
    if (exit)
        out += std::string(exit->kind == StopReply::Kind::Exited ? "exited " : "killed by signal ")
            + std::to_string(exit->code) + "\n";
    return out;
}

static Result<TargetDescription> description(Session& session, const ProbeOptions& options)
{
    if (!options.tdescFile.empty())
        return readTargetDescriptionFile(options.tdescFile);
    return session.readTargetDescription();
}

// One stop/continue cycle through the target control, which owns how the target is stopped.
static Status cycle(TargetControl& control, PcReader& reader, const ProbeOptions& options, ProbeResult& result)
{
    if (auto resumed = control.resume(); !resumed)
        return resumed;
    std::this_thread::sleep_for(options.runFor);
    auto stop = control.stop();
    result.interruptByte = control.interruptByte();
    if (!stop)
        return stop.error();
    if (stop->ended()) {
        result.exit = *stop;
        return std::monostate {};
    }
    auto pc = reader.read();
    if (!pc)
        return pc.error();
    result.pcs.push_back(*pc);
    return std::monostate {};
}

static Status start(Session& session, const ProbeOptions& options, ProbeResult& result)
{
    auto features = session.negotiate();
    if (!features)
        return features.error();
    result.features = *features;
    result.ackMode = session.ackMode();
    auto stop = session.haltReason();
    if (!stop)
        return stop.error();
    result.firstStop = *stop;
    auto tdesc = description(session, options);
    if (!tdesc)
        return tdesc.error();
    result.description = std::move(*tdesc);
    const RegisterInfo* pc = result.description.pc();
    if (!pc)
        return Error { result.description.documents.front(), 0,
            "no register named pc, rip or eip (architecture " + result.description.architecture + ")" };
    result.pc = *pc;
    return std::monostate {};
}

Result<ProbeResult> probeSession(Session& session, const ProbeOptions& options)
{
    ProbeResult result;
    if (auto started = start(session, options, result); !started)
        return started.error();
    PcReader reader(session, result.pc, options.bigEndian);
    auto probe = reader.probe();
    if (!probe)
        return probe.error();
    result.pcProbe = *probe;
    auto first = reader.read();
    if (!first)
        return first.error();
    result.pcs.push_back(*first);
    ControlOptions control;
    control.interruptWait = options.interruptWait;
    control.fallbackInterrupt = options.fallbackInterrupt;
    control.signalLocalProgram = false; // a probe records what the server does by itself
    TargetControl target(session, control);
    for (int i = 0; i < options.stops && !result.exit; ++i) {
        if (auto done = cycle(target, reader, options, result); !done) {
            (void)target.detach(); // best effort: never leave the target stopped
            return done.error();
        }
    }
    if (result.exit)
        return result;
    auto end = options.kill ? target.kill() : target.detach();
    if (!end)
        return end.error();
    return result;
}

} // namespace ppe::gdbremote
