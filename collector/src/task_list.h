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

// Reads /proc/self/task/TID/LEAF ("stat", "syscall", "comm") into `text` (NUL-terminated); returns
// the bytes read, or -1 (the thread has ended, or the file cannot be read). Signal-safe.
long readTaskFile(pid_t tid, const char* leaf, char* text, size_t size);

// The state letter of /proc/self/task/TID/stat ('R', 'S', 'D', 'Z', ...), or 0 when unreadable.
// Signal-safe.
char threadState(pid_t tid);

} // namespace ppe
