// Source file names: those `.file` directives number (and `.loc` refers to by number), and
// those interleaved source lines and cpp line markers name. Every name gets an id, in order of
// first appearance; `order` turns the ids into Listing::files indexes.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ppe::listparse {

class FileTable {
public:
    // `.file "simp.c"`, `.file 1 "simp.c"`, `.file 0 "/dir" "simp.c" md5 0x...`.
    void onFileDirective(std::string_view args);
    // Gives file `number` the name the listing shows for it (the interleaved source lines).
    void bind(unsigned number, int id) { m_numbers[number] = id; }

    int idOf(std::string_view name);
    std::optional<int> idOfNumber(unsigned number) const;
    const std::string& primarySource() const { return m_primarySource; }
    const std::string& compilationDirectory() const { return m_compilationDir; }

    // The names of `used` ids with the compiled file first; indexOfId maps ids to positions.
    std::vector<std::string> order(const std::set<int>& used, std::vector<int>& indexOfId);

private:
    std::string resolve(std::string_view dir, std::string_view name) const;
    std::optional<int> primaryId();

    std::vector<std::string> m_names;
    std::map<std::string, int, std::less<>> m_ids;
    std::map<unsigned, int> m_numbers;
    std::string m_primarySource;
    std::string m_compilationDir;
    std::optional<int> m_fileZero;
};

} // namespace ppe::listparse
