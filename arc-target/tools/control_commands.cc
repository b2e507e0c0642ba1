// `ppe-arc poke` and `ppe-arc restore`: the target-control layer's changes and their undo from
// the command line. `poke` changes a stopped target (registers by name, memory, software
// breakpoints), each first written to the undo journal, prints what was there before, holds the
// target stopped a while, then undoes everything and detaches; `restore` undoes a journal left
// behind when ppe-arc died or lost the connection, prints what the target holds afterwards, and
// detaches. The counters of issue 37 make their changes through the same TargetAccess.
#include "control_commands.h"

#include "ppe/arc/aux_registers.h"
#include "ppe/arc/spawned_server.h"
#include "ppe/core/output_file.h"
#include "ppe/gdbremote/hex.h"
#include "ppe/gdbremote/session_start.h"
#include "ppe/gdbremote/target_access.h"
#include "ppe/gdbremote/transcript.h"

#include <algorithm>
#include <atomic>
#include <boost/program_options.hpp>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <thread>

namespace po = boost::program_options;
using namespace ppe::gdbremote;

namespace {

struct ControlRequest {
    std::string remote, journal, transcript;
    std::vector<std::string> sets, writes, breaks, monitors;
    double holdSeconds = 0;
    unsigned breakKind = 0;
};

// The journal's default name: beside the user, one per server address.
std::string defaultJournal(const std::string& remote)
{
    std::string name = "ppe-arc-";
    for (char c : remote)
        name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return name + ".undo";
}

std::vector<TranscriptLine> g_lines; // --transcript: every frame, both directions

// Writes the transcript of the session (--transcript) when asked, as the capture tool does, through
// the output rules of every ppe result (core/output_file.h): an old file is kept as NAME.~N~, and
// another user's symlink or FIFO at the name is not followed (issue 32).
void keepTranscript(const ControlRequest& r, const char* command)
{
    if (r.transcript.empty())
        return;
    const std::string text = formatTranscript(g_lines,
        { std::string("ppe-arc ") + command + " against " + r.remote,
            "'>' client to server, '<' server to client; one frame, ack or run of stray bytes a line" });
    const char* refusal = nullptr;
    const int error
        = ppe::writeOutputFile(r.transcript.c_str(), text.data(), text.size(), ppe::OutputName::Given, &refusal);
    if (error)
        std::fprintf(stderr, "ppe-arc: %s: cannot write the transcript: %s%s%s\n", r.transcript.c_str(),
            std::strerror(error), refusal ? ": " : "", refusal ? refusal : "");
}

// A stopped session: negotiated, its first stop read.
ppe::Result<Session> open(const std::string& remote, bool tap, pid_t server = -1)
{
    SessionOptions options;
    options.swbreak = true; // breakpoint stops with the PC at the breakpoint (x86 gdbserver)
    if (tap)
        options.tap = [](char direction, std::string_view raw) { g_lines.push_back({ direction, std::string(raw) }); };
    auto session = ppe::arc::connectToServer(remote, server, std::chrono::seconds(10), options);
    if (!session)
        return session.error();
    if (auto stop = startSession(*session, true); !stop)
        return stop.error();
    return session;
}

// "NAME=VALUE" or "ADDR=HEX": the two halves, the right one a hex number or hex bytes.
bool split(const std::string& text, std::string& left, std::string& right)
{
    const size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        return false;
    left = text.substr(0, eq);
    right = text.substr(eq + 1);
    if (right.rfind("0x", 0) == 0)
        right = right.substr(2);
    return isHex(right);
}

ppe::Result<std::monostate> applyChanges(TargetAccess& access, const ControlRequest& r, bool bigEndian)
{
    std::string left, right;
    for (const std::string& set : r.sets) {
        if (!split(set, left, right))
            return ppe::Error { {}, 0, "--set " + set + ": not NAME=HEX" };
        auto old = access.readRegisterBytes(left);
        if (!old)
            return old.error();
        std::printf("register %s %s\n", left.c_str(), toHex(*old).c_str());
        if (auto done = access.writeRegister(left, parseHexNumber(right).value_or(0)); !done)
            return done;
    }
    for (const std::string& write : r.writes) {
        auto at = split(write, left, right) ? parseHexNumber(left.rfind("0x", 0) == 0 ? left.substr(2) : left)
                                            : std::nullopt;
        auto bytes = at ? fromHex(right) : std::nullopt;
        if (!bytes)
            return ppe::Error { {}, 0, "--write " + write + ": not ADDR=HEXBYTES" };
        auto old = access.readMemory(*at, bytes->size());
        if (!old)
            return old.error();
        std::printf("memory %s %s\n", hexNumber(*at).c_str(), toHex(*old).c_str());
        if (auto done = access.writeMemory(*at, *bytes); !done)
            return done;
    }
    for (const std::string& at : r.breaks) {
        auto address = parseHexNumber(at.rfind("0x", 0) == 0 ? at.substr(2) : at);
        if (!address)
            return ppe::Error { {}, 0, "--break " + at + ": not a hex address" };
        if (auto done = access.insertBreakpoint(*address, r.breakKind); !done)
            return done;
    }
    for (const std::string& command : r.monitors) {
        auto output = access.monitor(command);
        if (!output)
            return output.error();
        std::printf("monitor %s: %s\n", command.c_str(), output->c_str());
    }
    (void)bigEndian;
    return std::monostate {};
}

int poke(const ControlRequest& r, const std::atomic<bool>& stop)
{
    auto attached = attach(r.remote, r.journal, !r.transcript.empty());
    if (!attached)
        return controlFail(attached.error().str());
    Attachment& a = **attached;
    auto changed = applyChanges(a.access, r, false);
    if (changed) {
        std::printf("holding (journal %s)\n", a.journal.path().c_str());
        std::fflush(stdout);
        const auto until = Clock::now() + std::chrono::milliseconds(int64_t(r.holdSeconds * 1000));
        while (Clock::now() < until && !stop.load())
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const int status = changed ? 0 : controlFail(changed.error().str());
    return closeAttachment(a, r.transcript, "poke", status);
}

// What the target holds now at each place the journal names (after the undo: the originals).
void printState(TargetAccess& access, const std::vector<UndoEntry>& entries)
{
    for (const UndoEntry& e : entries) {
        if (e.kind == UndoEntry::Kind::Register) {
            RegisterInfo reg;
            reg.name = e.name;
            reg.regnum = unsigned(e.number);
            reg.bitsize = unsigned(e.bytes.size() * 8);
            reg.offset = e.offset;
            auto now = access.readRegisterBytes(reg);
            std::printf("register %s %s\n", e.name.c_str(), now ? toHex(*now).c_str() : "unreadable");
        } else if (e.kind == UndoEntry::Kind::Memory) {
            auto now = access.readMemory(e.number, e.bytes.size());
            std::printf("memory %s %s\n", hexNumber(e.number).c_str(), now ? toHex(*now).c_str() : "unreadable");
        }
    }
}

int restore(const ControlRequest& r)
{
    const std::string path = r.journal.empty() ? defaultJournal(r.remote) : r.journal;
    auto journal = UndoJournal::load(path);
    if (!journal)
        return controlFail(journal.error().str());
    const std::string remote = r.remote.empty() ? journal->remote() : r.remote;
    auto session = open(remote, !r.transcript.empty());
    if (!session)
        return controlFail(session.error().str());
    TargetControl control(*session);
    const std::vector<UndoEntry> entries = journal->entries();
    // An lr/sr stub's undo runs the stub: it needs the registers by name (r0, r1, pc).
    const bool stub = std::any_of(
        entries.begin(), entries.end(), [](const UndoEntry& e) { return e.kind == UndoEntry::Kind::Tool; });
    ppe::Result<TargetDescription> description = stub ? session->readTargetDescription() : TargetDescription {};
    if (!description)
        return controlFail(description.error().str());
    TargetAccess access(control, *description, false, &*journal);
    ppe::arc::undoAuxStubWrites(control, access);
    auto undone = access.undoAll();
    if (!undone)
        return controlFail(undone.error().str() + " (the journal " + path + " keeps the rest)");
    printState(access, entries);
    std::fprintf(stderr, "ppe-arc: %zu changes undone; the journal %s is removed\n", entries.size(), path.c_str());
    auto detached = control.detach();
    keepTranscript(r, "restore");
    if (!detached)
        return controlFail(detached.error().str());
    return 0;
}

} // namespace

Attachment::Attachment(ppe::gdbremote::Session s, ppe::gdbremote::TargetDescription d, const std::string& journalPath,
    const std::string& remote)
    : session(std::move(s))
    , description(std::move(d))
    , control(session)
    , journal(journalPath, remote)
    , access(control, description, false, &journal)
{
    ppe::arc::undoAuxStubWrites(control, access); // the counters written by an lr/sr stub
}

ppe::Result<std::unique_ptr<Attachment>> attach(
    const std::string& remote, const std::string& journal, bool transcript, pid_t server)
{
    auto session = open(remote, transcript, server);
    if (!session)
        return session.error();
    auto description = session->readTargetDescription();
    if (!description)
        return description.error();
    return std::make_unique<Attachment>(
        std::move(*session), std::move(*description), journal.empty() ? defaultJournal(remote) : journal, remote);
}

int closeAttachment(Attachment& a, const std::string& transcript, const char* command, int status)
{
    if (a.control.running()) // an error while it ran: the undo needs it stopped
        (void)a.control.stop();
    if (a.control.state() == TargetState::Ended) { // its changes ended with it: nothing to undo
        while (!a.journal.empty())
            a.journal.dropLast();
    }
    // Every exit path undoes what was changed before the detach.
    auto undone = a.access.undoAll();
    std::fprintf(stderr, "ppe-arc: %s\n", a.access.capabilities().report().c_str());
    auto detached = undone ? a.control.detach() : Status(std::monostate {});
    if (!transcript.empty()) {
        ControlRequest r;
        r.remote = a.journal.remote();
        r.transcript = transcript;
        keepTranscript(r, command);
    }
    if (!undone)
        return controlFail(undone.error().str() + " (the journal " + a.journal.path() + " keeps the rest)");
    if (!detached)
        return controlFail(detached.error().str());
    return status;
}

int controlMain(int argc, char** argv, const std::atomic<bool>& stop)
{
    ControlRequest r;
    po::options_description options("ppe-arc poke / restore");
    options.add_options()("remote", po::value(&r.remote)->value_name("HOST:PORT"), "the server's address")(
        "journal", po::value(&r.journal)->value_name("FILE"), "the undo journal (default ppe-arc-HOST_PORT.undo here)")(
        "set", po::value(&r.sets)->value_name("REG=HEX"), "poke: write a register, by name")(
        "write", po::value(&r.writes)->value_name("ADDR=HEXBYTES"), "poke: write memory")(
        "break", po::value(&r.breaks)->value_name("ADDR"), "poke: insert a software breakpoint (Z0)")(
        "kind", po::value(&r.breakKind)->default_value(0), "poke: the breakpoint's kind (its size in bytes)")("monitor",
        po::value(&r.monitors)->value_name("CMD"), "poke: a monitor command (qRcmd), its output printed")("transcript",
        po::value(&r.transcript)->value_name("FILE"), "write the session's transcript (test/data/gdb-remote)")(
        "hold", po::value(&r.holdSeconds)->default_value(0), "poke: seconds to hold the changes before undoing");
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(argc - 1, argv + 1).options(options).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        return controlFail(std::string(e.what()) + " (see ppe-arc --help)");
    }
    const std::string command = argv[1];
    if (command == "restore") {
        if (r.remote.empty() && r.journal.empty())
            return controlFail("restore needs --journal FILE or --remote HOST:PORT");
        return restore(r);
    }
    if (r.remote.empty())
        return controlFail("poke needs --remote HOST:PORT");
    return poke(r, stop);
}

int controlFail(const std::string& message)
{
    std::fprintf(stderr, "ppe-arc: error: %s\n", message.c_str());
    return 1;
}
