// PPE's output rule: nothing is ever destroyed. A result is written to a temporary file in the
// target directory and renamed over the plain name; an existing file is first kept as a numbered
// backup NAME.~N~ (GNU `cp --backup=numbered` style: the highest N is the newest backup).
#pragma once

#include <climits>
#include <cstddef>

namespace ppe {

struct OutputFile {
    int fd = -1;
    char path[PATH_MAX] = {}; // the plain (final) name
    char tempPath[PATH_MAX] = {};
};

// Creates a new temporary file next to `path` (O_EXCL, never following a symlink). Returns 0 or
// an errno value. When `path` is a device or a pipe (/dev/null, /dev/stdout, a FIFO) it is opened
// and written into instead (tempPath stays ""): such a node is not a file to keep a backup of, and
// renaming it away (as root) would put a plain file in place of /dev/null for the whole system.
// A FIFO without a reader is ENXIO. Safe to call from a signal handler.
int openOutput(const char* path, OutputFile* file);

// Flushes the file to disk, keeps any existing `path` as a numbered backup (unless `replacing`:
// the caller wrote what is there itself, e.g. an earlier checkpoint) and renames the temporary
// file to `path`. On failure removes the temporary file and returns an errno value; whatever was
// at `path` before is left as it was. A device or pipe is only closed. Safe to call from a signal
// handler.
int commitOutput(OutputFile* file, bool replacing = false);

// The whole sequence for a buffer: open, write everything, commit (or abandon on any failure).
// Returns 0 or an errno value. Signal-safe.
int writeOutputFile(const char* path, const char* data, size_t size);

// Closes and removes the temporary file. Safe to call from a signal handler.
void abandonOutput(OutputFile* file);

// Keeps an existing `path` as PATH.~N~ with the next free N (a hard link, so `path` itself stays
// in place until it is replaced). Returns 0 when there was nothing to keep. Signal-safe.
int keepNumberedBackup(const char* path);

// Copies at most size-1 bytes and terminates; returns false if `text` did not fit. Signal-safe.
bool copyString(char* to, size_t size, const char* text);

} // namespace ppe
