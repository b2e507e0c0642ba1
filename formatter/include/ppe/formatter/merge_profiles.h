// The profiles of many processes (the ranks of an MPI job, the processes of a batch job) merged
// into one, streaming: one file is read at a time and folded into the sum, so that memory is
// bounded by the histogram's size, not by the number of files.
#pragma once

#include "ppe/formatter/call_paths.h"

#include "ppe/formatter/messages.h"
#include "ppe/profile/profile.h"
#include "ppe/support/result.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ppe::formatter {

// The profile files a PPE_FILE argument names: the file itself; every *.ppe and NAME.ppe.PID.live
// in a directory (not in its subdirectories), sorted; or, for a shell pattern the shell did not
// expand ('run/*.ppe'), the files it matches, sorted; what a directory or a pattern finds that is
// not a regular file (a FIFO, a device, a symlink to one) is left out with a warning naming it
// (input_file.h: such files are read only when named). Of a directory's or a pattern's live files,
// one whose process wrote its profile (NAME.ppe with the same pid) is left out, with a note; one
// without it (a process killed first) stays, to be read as recovered, with a warning naming it.
// Notes and warnings go to `messages` when given. An error names the argument when it names no file.
Result<std::vector<std::string>> profileFiles(const std::string& argument, Messages* messages = nullptr);

// The files all the arguments name, in order (profileFiles of each).
Result<std::vector<std::string>> profileFiles(const std::vector<std::string>& arguments, Messages* messages = nullptr);

// Folds profiles into their sum, one at a time. What the sum holds:
// - counts, totals, saturated samples, ticks: summed; bins re-binned to the widest bin width (a
//   narrow bin's count goes to the wide bin holding its start address) and summed;
// - CPU user, system and active time summed; wall time the longest; the achieved rate the summed
//   samples (posix-timer: ticks) over the summed active time, as the collector computes it;
// - shared objects by path and build id, their hits by offset summed; threads kept apart, their
//   names marked with the rank or pid; blocked places merged by system call, site and caller;
// - the status the worst one (recovered, then checkpoint), the end reasons counted; the header the
//   first file's, with the number of profiles, their pids and their hosts summarised.
// A merged profile (ppeout --merge-out) adds its sums and counts as the processes it holds, with
// their pids and end reasons as it summarised them; its threads keep the names its merge gave.
// Profiles of another program (build id, or image path when there is none) or of another
// address range are refused: an error naming both files.
class ProfileMerge {
public:
    std::optional<Error> add(Profile profile, const std::string& path, Messages& messages);
    // The sum (with a note on re-binned widths); the merge is empty afterwards.
    Profile finish(Messages& messages);
    size_t count() const { return m_count; }

private:
    std::optional<Error> checkSameProgram(const Profile& next, const std::string& path) const;
    void noteProcess(const Profile& next);
    void addTimes(const Profile& next);
    void addSamples(Profile& next);
    std::vector<size_t> addObjects(Profile& next);
    void addBlocked(Profile& next, const std::vector<size_t>& objectOf);
    void addCallPaths(Profile& next, const std::vector<size_t>& objectOf);

    Profile m_sum;
    CallNodeIndex m_callNodes; // the sum's call paths by parent and place (issue 39)
    size_t m_count = 0; // profiles added
    size_t m_processes = 0; // processes they hold (a merged file holds its merge's)
    std::vector<std::string> m_pidTexts; // merged files' pids, as they summarised them
    std::string m_firstPath;
    std::vector<uint64_t> m_pids;
    std::set<std::string> m_hosts;
    std::map<std::string, size_t> m_endReasons;
    std::set<uint32_t> m_widths;
};

// Reads `files` with `read` (on every core, side by side: `read` must be safe to call from several
// threads) and merges them in their order (ProfileMerge), a few parsed profiles waiting at most:
// the sum and the messages are those of a merge one file after the other. A file that cannot be
// read (damaged, truncated, not a profile) is left out with a warning naming it and the line, and
// listed in the sum's skippedProfiles; with `strict` it is the error. None readable is an error.
// `progress` (files merged, files) is called on the calling thread.
Result<Profile> mergeProfileFiles(const std::vector<std::string>& files,
    const std::function<Result<Profile>(const std::string&)>& read, Messages& messages, bool strict = false,
    const std::function<void(size_t, size_t)>& progress = {});

// "1201-1204, 1310": the numbers in ranges, at most `most` of them ("... and 12 more").
std::string summariseNumbers(std::vector<uint64_t> numbers, size_t most = 8);

// The same of ranges [first, last] (overlapping or adjacent ones joined), with `unsaid` more ranges
// that are not known (a merged file's own " and N more").
std::string summariseRanges(std::vector<std::pair<uint64_t, uint64_t>> ranges, size_t unsaid, size_t most = 8);

// summariseNumbers' text read back: its ranges added to `ranges`, its " and N more" to `unsaid`.
void readRanges(const std::string& text, std::vector<std::pair<uint64_t, uint64_t>>& ranges, size_t& unsaid);

} // namespace ppe::formatter
