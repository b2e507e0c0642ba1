// Progress of a long report on stderr: the phase makeReport is in ("reading DWARF", "reading
// sources 3/40"), on one line rewritten with \r, once formatting has taken more than a second and
// only when the stream is a terminal, so that logs and pipes stay clean.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace ppe::formatter {

enum class ProgressMode {
    Auto, // on a terminal, after the delay
    Always, // from the start; on a terminal one line rewritten, elsewhere one line per phase
    Never,
};

class ProgressLine {
public:
    // Writes to `fd` (stderr). `delay` is how long a report must take before Auto shows anything.
    ProgressLine(int fd, ProgressMode mode, std::chrono::milliseconds delay = std::chrono::milliseconds(1000));
    ~ProgressLine();
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;

    // The phase now running, with `done` of `total` steps when total > 0. Cheap: it only stores
    // the text; a thread draws it a few times a second.
    void phase(std::string_view name, size_t done = 0, size_t total = 0);

    // Clears the line (before other messages go to the stream); no progress after it.
    void finish();

private:
    void run();
    void draw(const std::string& text);

    int m_fd;
    bool m_terminal;
    ProgressMode m_mode;
    std::chrono::milliseconds m_delay;
    std::chrono::steady_clock::time_point m_start;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::string m_text; // what to draw next
    std::string m_lastPhase; // the last phase printed one per line (not a terminal)
    bool m_changed = false;
    bool m_visible = false; // a line is on the terminal
    bool m_done = false;
    std::thread m_thread;
};

} // namespace ppe::formatter
