// The patterns of an output name (PPE_OUT, `ppe -o`): one list for libppe, which expands them in
// each process (collector/src/output_names.cc), and the launcher, which refuses any other before
// the program runs and names them in its help (issue 38: the launcher restated the letters).
// Constant data only: part of libppe.
#pragma once

#include <cstddef>

namespace ppe {

inline constexpr char kPatternPid = 'p'; // the process id (a forked child's own)
inline constexpr char kPatternHost = 'h'; // the host name up to its first '.'
inline constexpr char kPatternRank = 'r'; // the MPI or Slurm rank
inline constexpr char kPatternJob = 'j'; // the batch job id
inline constexpr char kPatternPercent = '%'; // a '%'

struct OutputPattern {
    char letter; // the character after the '%'
    const char* meaning; // as the launcher's help says it; nullptr for %%, which stands for itself
};

inline constexpr OutputPattern kOutputPatterns[] = { { kPatternPid, "pid" }, { kPatternHost, "host" },
    { kPatternRank, "rank" }, { kPatternJob, "job id" }, { kPatternPercent, nullptr } };

inline constexpr size_t kOutputPatternCount = sizeof(kOutputPatterns) / sizeof(kOutputPatterns[0]);

// "%p %h %r %j %%": the list as a message names it.
struct OutputPatternList {
    char text[3 * kOutputPatternCount];
};
constexpr OutputPatternList outputPatternList()
{
    OutputPatternList list {};
    size_t used = 0;
    for (const OutputPattern& pattern : kOutputPatterns) {
        if (used)
            list.text[used++] = ' ';
        list.text[used++] = '%';
        list.text[used++] = pattern.letter;
    }
    return list;
}
inline constexpr OutputPatternList kOutputPatternList = outputPatternList();

// True when "%<letter>" is a pattern. Signal-safe.
constexpr bool isOutputPattern(char letter)
{
    for (const OutputPattern& pattern : kOutputPatterns) {
        if (pattern.letter == letter)
            return true;
    }
    return false;
}

} // namespace ppe
