// The program text the line analysis prints: source files found and checked against the lines a
// listing carries.
#pragma once

#include "ppe/formatter/report.h"

#include <string>
#include <vector>

namespace ppe::formatter {

// Reads the text of each of `table`'s files. A relative name is looked for under each of
// `baseDirs` (the compilation directory, the listing's directory) and the current directory,
// then under each of `searchDirs` by its name and by its base name. A file whose text disagrees
// with the lines the table already carries (a listing's own copy) is not used: a warning says so
// and the carried lines stay. Files not found keep the carried lines, if any.
void loadSourceText(LineTable& table, const std::vector<std::string>& baseDirs,
    const std::vector<std::string>& searchDirs, std::vector<std::string>& warnings);

} // namespace ppe::formatter
