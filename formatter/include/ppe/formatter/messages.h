// Notes and warnings the formatter's library calls return as values, for the program to print.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ppe::formatter {

struct Message {
    enum class Kind { Note, Warning } kind;
    std::string text; // "FILE: what happened", lower-case, no final period
};
using Messages = std::vector<Message>;

inline void addNote(Messages& messages, std::string text)
{
    messages.push_back({ Message::Kind::Note, std::move(text) });
}

inline void addWarning(Messages& messages, std::string text)
{
    messages.push_back({ Message::Kind::Warning, std::move(text) });
}

} // namespace ppe::formatter
