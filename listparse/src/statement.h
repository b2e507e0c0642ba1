// The statement part of a listing line, as far as the parser needs it: directives with their
// arguments, instructions (anything else that is not a label or a comment), and the cpp line
// markers gcc writes around inline assembly ('# 9 "simp.c" 1', '.linefile 9"simp.c"1' when gas
// reads a pipe).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ppe::listparse {

enum class StatementKind { Empty, Directive, Instruction, LineMarker };

struct Statement {
    StatementKind kind = StatementKind::Empty;
    std::string_view directive; // ".section"
    std::string_view args; // what follows the directive, trimmed
};

Statement parseStatement(std::string_view text);

struct LineMarker {
    unsigned line = 0; // the line number the next assembler line has in `file`
    std::string file; // "" when the marker returns to the assembler file ('# 0 "" 2')
};

std::optional<LineMarker> parseLineMarker(std::string_view text);

// Directive arguments split at commas outside quotes, each trimmed; a trailing "# comment"
// (clang's annotations) is dropped.
std::vector<std::string_view> splitAtCommas(std::string_view args);

// Directive arguments split at blanks outside quotes (.file, .loc).
std::vector<std::string_view> splitAtBlanks(std::string_view args);

// The text of a C-style quoted string, escapes resolved; the bare text when not quoted.
std::string unquote(std::string_view arg);

} // namespace ppe::listparse
