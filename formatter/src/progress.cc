#include "ppe/formatter/progress.h"

#include <fmt/format.h>

#include <atomic>
#include <pthread.h>
#include <unistd.h>

namespace ppe::formatter {

namespace {

    void writeAll(int fd, const std::string& text)
    {
        size_t done = 0;
        while (done < text.size()) {
            const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
            if (n <= 0)
                return; // a closed or full stream: progress is not worth failing for
            done += size_t(n);
        }
    }

    // The drawing thread allocates while it holds the line's mutex, and ppeout forks (the isolated
    // DWARF reader): a fork while it allocated left the child waiting forever on an allocator lock
    // no thread would release (seen under ASan, whose allocator has no fork handler here). So a
    // fork holds the running line's mutex: the thread is then waiting, not allocating.
    std::atomic<std::mutex*> g_running { nullptr };
    std::mutex* g_heldAcrossFork = nullptr;

    void holdForFork()
    {
        g_heldAcrossFork = g_running.load(std::memory_order_acquire);
        if (g_heldAcrossFork)
            g_heldAcrossFork->lock();
    }

    void releaseAfterFork()
    {
        if (g_heldAcrossFork)
            g_heldAcrossFork->unlock();
        g_heldAcrossFork = nullptr;
    }

} // namespace

ProgressLine::ProgressLine(int fd, ProgressMode mode, std::chrono::milliseconds delay)
    : m_fd(fd)
    , m_terminal(::isatty(fd) == 1)
    , m_mode(mode)
    , m_delay(mode == ProgressMode::Always ? std::chrono::milliseconds(0) : delay)
    , m_start(std::chrono::steady_clock::now())
{
    if (m_mode == ProgressMode::Auto && !m_terminal)
        m_mode = ProgressMode::Never;
    if (m_terminal && m_mode != ProgressMode::Never) {
        static const int registered = pthread_atfork(holdForFork, releaseAfterFork, releaseAfterFork);
        (void)registered;
        g_running.store(&m_mutex, std::memory_order_release);
        m_thread = std::thread([this] { run(); });
    }
}

ProgressLine::~ProgressLine() { finish(); }

void ProgressLine::phase(std::string_view name, size_t done, size_t total)
{
    if (m_mode == ProgressMode::Never)
        return;
    const std::string text
        = total ? fmt::format("ppeout: {} {}/{}", name, done, total) : "ppeout: " + std::string(name);
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_done)
        return;
    if (!m_terminal) { // Always, to a file or pipe: each phase once, on its own line
        if (name != m_lastPhase)
            writeAll(m_fd, "ppeout: " + std::string(name) + '\n');
        m_lastPhase = name;
        return;
    }
    m_text = text;
    m_changed = true;
    // Once shown (or with no delay), each phase is drawn as it starts; before that the thread
    // draws it when the delay has passed.
    if (m_visible || std::chrono::steady_clock::now() - m_start >= m_delay) {
        draw(m_text);
        m_changed = false;
        m_visible = true;
    }
}

void ProgressLine::finish()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_done = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
    std::mutex* mine = &m_mutex;
    g_running.compare_exchange_strong(mine, nullptr, std::memory_order_acq_rel);
}

void ProgressLine::draw(const std::string& text) { writeAll(m_fd, "\r" + text + "\033[K"); }

void ProgressLine::run()
{
    std::unique_lock<std::mutex> lock(m_mutex);
    while (!m_done) {
        m_wake.wait_for(lock, std::chrono::milliseconds(100));
        if (m_done || !m_changed || std::chrono::steady_clock::now() - m_start < m_delay)
            continue;
        draw(m_text);
        m_changed = false;
        m_visible = true;
    }
    if (m_visible)
        draw(""); // the cursor back at the start of an empty line for what stderr says next
}

} // namespace ppe::formatter
