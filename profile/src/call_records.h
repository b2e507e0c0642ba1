// Format version 3's call paths (issue 39): the `call-paths` and `call-node` records into
// Profile::calls, checked as they come (ids in order, parents before children, within the limit)
// and as a whole at the end (the nodes the header promised, samples that add up). Their run-time
// addresses are named by outside_samples.h with the `mapping` records.
#pragma once

#include "ppe/profile/profile.h"

#include <optional>
#include <string>
#include <vector>

namespace ppe::detail {

// What the records have said so far.
struct CallRecords {
    bool header = false; // the `call-paths` line came
    uint64_t declared = 0; // the nodes it promised
};

// Takes a line of either record: nullopt when the line is neither, else an error message, or ""
// when the line is good.
// A node's place is a run-time address or, in a merge written as a .ppe, `image+0xADDR` or
// `ID+0xOFFSET` (thread_records.h's places).
std::optional<std::string> takeCallRecord(const std::vector<std::string>& f, CallRecords& r, Profile& p);

// The whole tree's checks, then the root's samples (those cut where nothing fitted): "" or the
// problem.
std::string finishCallPaths(const CallRecords& r, CallPaths& calls);

} // namespace ppe::detail
