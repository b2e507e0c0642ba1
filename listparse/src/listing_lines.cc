#include "listing_lines.h"

#include <optional>

namespace ppe::listparse {

namespace {

    constexpr const char* kNotAListing = "not an assembler listing (expected gcc -Wa,-adhln output)";

    // Walks the lines of a text; the last line may lack its '\n' (a truncated file).
    class LineSplitter {
    public:
        explicit LineSplitter(std::string_view text)
            : m_rest(text)
        {
        }

        bool next(std::string_view& line)
        {
            if (m_rest.empty())
                return false;
            size_t end = m_rest.find('\n');
            m_complete = end != std::string_view::npos;
            line = m_rest.substr(0, end);
            m_rest.remove_prefix(m_complete ? end + 1 : m_rest.size());
            if (!line.empty() && line.back() == '\r')
                line.remove_suffix(1);
            ++m_number;
            return true;
        }

        size_t number() const { return m_number; }
        bool complete() const { return m_complete; }

    private:
        std::string_view m_rest;
        size_t m_number = 0;
        bool m_complete = true;
    };

    // Decides what to do with each classified line and keeps the Code and Source lines.
    class LineCollector {
    public:
        explicit LineCollector(std::string_view fileName)
            : m_fileName(fileName)
        {
        }

        // nullopt: go on; otherwise the error that ends the reading.
        std::optional<ppe::Error> add(ListingLine line, bool& stop)
        {
            if (m_titleLines > 0) {
                --m_titleLines;
                return std::nullopt;
            }
            switch (line.kind) {
            case LineKind::PageHeader:
                m_titleLines = 2;
                return std::nullopt;
            case LineKind::Blank:
            case LineKind::Message:
                return std::nullopt;
            case LineKind::GeneralInfo:
                return onGeneralInfo(line);
            case LineKind::SymbolTable:
                stop = true;
                return m_lines.empty() ? error(line, kNotAListing) : std::optional<ppe::Error>();
            case LineKind::Continuation:
                return onContinuation(line);
            case LineKind::Code:
            case LineKind::Source:
                return onListingLine(line);
            case LineKind::Unknown:
                break;
            }
            if (m_inPreamble)
                return std::nullopt;
            return error(line, m_lines.empty() ? kNotAListing : "cannot parse listing line");
        }

        bool empty() const { return m_lines.empty(); }
        std::vector<ListingLine> take() { return std::move(m_lines); }

    private:
        std::optional<ppe::Error> error(const ListingLine& line, std::string message) const
        {
            return ppe::Error { std::string(m_fileName), line.textLine, std::move(message) };
        }

        std::optional<ppe::Error> onGeneralInfo(const ListingLine& line)
        {
            if (!m_lines.empty())
                return error(line, "cannot parse listing line");
            m_inPreamble = true;
            return std::nullopt;
        }

        std::optional<ppe::Error> onContinuation(const ListingLine& line)
        {
            if (m_lines.empty() || m_lines.back().kind != LineKind::Code || m_lines.back().number != line.number)
                return error(line, m_lines.empty() ? kNotAListing : "bytes without the listing line they continue");
            m_lines.back().byteCount += line.byteCount;
            return std::nullopt;
        }

        std::optional<ppe::Error> onListingLine(const ListingLine& line)
        {
            if (line.addressUnknown)
                return error(line, "no addresses in the listing: the assembler reported errors");
            m_inPreamble = false;
            m_lines.push_back(line);
            return std::nullopt;
        }

        std::string_view m_fileName;
        std::vector<ListingLine> m_lines;
        int m_titleLines = 0;
        bool m_inPreamble = false;
    };

} // namespace

ppe::Result<std::vector<ListingLine>> readListingLines(std::string_view text, std::string_view fileName)
{
    if (text.empty())
        return ppe::Error { std::string(fileName), 0, "empty file, not an assembler listing" };
    if (text.find('\0') != std::string_view::npos)
        return ppe::Error { std::string(fileName), 0, "binary data, not an assembler listing" };
    LineSplitter splitter(text);
    LineCollector collector(fileName);
    std::string_view raw;
    bool stop = false;
    while (!stop && splitter.next(raw)) {
        ListingLine line = classifyLine(raw);
        line.textLine = splitter.number();
        if (!splitter.complete() && !collector.empty())
            return ppe::Error { std::string(fileName), line.textLine,
                "truncated listing: the last line is incomplete" };
        if (auto e = collector.add(line, stop))
            return *e;
    }
    if (collector.empty())
        return ppe::Error { std::string(fileName), 0, kNotAListing };
    return collector.take();
}

bool startsLikeListing(std::string_view text)
{
    if (text.substr(0, 4096).find('\0') != std::string_view::npos)
        return false;
    LineSplitter splitter(text);
    LineCollector collector("");
    std::string_view raw;
    bool stop = false;
    // A preamble (-ag) is a dozen lines; a page header three.
    for (int seen = 0; seen < 40 && !stop && splitter.next(raw); ++seen) {
        if (collector.add(classifyLine(raw), stop))
            return false;
        if (!collector.empty())
            return true;
    }
    return false;
}

} // namespace ppe::listparse
