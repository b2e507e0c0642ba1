// The names of the collector's files: the profile (PPE_OUT or PROG.ppe, NAME.PID.ppe in a forked
// child) and the live file next to it (NAME.ppe.PID.live). Every buffer is PATH_MAX bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ppe {

// `value` in decimal, written at the end of [buffer, buffer + size); returns where it starts.
// Signal-safe.
const char* decimal(uint64_t value, char* buffer, size_t size);

// Appends `text` to the PATH_MAX buffer `path`. Signal-safe.
void appendTo(char* path, const char* text);

// The profile's name: `wanted` (PPE_OUT, resolved against the current directory now: the program
// may chdir before it ends), DIR/IMAGE_NAME.ppe when `wanted` is a directory (an existing one, or
// a name ending in '/'), or IMAGE.ppe when `wanted` is nullptr. A `descendant` (a program that the
// launched program ran) writes DIR/IMAGE_NAME.PID.ppe in the directory of `wanted` instead: its
// own name, never the launched program's. Not signal-safe (getcwd, stat).
void chooseOutputPath(const char* wanted, const char* imagePath, bool descendant, char* path);

// NAME.ppe -> NAME.PID.ppe (or NAME -> NAME.PID without an extension), for a forked child.
// Signal-safe.
void outputPathForChild(const char* base, char* path);

// Creates OUTPUT.PID.live (or NAME.PID.live in the current directory when the output's directory
// refuses it) and returns its descriptor with its name in `livePath`; -1 and "" on failure.
// Signal-safe.
int openLiveFile(const char* outputPath, char* livePath);

} // namespace ppe
