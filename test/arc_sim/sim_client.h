// Test helper: the simulated ARC target (a STAND-IN, README.md) served on a thread of the test, and
// the real ppe-arc client attached to it as ppe-arc attaches (session, first stop, description,
// target control, journalled access).
#pragma once

#include "rsp_server.h"
#include "sim_target.h"

#include "ppe/gdbremote/session.h"
#include "ppe/gdbremote/session_start.h"
#include "ppe/gdbremote/target_access.h"
#include "ppe/gdbremote/target_control.h"

#include <memory>
#include <optional>
#include <string>
#include <thread>

namespace ppe::arc::sim {

struct SimClient {
    std::unique_ptr<SimTarget> target;
    std::unique_ptr<RspServer> server;
    std::thread thread;
    std::optional<gdbremote::Session> session;
    std::optional<gdbremote::TargetDescription> description;
    std::unique_ptr<gdbremote::TargetControl> control;
    std::unique_ptr<gdbremote::UndoJournal> journal;
    std::unique_ptr<gdbremote::TargetAccess> access;
    std::string error; // why attaching failed

    ~SimClient();
    // The address of the tree's function `name`.
    uint32_t address(const std::string& name);
    // Resumes and waits (bounded) for the target's own stop.
    Result<gdbremote::StopReply> runToStop(std::chrono::milliseconds limit = std::chrono::milliseconds(20000));
};

struct SimSetup {
    Personality personality = Personality::OpenOcd;
    bool pctFeature = true;
    uint64_t sliceSteps = 2000;
    testing::PctModel::Config pct {};
};

// Started and attached; `error` says what failed.
std::unique_ptr<SimClient> attachSim(
    const SimSetup& setup, const std::string& elf, const std::string& tree, const std::string& journalPath);

} // namespace ppe::arc::sim
