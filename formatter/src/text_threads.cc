#include "ppe/formatter/thread_report.h"
#include "text_common.h"

#include <fmt/format.h>

#include <algorithm>

namespace ppe::formatter {

namespace {

    // The line above one thread's waits in the blocked-time table.
    std::string threadHeading(const BlockedRow& row)
    {
        if (!row.tid)
            return "       Any thread (places the collector's full table could not keep apart):\n";
        return fmt::format("       Thread {} ({}), waited {:.3f} s:\n", row.tid, row.thread.empty() ? "?" : row.thread,
            row.threadSeconds);
    }

} // namespace

void blockedText(std::string& out, const Report& report)
{
    if (!report.blocked)
        return;
    const BlockedTime& b = *report.blocked;
    out += "\nPPE - BLOCKED TIME BY PLACE (REAL TIME THE THREADS WAITED), % OF ALL THREAD TIME.\n\n";
    out += fmt::format(" Threads ran {:.2f} s (sampled) and waited {:.2f} s (found by {} scans of /proc/self/task, "
                       "every {:.1f} ms on average, costing {:.2f} s of CPU)\n",
        b.runningSeconds, b.blockedSeconds, b.scans, b.scanPeriod * 1e3, b.scanCost);
    if (b.rows.empty())
        return;
    out += " " + blockedGroupsLine(b, "\n ") + "\n";
    size_t callWidth = 12, siteWidth = 10;
    for (const BlockedRow& row : b.rows) {
        callWidth = std::max(callWidth, row.call.size());
        siteWidth = std::max(siteWidth, std::min(row.site.size(), size_t(44)));
    }
    out += fmt::format("\n{:>4}   {:<{}}  {:>8} +- {:>6}  {:>6}  {:>6}  {:<{}}  {}\n", "#", "System call", callWidth,
        "Seconds", "error", "Time %", "Scans", "Waiting in", siteWidth, "Called from");
    size_t rank = 0;
    for (const BlockedRow& row : b.rows) {
        const BlockedRow* previous = rank ? &b.rows[rank - 1] : nullptr;
        if (!row.inProgram && (!previous || previous->inProgram))
            out += b.byThread ? "       Threads that never waited in the program's code (library helper threads):\n"
                              : "       Waits with no program code on the stack (library helper threads):\n";
        if (b.byThread && (!previous || previous->tid != row.tid || previous->inProgram != row.inProgram))
            out += threadHeading(row);
        std::string line = fmt::format("{:>4} - {:<{}}  {:>8.3f} +- {:>6.3f}  {:>6.2f}  {:>6}  {:<{}}  {}", ++rank,
            row.call, callWidth, row.seconds, row.error, row.percent, row.observations, fitName(row.site, siteWidth),
            siteWidth, row.caller.empty() ? "-" : fitName(row.caller, kMaxNameWidth));
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out += line + '\n';
    }
}

void threadsText(std::string& out, const Report& report)
{
    if (report.threads.size() < 2 && !report.moreThreads)
        return;
    const bool blocked = report.blocked.has_value();
    out += "\nPPE - THREADS, % OF ALL SAMPLES.\n\n";
    out += fmt::format("{:>8}  {:<16}  {:>10}  {:>6}  {:>8}  {:>9}{}\n", "Thread", "Name", "Samples", "All %", "CPU s",
        "Rate, Hz", blocked ? "  Waited s" : "");
    bool apart = false;
    for (const ThreadRow& t : report.threads) {
        if (!apart && t.helper) { // addThreads put them last
            out += fmt::format("{:>8}  Threads with no samples, which only waited{} (a library's helper threads, such "
                               "as MPI progress threads):\n",
                "", report.blocked && report.blocked->byThread ? ", never in the program's code" : "");
            apart = true;
        }
        const std::string id = t.tid ? std::to_string(t.tid) : "(others)";
        const std::string cpu = t.cpuSeconds > 0 ? fmt::format("{:.2f}", t.cpuSeconds) : "-";
        const std::string rate = t.rate > 0 ? fmt::format("{:.1f}", t.rate) : "-";
        out += fmt::format("{:>8}  {:<16}  {:>10}  {:>6.2f}  {:>8}  {:>9}{}\n", id, t.name.empty() ? "?" : t.name,
            t.samples, t.percent, cpu, rate, blocked ? fmt::format("  {:>8.2f}", t.blockedSeconds) : "");
    }
    if (report.moreThreads)
        out += fmt::format("{:>8}  ({} more threads with fewer samples)\n", "", report.moreThreads);
}

} // namespace ppe::formatter
