// TargetAccess and the undo journal replayed against the real servers' transcripts
// (test/data/gdb-remote/*-access.txt, qemu-arc-text-write.txt: `ppe-arc poke --transcript`, whose
// command line each transcript's third comment keeps): registers by name (qemu-arc: `p`/`P` on a
// core and an aux register; gdbserver: no `p`/`P`, so `g`/`G`), memory (`X` probed: empty on
// qemu-arc, so `M`; `M` to code is E14 there), `Z0`/`z0`, `qRcmd` (gdbserver's `O` output;
// qemu-arc has none), then every change undone and the detach — as recorded, byte by byte, with
// garbage between packets, with a wrong answer, and cut off (the journal on disk keeps the rest).
#include "fake_peer.h"
#include "ppe/gdbremote/hex.h"
#include "ppe/gdbremote/target_access.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <memory>
#include <sstream>
#include <unistd.h>

using namespace ppe::gdbremote;
using namespace ppe::gdbremote::testing;
using Script = std::vector<TranscriptLine>;

namespace {

// The poke command line a transcript was recorded with (its "# ppe-arc poke ..." comment).
std::vector<std::string> pokeArguments(const std::string& name)
{
    std::ifstream in(std::string(PPE_GDB_REMOTE_DIR) + "/" + name + ".txt");
    std::vector<std::string> words;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("# ppe-arc poke ", 0) != 0)
            continue;
        std::istringstream split(line.substr(15));
        for (std::string word; split >> word;)
            words.push_back(word);
    }
    return words;
}

struct AccessReplay {
    std::vector<std::string> old; // "register NAME HEX", "memory ADDR HEX", as poke prints them
    Capabilities caps;
    std::string error, monitorOutput, peerFailure;
    std::vector<UndoEntry> left; // the journal's entries at the end
    bool journalFile = false; // the journal is still on disk
};

std::string journalPath()
{
    static int n = 0;
    return (std::filesystem::temp_directory_path()
        / ("ppe-access-" + std::to_string(::getpid()) + "-" + std::to_string(++n) + ".undo"))
        .string();
}

// One change of the poke command line; false on the first error (kept in r.error).
bool applyOne(TargetAccess& access, const std::string& option, const std::string& value, unsigned kind, AccessReplay& r)
{
    const size_t eq = value.find('=');
    const std::string left = value.substr(0, eq), right = eq == std::string::npos ? "" : value.substr(eq + 1);
    ppe::Result<std::monostate> done = std::monostate {};
    if (option == "--set") {
        auto old = access.readRegisterBytes(left);
        if (old)
            r.old.push_back("register " + left + " " + toHex(*old));
        done = old ? access.writeRegister(left, *parseHexNumber(right)) : Status(old.error());
    } else if (option == "--write") {
        const uint64_t at = *parseHexNumber(left);
        auto old = access.readMemory(at, right.size() / 2);
        if (old)
            r.old.push_back("memory " + hexNumber(at) + " " + toHex(*old));
        done = old ? access.writeMemory(at, *fromHex(right)) : Status(old.error());
    } else if (option == "--break") {
        done = access.insertBreakpoint(*parseHexNumber(value), kind);
    } else if (option == "--monitor") {
        auto output = access.monitor(value);
        if (output)
            r.monitorOutput = *output;
        done = output ? Status(std::monostate {}) : Status(output.error());
    }
    if (!done)
        r.error = done.error().str();
    return done.ok();
}

// poke's sequence, in its order: --set, --write, --break, --monitor; then the undo and the detach.
void pokeSequence(TargetAccess& access, const std::vector<std::string>& args, AccessReplay& r)
{
    unsigned kind = 0;
    for (size_t i = 0; i + 1 < args.size(); i += 2)
        if (args[i] == "--kind")
            kind = unsigned(std::stoul(args[i + 1]));
    for (const char* option : { "--set", "--write", "--break", "--monitor" })
        for (size_t i = 0; i + 1 < args.size(); i += 2)
            if (args[i] == option && !applyOne(access, option, args[i + 1], kind, r))
                return;
}

