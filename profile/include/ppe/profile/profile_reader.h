// Reads .ppe text into a Profile. Every problem is an Error naming the file and line.
#pragma once

#include "ppe/core/limits.h"
#include "ppe/profile/input_file.h"
#include "ppe/profile/profile.h"
#include "ppe/support/result.h"

#include <string>
#include <string_view>

namespace ppe {

// The newest format version this reader understands (2: the collector's samples outside the
// monitored object raw, attributed by the reader; 3: with call paths).
inline constexpr uint32_t kReaderVersion = 3;

// What one profile may claim, well above what the collector and ppe-arc write (a line: the command
// line escaped; bins: the largest histogram PPE_MEM allows; threads, blocked places, objects, their
// hits and code sections: four times or more the collector's tables, and low enough that a merge,
// which matches objects and blocked places pairwise, stays quick). Beyond a limit the reader stops
// with an error naming the file, the line and the limit, so that memory follows what a real profile
// holds, never what a damaged or hostile file claims.
inline constexpr size_t kMaxProfileLineBytes = 64 * 1024;
inline constexpr size_t kMaxProfileCommandBytes = 16 * 1024; // the arguments, each with its '\0'
inline constexpr uint64_t kMaxProfileBins = kMaxPages * 512 / sizeof(uint32_t);
inline constexpr size_t kMaxProfileThreads = 65536;
inline constexpr size_t kMaxProfileBlocked = 16384;
inline constexpr size_t kMaxProfileObjects = 4096;
inline constexpr size_t kMaxProfileObjectHits = 1 << 20;
inline constexpr size_t kMaxProfileCodeSections = 256;
inline constexpr size_t kMaxProfileCallNodes = kMaxCallNodes; // PPE_CALL_NODES' largest
inline constexpr size_t kMaxProfileLines = kMaxProfileBins + kMaxProfileCallNodes + (size_t(1) << 22);

// Parses the text of a .ppe file; `fileName` is used in error messages only.
Result<Profile> parseProfile(std::string_view text, std::string_view fileName);

// Reads and parses the file at `path`, one line at a time (memory: the profile, not the file):
// input_file.h's rules (a FIFO or device only when Named; never a wait without end); the first line
// is checked before the rest is read.
Result<Profile> readProfile(const std::string& path, InputOrigin origin = InputOrigin::Named);

// True if the text starts like a .ppe file (used to recognise inputs given in the wrong place).
bool looksLikeProfile(std::string_view text);

} // namespace ppe
