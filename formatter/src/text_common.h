// What the text report's sections share (text_report.cc, text_threads.cc).
#pragma once

#include "ppe/formatter/report.h"

#include <string>

namespace ppe::formatter {

// Names wider than this are shortened in the middle in the tables, so that the numbers stay
// aligned and lines stay under 160 characters (C++ names run to hundreds).
inline constexpr size_t kMaxNameWidth = 60;

// `name` in at most `width` characters: its beginning and end around "...".
inline std::string fitName(const std::string& name, size_t width)
{
    if (name.size() <= width)
        return name;
    const size_t tail = (width - 3) / 2;
    const size_t head = width - 3 - tail;
    return name.substr(0, head) + "..." + name.substr(name.size() - tail);
}

// The blocked-time table (real-time mode) and the per-thread table.
void blockedText(std::string& out, const Report& report);
void threadsText(std::string& out, const Report& report);

// The call paths' section (text_calls.cc, issue 39).
void callPathsText(std::string& out, const Report& report);

// The per-rank imbalance of a merge (text_imbalance.cc).
void imbalanceText(std::string& out, const Report& report);

} // namespace ppe::formatter