AccessReplay replayAccess(const std::string& name, Script script, PeerOptions peerOptions = {})
{
    AccessReplay r;
    FakePeer peer(std::move(script), peerOptions);
    {
        Session session(peer.client());
        UndoJournal journal(journalPath(), "fake");
        auto ready = session.negotiate().ok() && session.haltReason().ok();
        auto description = session.readTargetDescription();
        if (!ready || !description) {
            r.error = description ? "negotiation failed" : description.error().str();
        } else {
            TargetControl control(session);
            TargetAccess access(control, *description, false, &journal);
            pokeSequence(access, pokeArguments(name), r);
            r.caps = access.capabilities();
            auto undone = access.undoAll();
            if (undone)
                (void)control.detach();
            else if (r.error.empty())
                r.error = undone.error().str();
        }
        r.left = journal.entries();
        r.journalFile = std::filesystem::exists(journal.path());
        std::filesystem::remove(journal.path());
    }
    peer.release();
    r.peerFailure = peer.finish();
    return r;
}

// The "register"/"memory" lines of NAME.report.
std::vector<std::string> reportedOld(const std::string& name)
{
    std::ifstream in(std::string(PPE_GDB_REMOTE_DIR) + "/" + name + ".report");
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);)
        if (line.rfind("register ", 0) == 0 || line.rfind("memory ", 0) == 0)
            out.push_back(line);
    return out;
}

Script withGarbage(const Script& script)
{
    Script out;
    for (const auto& line : script) {
        if (line.direction == '<' && line.bytes[0] == '$')
            out.push_back({ '<', "\r\nnoise }*#\x7f" });
        out.push_back(line);
    }
    return out;
}

void expectAsRecorded(const std::string& name, const AccessReplay& r)
{
    EXPECT_EQ(r.peerFailure, "");
    EXPECT_EQ(r.old, reportedOld(name));
    EXPECT_TRUE(r.left.empty()) << "changes not undone";
    EXPECT_FALSE(r.journalFile);
}

} // namespace

class AccessReplayEach : public ::testing::TestWithParam<PeerOptions> { };

TEST_P(AccessReplayEach, QemuArc)
{
    AccessReplay r = replayAccess("qemu-arc-access", loadTranscript("qemu-arc-access"), GetParam());
    expectAsRecorded("qemu-arc-access", r);
    EXPECT_EQ(r.caps.readRegister, true);
    EXPECT_EQ(r.caps.writeRegister, true); // a core (r13) and an aux register (lp_start)
    EXPECT_EQ(r.caps.writeMemoryX, false); // X is empty: M wrote the data
    EXPECT_EQ(r.caps.writeMemoryM, true);
    EXPECT_EQ(r.caps.breakpoint, true);
    EXPECT_EQ(r.caps.monitor, false);
    EXPECT_NE(r.error.find("does not support 'qRcmd'"), std::string::npos) << r.error;
}

TEST_P(AccessReplayEach, QemuArcRefusesWritesToCode)
{
    AccessReplay r = replayAccess("qemu-arc-text-write", loadTranscript("qemu-arc-text-write"), GetParam());
    expectAsRecorded("qemu-arc-text-write", r);
    EXPECT_NE(r.error.find("cannot write memory at 0x1054c: E14"), std::string::npos) << r.error;
}

TEST_P(AccessReplayEach, Gdbserver)
{
    AccessReplay r = replayAccess("gdbserver-access", loadTranscript("gdbserver-access"), GetParam());
    expectAsRecorded("gdbserver-access", r);
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.caps.readRegister, false); // g at the register's offset instead
    EXPECT_EQ(r.caps.writeRegister, false); // G instead
    EXPECT_EQ(r.caps.writeMemoryX, true);
    EXPECT_EQ(r.caps.breakpoint, true);
    EXPECT_EQ(r.caps.monitor, true);
    EXPECT_EQ(r.monitorOutput.rfind("The following monitor commands are supported:", 0), 0u) << r.monitorOutput;
}

