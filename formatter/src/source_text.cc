#include "ppe/formatter/source_text.h"

#include "paths.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>
#include <sys/stat.h>

namespace ppe::formatter {

namespace {

    bool isRegularFile(const std::string& path)
    {
        struct stat st { };
        return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
    }

    std::string join(const std::string& dir, const std::string& name)
    {
        if (dir.empty())
            return name;
        return dir.back() == '/' ? dir + name : dir + "/" + name;
    }

    std::vector<std::string> candidates(
        const std::string& name, const std::vector<std::string>& baseDirs, const std::vector<std::string>& searchDirs)
    {
        std::vector<std::string> out;
        if (name.empty() || name.front() == '<') // <built-in>, <command-line>
            return out;
        if (name.front() == '/') {
            out.push_back(name);
        } else {
            for (const std::string& dir : baseDirs) {
                if (!dir.empty())
                    out.push_back(join(dir, name));
            }
            out.push_back(name);
        }
        for (const std::string& dir : searchDirs) {
            if (name.front() != '/')
                out.push_back(join(dir, name));
            out.push_back(join(dir, std::string(baseName(name))));
        }
        return out;
    }

    std::optional<std::vector<std::string>> readLines(const std::string& path)
    {
        if (!isRegularFile(path))
            return std::nullopt;
        std::ifstream in(path, std::ios::binary);
        if (!in)
            return std::nullopt;
        std::vector<std::string> lines;
        std::string line;
        while (std::getline(in, line)) {
            if (!line.empty() && line.back() == '\r')
                line.pop_back();
            lines.push_back(std::move(line));
        }
        return lines;
    }

    std::string withoutBlanks(const std::string& text)
    {
        std::string out;
        for (char c : text) {
            if (!std::isspace(static_cast<unsigned char>(c)))
                out += c;
        }
        return out;
    }

    // The first line where `carried` (a listing's copy: cut at its width, blanks squeezed) is not
    // the start of the file's line; 0 when they agree.
    int firstDisagreement(const std::vector<std::string>& file, const std::vector<std::string>& carried)
    {
        for (size_t i = 0; i < carried.size(); ++i) {
            const std::string listed = withoutBlanks(carried[i]);
            if (listed.empty() || listed == "...")
                continue;
            if (i >= file.size() || withoutBlanks(file[i]).rfind(listed, 0) != 0)
                return int(i + 1);
        }
        return 0;
    }

} // namespace

void loadSourceText(LineTable& table, const std::vector<std::string>& baseDirs,
    const std::vector<std::string>& searchDirs, std::vector<std::string>& warnings)
{
    table.text.resize(table.files.size());
    table.textPaths.resize(table.files.size());
    for (size_t f = 0; f < table.files.size(); ++f) {
        std::string disagreeing;
        for (const std::string& path : candidates(table.files[f], baseDirs, searchDirs)) {
            std::optional<std::vector<std::string>> lines = readLines(path);
            if (!lines)
                continue;
            if (const int line = firstDisagreement(*lines, table.text[f])) {
                if (disagreeing.empty())
                    disagreeing = fmt::format("{}:{}", path, line);
                continue;
            }
            table.text[f] = std::move(*lines);
            table.textPaths[f] = path;
            disagreeing.clear();
            break;
        }
        if (!disagreeing.empty()) {
            warnings.push_back(
                fmt::format("{}: differs from the source the {} was made from; its own copy of the lines is shown",
                    disagreeing, table.origin));
        }
    }
}

} // namespace ppe::formatter
