// The threads of this process as /proc/self/task shows them, read with raw system calls only:
// safe in a signal handler and on the collector thread (no allocation, no locks, no stdio).
#pragma once

#include <cstddef>
#include <sys/stat.h>
#include <sys/types.h>

namespace ppe {

// A descriptor the collector opens for a moment on its own thread (a /proc file) takes the lowest
// free number, which the program may close and reuse meanwhile (daemons close 3 to N in a loop):
// `opened` is what it was at open, and closeTransient closes it only if the number still names
// that file, never the program's. Signal-safe.
struct Transient {
    int fd = -1;
    dev_t dev = 0;
    ino_t ino = 0;
};
Transient openTransient(const char* path, int flags);
void closeTransient(const Transient& opened);

// Lists the thread ids into `out`; returns how many (at most `capacity`), or -1 when the folder
// cannot be read. Signal-safe.
int listThreads(pid_t* out, int capacity);

// The same list and the process's thread count, for the collector thread's periodic work (issue 35:
// with 1024 idle threads, listing /proc/self/task was most of its cost). On the collector thread
// with a descriptor table of its own, the folder is held open there (no number of the program's is
// taken, the program cannot close it; a forked child's or a resumed thread's opens its own) and
// re-read from its start; elsewhere it is opened for the moment. Signal-safe.
int listThreadsHeld(pid_t* out, int capacity);

// How many threads the process has now, in O(1): the folder's link count is 2 + its threads (the
// kernel's proc_task_getattr). -1 when unknown. A caller that keeps a list relists when it changes.
// Signal-safe.
int threadCount();

// Reads /proc/self/task/TID/LEAF ("stat", "syscall", "comm") into `text` (NUL-terminated); returns
// the bytes read, or -1 (the thread has ended, or the file cannot be read). Signal-safe.
long readTaskFile(pid_t tid, const char* leaf, char* text, size_t size);

// The state letter of /proc/self/task/TID/stat ('R', 'S', 'D', 'Z', ...), or 0 when unreadable.
// Signal-safe.
char threadState(pid_t tid);

} // namespace ppe