INSTANTIATE_TEST_SUITE_P(Damage, AccessReplayEach,
    ::testing::Values(PeerOptions {}, PeerOptions { 1, false, false }, PeerOptions { 7, false, false }));

TEST(AccessReplay, WithGarbageBetweenPackets)
{
    for (const char* name : { "qemu-arc-access", "gdbserver-access" })
        expectAsRecorded(name, replayAccess(name, withGarbage(loadTranscript(name))));
}

// A wrong answer: E14 where qemu-arc wrote the data. The error names the address; the refused
// write leaves no journal entry.
TEST(AccessReplay, WrongAnswerToAMemoryWrite)
{
    Script script = loadTranscript("qemu-arc-access");
    for (size_t i = 0; i + 1 < script.size(); ++i)
        if (script[i].bytes.rfind("$M1402c,4:ffffffff", 0) == 0 && script[i + 1].bytes == "+")
            script[i + 2].bytes = "$E14#aa";
    AccessReplay r = replayAccess("qemu-arc-access", script);
    EXPECT_NE(r.error.find("cannot write memory at 0x1402c: E14"), std::string::npos) << r.error;
    for (const UndoEntry& e : r.left) // the script goes on with Z0: the undo after it may fail
        EXPECT_EQ(e.kind, UndoEntry::Kind::Register) << "a refused write in the journal";
}

// Cut off after the breakpoint: nothing can be undone over the connection; the journal on disk
// keeps every change, newest last, for `ppe-arc restore`.
TEST(AccessReplay, CutOffTheJournalKeepsEveryChange)
{
    Script script = loadTranscript("qemu-arc-access");
    for (size_t i = 0; i < script.size(); ++i)
        if (script[i].bytes.rfind("$Z0,", 0) == 0) {
            script.resize(i + 4); // the Z0, its ack, the OK, our ack
            break;
        }
    AccessReplay r = replayAccess("qemu-arc-access", script);
    EXPECT_FALSE(r.error.empty());
    ASSERT_EQ(r.left.size(), 4u);
    EXPECT_EQ(r.left[0].kind, UndoEntry::Kind::Register);
    EXPECT_EQ(r.left[0].name, "r13");
    EXPECT_EQ(r.left[1].name, "lp_start");
    EXPECT_EQ(r.left[2].kind, UndoEntry::Kind::Memory);
    EXPECT_EQ(r.left[2].number, 0x1402cu);
    EXPECT_EQ(r.left[3].kind, UndoEntry::Kind::Breakpoint);
}

