#include "file_table.h"

#include "statement.h"
#include "text_scan.h"

namespace ppe::listparse {

namespace {

    std::string_view baseName(std::string_view path)
    {
        size_t slash = path.rfind('/');
        return slash == std::string_view::npos ? path : path.substr(slash + 1);
    }

    bool isQuoted(std::string_view word) { return word.size() >= 2 && word.front() == '"' && word.back() == '"'; }

} // namespace

void FileTable::onFileDirective(std::string_view args)
{
    std::vector<std::string_view> words = splitAtBlanks(args);
    if (words.empty())
        return;
    if (isQuoted(words[0])) {
        if (m_primarySource.empty())
            m_primarySource = unquote(words[0]);
        return;
    }
    auto number = parseNumber<unsigned>(words[0]);
    if (!number || words.size() < 2 || !isQuoted(words[1]))
        return; // also a name the listing cut at its width: the source lines will name it
    bool withDir = words.size() >= 3 && words[2].front() == '"';
    if (withDir && !isQuoted(words[2]))
        return; // the name was cut
    std::string dir = withDir ? unquote(words[1]) : std::string();
    std::string name = unquote(words[withDir ? 2 : 1]);
    if (*number == 0) {
        m_compilationDir = dir;
        m_fileZero = idOf(name);
    }
    m_numbers[*number] = idOf(resolve(dir, name));
}

// gas names a file by its directory only when that is not the compilation directory.
std::string FileTable::resolve(std::string_view dir, std::string_view name) const
{
    if (dir.empty() || dir == m_compilationDir || name.substr(0, 1) == "/")
        return std::string(name);
    return std::string(dir) + "/" + std::string(name);
}

int FileTable::idOf(std::string_view name)
{
    if (auto it = m_ids.find(name); it != m_ids.end())
        return it->second;
    int id = int(m_names.size());
    m_names.emplace_back(name);
    m_ids.emplace(std::string(name), id);
    return id;
}

std::optional<int> FileTable::idOfNumber(unsigned number) const
{
    auto it = m_numbers.find(number);
    if (it == m_numbers.end())
        return std::nullopt;
    return it->second;
}

std::optional<int> FileTable::primaryId()
{
    if (m_fileZero)
        return m_fileZero;
    for (const auto& [number, id] : m_numbers) {
        if (baseName(m_names[id]) == baseName(m_primarySource))
            return id;
    }
    if (m_primarySource.empty())
        return std::nullopt;
    return idOf(m_primarySource);
}

std::vector<std::string> FileTable::order(const std::set<int>& used, std::vector<int>& indexOfId)
{
    std::optional<int> primary = primaryId();
    std::vector<std::string> files { primary ? m_names[*primary] : m_primarySource };
    indexOfId.assign(m_names.size(), -1);
    if (primary)
        indexOfId[*primary] = 0;
    for (int id : used) {
        if (indexOfId[id] >= 0)
            continue;
        indexOfId[id] = int(files.size());
        files.push_back(m_names[id]);
    }
    return files;
}

} // namespace ppe::listparse
