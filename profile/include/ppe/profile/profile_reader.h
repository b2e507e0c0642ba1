// Reads .ppe text into a Profile. Every problem is an Error naming the file and line.
#pragma once

#include "ppe/profile/profile.h"
#include "ppe/support/result.h"

#include <string>
#include <string_view>

namespace ppe {

// The newest format version this reader understands.
inline constexpr uint32_t kReaderVersion = 1;

// Parses the text of a .ppe file; `fileName` is used in error messages only.
Result<Profile> parseProfile(std::string_view text, std::string_view fileName);

// Reads and parses the file at `path`.
Result<Profile> readProfile(const std::string& path);

// True if the text starts like a .ppe file (used to recognise inputs given in the wrong place).
bool looksLikeProfile(std::string_view text);

} // namespace ppe
