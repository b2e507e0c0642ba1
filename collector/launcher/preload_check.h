// Whether LD_PRELOAD can bring the collector into a program: the dynamic loader never runs for a
// static executable, and ignores LD_PRELOAD (outside the system's directories) for one that runs
// set-user-ID or set-group-ID as another user.
#pragma once

#include <optional>
#include <string>

namespace ppe {

// Why `ppe PROGRAM` could not profile `program` (a name found on PATH as execvp finds it), with
// what to do instead; nothing when it can (a dynamic executable, a script, or a static executable
// that carries the collector). Files it cannot read are left to exec to report.
std::optional<std::string> whyPreloadCannotReach(const std::string& program);

} // namespace ppe
