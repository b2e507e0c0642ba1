// A command line as a POSIX shell reads it: the reports show the profiled program's argv so that
// it can be pasted back into a shell and run again.
#pragma once

#include <string>
#include <vector>

namespace ppe::formatter {

// One argument as one shell word: bare when every byte is one a shell takes literally, otherwise
// in single quotes with each ' written '\''.
std::string shellWord(const std::string& arg);

// The whole argv, words separated by one space. The first word is also quoted when a shell would
// read it as a variable assignment or a reserved word rather than as the command's name.
std::string shellCommand(const std::vector<std::string>& argv);

} // namespace ppe::formatter
