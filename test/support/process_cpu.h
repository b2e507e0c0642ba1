// The CPU time of a running process as the kernel counts it, the reference the tests hold the
// collector's samples and recovered times against.
#pragma once

namespace ppe::testing {

// The CPU time (user + system, seconds) of a running process from /proc/PID/stat; -1 once it has
// gone. /proc counts it in clock ticks (sysconf(_SC_CLK_TCK), usually 10 ms).
double processCpuSeconds(int pid);

} // namespace ppe::testing
