// A fake GDB remote server in a thread, over a socketpair: it plays the server's side of a
// transcript, checking that the client sends exactly the bytes the transcript says it sent.
#pragma once

#include "ppe/gdbremote/connection.h"
#include "ppe/gdbremote/transcript.h"

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ppe::gdbremote::testing {

struct PeerOptions {
    std::size_t chunk = 0; // write the server's bytes this many at a time (0: a line at a time)
    // Hold a stop reply that follows a resume until release(): a server that ignores 0x03 and
    // stops only when the client's fallback (SIGINT) comes.
    bool holdStops = false;
    bool stall = false; // at the end, keep the connection open until release()
};

class FakePeer {
public:
    FakePeer(std::vector<TranscriptLine> script, PeerOptions options = {});
    ~FakePeer();

    // The client's end (once).
    Connection client();
    // What the fallback interrupt calls in place of SIGINT.
    void release();
    // Waits for the script to end (or the client to stop); "" if every line matched, else why not.
    std::string finish();

private:
    void run();
    bool play(const TranscriptLine& line, std::size_t number);
    bool expect(const std::string& bytes, std::size_t number);
    bool hold();

    std::vector<TranscriptLine> m_script;
    PeerOptions m_options;
    int m_fd = -1;
    int m_clientFd = -1;
    bool m_resumed = false;
    std::mutex m_mutex;
    std::condition_variable m_released;
    int m_releases = 0;
    std::string m_pending; // client bytes read but not yet matched
    int m_earlyAcks = 0; // client acknowledgements taken before the script's `+` lines
    std::string m_failure;
    std::thread m_thread;
};

// The script's lines as a transcript file has them, or fails the test.
std::vector<TranscriptLine> loadTranscript(const std::string& name);
// The `pc 0x...` lines of NAME.report (what the capture read).
std::vector<std::uint64_t> reportedPcs(const std::string& name);
bool reportSays(const std::string& name, const std::string& text);
// Every document a transcript fetched with qXfer:features:read, reassembled from its chunks.
std::map<std::string, std::string> documentsOf(const std::string& transcript);

} // namespace ppe::gdbremote::testing