// The journal file: written as entries come, read back equal; damaged lines name file and line.
TEST(UndoJournalFile, RoundTripAndDamage)
{
    const std::string path = journalPath();
    {
        UndoJournal journal(path, "127.0.0.1:1234");
        ASSERT_TRUE(journal.add({ UndoEntry::Kind::Register, "pc", 36, std::string("\x10\x20\x00\x00", 4), 0, 144 }));
        ASSERT_TRUE(journal.add({ UndoEntry::Kind::Memory, {}, 0x1402c, "abc", 0 }));
        ASSERT_TRUE(journal.add({ UndoEntry::Kind::Breakpoint, {}, 0x1054c, {}, 2 }));
        ASSERT_TRUE(journal.add({ UndoEntry::Kind::Monitor, "arc jtag set-aux-reg 0x254 0x0", 0, {}, 0 }));
        ASSERT_TRUE(journal.add({ UndoEntry::Kind::Tool, "aux-stub 0x1000 0x255 0x1", 0, {}, 0 }));
        UndoJournal again(path, "x");
        EXPECT_FALSE(again.add({ UndoEntry::Kind::Memory, {}, 1, "z", 0 })) << "an existing journal overwritten";
    }
    auto loaded = UndoJournal::load(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error().str();
    EXPECT_EQ(loaded->remote(), "127.0.0.1:1234");
    ASSERT_EQ(loaded->entries().size(), 5u);
    EXPECT_EQ(loaded->entries()[0].offset, 144u);
    EXPECT_EQ(loaded->entries()[0].bytes, std::string("\x10\x20\x00\x00", 4));
    EXPECT_EQ(loaded->entries()[1].bytes, "abc");
    EXPECT_EQ(loaded->entries()[2].breakpointKind, 2u);
    EXPECT_EQ(loaded->entries()[3].kind, UndoEntry::Kind::Monitor);
    EXPECT_EQ(loaded->entries()[3].name, "arc jtag set-aux-reg 0x254 0x0");
    EXPECT_EQ(loaded->entries()[4].kind, UndoEntry::Kind::Tool);
    EXPECT_EQ(loaded->entries()[4].name, "aux-stub 0x1000 0x255 0x1");
    loaded->dropLast();
    loaded->dropLast();
    loaded->dropLast();
    loaded->dropLast();
    loaded->dropLast();
    EXPECT_FALSE(std::filesystem::exists(path)) << "an empty journal stays";
    for (const char* bad : { "memory zz 00", "register pc x 0 00", "breakpoint 10 99999", "memory 10", "nonsense",
             "monitor", "monitor zz", "monitor 6162 63", "tool", "tool 6162 63" }) {
        std::ofstream(path) << "ppe-arc undo journal 1\nremote x:1\n" << bad << "\n";
        auto damaged = UndoJournal::load(path);
        ASSERT_FALSE(damaged.ok()) << bad;
        EXPECT_EQ(damaged.error().str().rfind(path + ":3: not an undo entry", 0), 0u) << damaged.error().str();
    }
    std::filesystem::remove(path);
}

// Issue 32: in a shared directory another user may plant a symlink at the journal's name or at the
// name of its rewrite, or leave a journal of their own for `ppe-arc restore`. Each write goes
// nowhere but the user's own journal, and another user's journal is not trusted.
TEST(UndoJournalFile, NeverFollowsASymlinkNorTrustsAnotherUsersJournal)
{
    const std::string victim = journalPath() + ".precious";
    std::ofstream(victim) << "precious\n";
    const auto unchanged = [&] {
        std::ifstream in(victim);
        return std::string(std::istreambuf_iterator<char>(in), {}) == "precious\n";
    };
    const std::string path = journalPath();
    std::filesystem::create_symlink(victim, path);
    UndoJournal planted(path, "x:1");
    EXPECT_FALSE(planted.add({ UndoEntry::Kind::Memory, {}, 1, "a", 0 })) << "the first entry followed a symlink";
    EXPECT_TRUE(unchanged());
    std::filesystem::remove(path);

    UndoJournal journal(path, "x:1");
    ASSERT_TRUE(journal.add({ UndoEntry::Kind::Memory, {}, 1, "a", 0 }));
    ASSERT_TRUE(journal.add({ UndoEntry::Kind::Memory, {}, 2, "b", 0 }));
    std::filesystem::rename(path, path + ".moved");
    std::filesystem::create_symlink(victim, path);
    EXPECT_FALSE(journal.add({ UndoEntry::Kind::Memory, {}, 3, "c", 0 })) << "an entry appended through a symlink";
    EXPECT_TRUE(unchanged());
    std::filesystem::remove(path);
    std::filesystem::rename(path + ".moved", path);

    std::filesystem::create_symlink(victim, path + ".new"); // the rewrite's old, predictable name
    journal.dropLast();
    EXPECT_TRUE(unchanged()) << "the rewrite followed a planted symlink";
    auto left = UndoJournal::load(path);
    ASSERT_TRUE(left.ok()) << left.error().str();
    EXPECT_EQ(left->entries().size(), 1u);
    std::filesystem::remove(path + ".new");

    if (::geteuid() != 0) {
        std::filesystem::remove(path);
        std::filesystem::remove(victim);
        GTEST_SKIP() << "not root: cannot give the journal to another user";
    }
    ASSERT_EQ(::chown(path.c_str(), 65534, 65534), 0);
    auto foreign = UndoJournal::load(path);
    ASSERT_FALSE(foreign.ok()) << "another user's journal was trusted";
    EXPECT_NE(foreign.error().str().find("belongs to another user"), std::string::npos) << foreign.error().str();
    std::filesystem::remove(path);
    std::filesystem::remove(victim);
}
