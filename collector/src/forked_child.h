// A forked child under perf-ring starts cheap (docs/performance.md, "Forked children"): the atfork
// handler gives it a private copy of the histogram, closes the parent's descriptors and restarts
// the collector thread, nothing more; its samples are held by its parent (fork_table.h). Only once
// it has used 20 ms of CPU time (or lived 1 s) does it get its own live file and record, and read its
// rings. One that ends before writes
// no profile: its record still names the parent's pid, so that its exit is not the end of a
// profile (as for a vfork child), and its samples count in its parent's profile.
#pragma once

namespace ppe {

// In the atfork child handler, after the child's output name: true when the child's start waits
// as above (the rest of the handler is skipped). Not for a signal handler (pthread_create).
bool deferForkedChild();

} // namespace ppe
