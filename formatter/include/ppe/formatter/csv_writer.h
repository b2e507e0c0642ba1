// RFC 4180 fields and records for the csv renderer.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ppe::formatter {

// `text` as one CSV field: quoted, with quotes doubled, when it holds a comma, a quote, a line
// break or leading or trailing spaces (which some readers trim); as it is otherwise.
std::string csvField(std::string_view text);

// One record: the fields joined by commas, ended by CRLF as RFC 4180 says.
std::string csvRecord(const std::vector<std::string>& fields);

} // namespace ppe::formatter
