#include "sim_client.h"

namespace ppe::arc::sim {

SimClient::~SimClient()
{
    access.reset();
    control.reset();
    session.reset(); // the server sees the connection end and returns
    if (thread.joinable())
        thread.join();
}

uint32_t SimClient::address(const std::string& name)
{
    const CallTree& tree = target->machine().tree();
    return tree.functions.at(tree.find(name)).address;
}

Result<gdbremote::StopReply> SimClient::runToStop(std::chrono::milliseconds limit)
{
    if (gdbremote::Status resumed = control->resume(); !resumed)
        return resumed.error();
    const auto deadline = gdbremote::Clock::now() + limit;
    for (;;) {
        Result<bool> spoke
            = session->incoming(std::min(deadline, gdbremote::Clock::now() + std::chrono::milliseconds(50)));
        if (!spoke)
            return spoke.error();
        if (*spoke)
            return control->ownStop();
        if (gdbremote::Clock::now() >= deadline)
            return Error { "", 0, "the simulated target did not stop within the limit" };
    }
}

std::unique_ptr<SimClient> attachSim(
    const SimSetup& setup, const std::string& elf, const std::string& tree, const std::string& journalPath)
{
    auto client = std::make_unique<SimClient>();
    Result<std::unique_ptr<SimTarget>> target = SimTarget::load({ elf, tree, setup.pct });
    if (!target) {
        client->error = target.error().str();
        return client;
    }
    client->target = std::move(*target);
    client->server = std::make_unique<RspServer>(*client->target,
        ServerOptions { setup.personality, setup.pctFeature, setup.sliceSteps, std::chrono::microseconds(200) });
    Result<uint16_t> port = client->server->listen();
    if (!port) {
        client->error = port.error().str();
        return client;
    }
    client->thread = std::thread([server = client->server.get()] { server->serve(); });
    const std::string remote = "127.0.0.1:" + std::to_string(*port);
    Result<gdbremote::Session> session = gdbremote::Session::connect(remote, std::chrono::milliseconds(3000));
    if (!session) {
        client->error = session.error().str();
        return client;
    }
    client->session.emplace(std::move(*session));
    Result<gdbremote::StopReply> first = gdbremote::startSession(*client->session, true);
    Result<gdbremote::TargetDescription> description
        = first ? client->session->readTargetDescription() : Result<gdbremote::TargetDescription>(first.error());
    if (!description) {
        client->error = description.error().str();
        return client;
    }
    client->description.emplace(std::move(*description));
    gdbremote::ControlOptions options;
    options.fallbackInterrupt = [server = client->server.get()]() -> gdbremote::Status {
        server->interruptFromOutside(); // as SIGINT to qemu-arc
        return std::monostate {};
    };
    client->control = std::make_unique<gdbremote::TargetControl>(*client->session, options);
    client->journal = std::make_unique<gdbremote::UndoJournal>(journalPath, remote);
    client->access = std::make_unique<gdbremote::TargetAccess>(
        *client->control, *client->description, false, client->journal.get());
    return client;
}

} // namespace ppe::arc::sim
