#include "code_layout.h"

#include <algorithm>

namespace ppe::listparse {

namespace {

    bool byPlace(const Chunk& a, const Chunk& b)
    {
        return a.section != b.section ? a.section < b.section : a.offset < b.offset;
    }

    void addRange(std::vector<CodeRange>& ranges, CodeRange range)
    {
        if (range.size == 0)
            return;
        if (!ranges.empty()) {
            CodeRange& last = ranges.back();
            bool continues = last.section == range.section && last.offset + last.size == range.offset;
            if (continues && last.file == range.file && last.line == range.line) {
                last.size += range.size;
                return;
            }
        }
        ranges.push_back(std::move(range));
    }

    // Lays out chunks[begin, end), all of one section.
    void layOutSection(const std::vector<Chunk>& chunks, size_t begin, size_t end, const std::vector<int>& indexOfId,
        CodeLayout& layout)
    {
        uint64_t sectionEnd = 0;
        LineRow row;
        for (size_t i = begin; i < end; ++i) {
            const Chunk& chunk = chunks[i];
            uint64_t next = i + 1 < end ? chunks[i + 1].offset : chunk.offset + chunk.shownBytes;
            sectionEnd = std::max(sectionEnd, next);
            if (next > chunk.offset)
                layout.codeLines.push_back(CodeLine { chunk.section, chunk.offset, next - chunk.offset, chunk.text });
            row = chunk.row.value_or(row);
            if (row.fileId < 0 || row.line <= 0)
                continue;
            CodeRange range { chunk.section, chunk.offset, next - chunk.offset, indexOfId[row.fileId], row.line };
            addRange(layout.ranges, std::move(range));
        }
        layout.sizes[chunks[begin].section] = sectionEnd;
    }

} // namespace

CodeLayout layOutCode(
    std::vector<Chunk> chunks, const std::set<std::string>& codeSections, const std::vector<int>& indexOfId)
{
    std::erase_if(chunks, [&](const Chunk& c) { return !codeSections.contains(c.section); });
    std::stable_sort(chunks.begin(), chunks.end(), byPlace);
    CodeLayout layout;
    for (const std::string& name : codeSections)
        layout.sizes[name] = 0;
    for (size_t begin = 0; begin < chunks.size();) {
        size_t end = begin;
        while (end < chunks.size() && chunks[end].section == chunks[begin].section)
            ++end;
        layOutSection(chunks, begin, end, indexOfId, layout);
        begin = end;
    }
    return layout;
}

} // namespace ppe::listparse
