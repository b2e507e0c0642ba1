// PPE's output rule: nothing is ever destroyed. A result is written to a temporary file in the
// target directory and renamed over the plain name; an existing file is first kept as a numbered
// backup NAME.~N~ (GNU `cp --backup=numbered` style: the highest N is the newest backup).
//
// And nobody else steers it (issue 32, docs/security.md "Output paths"): the temporary file is
// unnamed (O_TMPFILE) or has a random name, so no other user can take its name first; a device or
// FIFO is written into only when the user named it and neither it nor a symlink leading to it nor
// the directory holding either belongs to another user (root's are trusted); a name that ppe made
// up is never followed and never a device.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <sys/types.h>

namespace ppe {

// Who chose an output's name: the user (PPE_OUT, `-o`, an OUTPUT argument) or ppe itself (PROG.ppe,
// DIR/PROG.PID.ppe, a forked child's name, the current-directory fallback, a recovered LIVE.ppe).
enum class OutputName { MadeUp, Given };

struct OutputFile {
    int fd = -1;
    int dir = -1; // the directory holding `path` (O_PATH): the temporary file and backups go there
    bool device = false; // a device or FIFO the user named: written into, never replaced
    bool unnamed = false; // an O_TMPFILE file, given its temporary name only when committed
    const char* refusal = nullptr; // why a node at the name was refused (static text), else nullptr
    char path[PATH_MAX] = {}; // the plain (final) name
    char tempName[32] = {}; // the temporary file's name in `dir`: ".ppe-" 16 random hex digits ".tmp"
};

// Creates a new temporary file next to `path`: unnamed (O_TMPFILE) where the file system and /proc
// allow linking it in later, else with a random name (getrandom, O_EXCL, never following a
// symlink). Returns 0 or an errno value. When the user named `path` (`name` Given) and it is a
// character device or a FIFO (/dev/null, /dev/stdout, a FIFO of theirs), it is opened and written
// into instead (device): renaming it away (as root) would put a plain file in place of /dev/null
// for the whole system. Such a node is refused (EPERM, with `refusal` saying why) when it, a symlink
// on the way to it or a directory holding either belongs to another user than the effective one or
// root, or when it is a block device; a descriptor of this process reached through /proc/self/fd
// (/dev/stdout) is always written into. A node at a made-up name that is no file or symlink is
// refused (EEXIST); a directory is EISDIR. A FIFO without a reader is ENXIO. Signal-safe.
int openOutput(const char* path, OutputFile* file, OutputName name = OutputName::MadeUp);

// Flushes the file to disk, keeps any existing `path` as a numbered backup (unless `replacing`:
// the caller wrote what is there itself, e.g. an earlier checkpoint) and renames the temporary
// file to `path`. On failure removes the temporary file and returns an errno value; whatever was
// at `path` before is left as it was. A device or pipe is only closed. Signal-safe.
int commitOutput(OutputFile* file, bool replacing = false);

// The whole sequence for a buffer: open, write everything, commit (or abandon on any failure).
// Returns 0 or an errno value, with the refusal's reason in `*refusal` (when not nullptr).
// Signal-safe.
int writeOutputFile(const char* path, const char* data, size_t size, OutputName name = OutputName::MadeUp,
    const char** refusal = nullptr);

// Closes and removes the temporary file. Safe to call from a signal handler.
void abandonOutput(OutputFile* file);

// Keeps an existing `path` as PATH.~N~ (a hard link, so `path` itself stays in place until it is
// replaced), N one above the highest plausible backup number present. A number counts when it has
// at most 9 digits, no leading zero, and is at most 1000 above the count of such backups present:
// anybody may create `run.ppe.~99999999~` in a shared directory, and it must neither stop later
// backups nor overflow. Returns 0 when there was nothing to keep. Signal-safe.
int keepNumberedBackup(const char* path);

// True when `path` is a directory that belongs to the effective user or root, reached only through
// symlinks of theirs, in directories of theirs: one the collector may fill with a file per process.
// `*foreign` says that a directory is there but fails that test. Signal-safe.
bool ownDirectoryAt(const char* path, bool* foreign);

// 64 bits nobody else can guess: getrandom, else (no entropy yet, an old kernel) the 16 random
// bytes the kernel gave this process at exec (AT_RANDOM, readable only by its owner) mixed with a
// counter and the clock. Signal-safe.
uint64_t unguessableBits();

// Copies at most size-1 bytes and terminates; returns false if `text` did not fit. Signal-safe.
bool copyString(char* to, size_t size, const char* text);

} // namespace ppe
