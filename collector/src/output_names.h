// The names of the collector's files: the profile (PPE_OUT, with its patterns, or PROG.ppe;
// NAME.PID.ppe in a forked child) and the live file next to it (NAME.ppe.PID.live). Every buffer
// is PATH_MAX bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ppe {

// `value` in decimal, written at the end of [buffer, buffer + size); returns where it starts.
// Signal-safe.
const char* decimal(uint64_t value, char* buffer, size_t size);

// Appends `text` to the PATH_MAX buffer `path`. Signal-safe.
void appendTo(char* path, const char* text);

// What PPE_OUT's patterns stand for besides the pid; nullptr where it is not known.
struct NameParts {
    const char* host = nullptr; // %h: the short host name (up to the first '.')
    const char* rank = nullptr; // %r: the MPI or Slurm rank (Config::rank)
    const char* job = nullptr; // %j: the batch job id (Config::job)
    // Without PPE_OUT: where IMAGE_NAME.ppe goes (Config::defaultDirectory); nullptr: IMAGE.ppe.
    const char* defaultDirectory = nullptr;
};

// What chooseOutputPath could not expand or use, for one start-up warning (bits).
enum NameIssue : unsigned {
    kUnknownPattern = 1, // a '%' followed by a letter no pattern has (output_patterns.h): kept as it is
    kNoRank = 2, // %r without a rank: the pid stands for it
    kNoJob = 4, // %j without a job id: "nojob"
    // PPE_OUT is another user's directory, or one that cannot be made: the current directory instead
    // (said already)
    kForeignDirectory = 8,
};

// The profile's name as a template: the final name with %p for the pid and %% for a '%', so that a
// forked child can put its own pid in (outputPathForChild). `wanted` is PPE_OUT with %h %r %j
// expanded now and resolved against the current directory now (the program may chdir before it
// ends); a directory (an existing one, or a name ending in '/', made now with its parents as
// `mkdir -p` would, in directories of the user's or root's only) holds one file per process:
// DIR/IMAGE_NAME.rankR.ppe when the rank is known, else DIR/IMAGE_NAME.PID.ppe (DIR/IMAGE_NAME.ppe
// when the directory's name has %r or %p). Only a directory of the effective user's or root's is
// used so (output_file.h ownDirectoryAt); another user's is not, and its files go to the current
// directory (saying so, one line), as do those of a directory that cannot be made (saying why). nullptr gives
// IMAGE.ppe, or parts.defaultDirectory/IMAGE_NAME.ppe. When the rank is known and the name has neither %r nor %p,
// ".rankR" goes before the extension (IMAGE.rank3.ppe), so that the ranks of a job never overwrite each other.
//
// A descendant writes DIR/IMAGE_NAME.PID.ppe, its own name, never the first program's: DIR is the
// directory of `wanted`, else parts.defaultDirectory, else the current directory. A descendant is a
// program that a profiled program ran: `launchedDescendant` (PPE_LAUNCHED, set by the launcher,
// names another pid), or a process whose parent maps a live file (/proc/PPID/maps): under a
// preloaded or linked libppe no process the user did not name writes beside its executable in a
// directory it merely runs from (/usr/bin; issue 33), and nothing is set in the program's
// environment for it. Where the profile lies beside the executable, a forked child writes in the
// current directory too (outputPathForChild).
// Returns the NameIssue bits. Not signal-safe (getcwd, stat); runs once at start-up.
unsigned chooseOutputPath(
    const char* wanted, const char* imagePath, bool launchedDescendant, const NameParts& parts, char* pathTemplate);

// True when `path` is PPE_OUT as the user gave it (expanded for this process), not a name the
// collector made up (a directory's DIR/IMAGE.PID.ppe, IMAGE.rankR.ppe, a child's NAME.PID.ppe, a
// default): only then may a device or FIFO there be written into (output_file.h). Signal-safe.
bool userNamedOutput(const char* path);

// The name `pathTemplate` gives process `pid`: %p -> pid, %% -> %. Signal-safe.
void outputPathOf(const char* pathTemplate, uint64_t pid, char* path);

// The name of a forked child (this process, after fork): with %p in the template, the template
// with the child's pid; otherwise NAME.ppe -> NAME.PID.ppe (or NAME -> NAME.PID without an
// extension); where the parent's profile lies beside its executable, CWD/IMAGE_NAME.PID.ppe in the
// parent's current directory at start (chooseOutputPath). Signal-safe.
void outputPathForChild(const char* pathTemplate, char* path);

// The host name up to its first '.', into `out` (capacity `size`). Signal-safe (uname).
void shortHostName(char* out, size_t size);

// Creates OUTPUT.PID.live (or NAME.PID.live in the current directory when the output's directory
// refuses it) and returns its descriptor with its name in `livePath`; -1 and "" on failure, with
// errno saying why the output's directory refused it (ENAMETOOLONG, EACCES, ENOSPC...). Signal-safe.
int openLiveFile(const char* outputPath, char* livePath);

} // namespace ppe
