#include "ppe/gdbremote/xml.h"

#include "ppe/gdbremote/hex.h"

#include <cctype>
#include <optional>

namespace ppe::gdbremote {

const std::string* XmlElement::attribute(std::string_view key) const
{
    for (const auto& [k, v] : attributes) {
        if (k == key)
            return &v;
    }
    return nullptr;
}

namespace {

    constexpr int kMaxDepth = 64;

    bool isNameChar(char c)
    {
        auto u = static_cast<unsigned char>(c);
        return std::isalnum(u) || c == '_' || c == '-' || c == '.' || c == ':' || u >= 0x80;
    }

    class XmlReader {
    public:
        XmlReader(std::string_view text, const std::string& document)
            : m_text(text)
            , m_document(document)
        {
        }
        Result<XmlElement> document();

    private:
        bool fail(std::string message)
        {
            if (m_error.message.empty())
                m_error = Error { m_document, m_line, std::move(message) };
            return false;
        }
        bool atEnd() const { return m_pos >= m_text.size(); }
        bool startsWith(std::string_view s) const { return m_text.substr(m_pos, s.size()) == s; }
        void advance(std::size_t n);
        void skipSpace();
        bool skipPast(std::string_view end, const char* what);
        bool skipMisc();
        bool skipDoctype();
        bool name(std::string& out);
        bool attributeValue(std::string& out);
        bool entity(std::string& out);
        bool element(XmlElement& out, int depth);
        bool attributes(XmlElement& out, bool& empty);
        bool content(XmlElement& out, int depth);

        std::string_view m_text;
        const std::string& m_document;
        std::size_t m_pos = 0;
        std::size_t m_line = 1;
        Error m_error;
    };

    void XmlReader::advance(std::size_t n)
    {
        for (; n && !atEnd(); --n, ++m_pos) {
            if (m_text[m_pos] == '\n')
                ++m_line;
        }
    }

    void XmlReader::skipSpace()
    {
        while (!atEnd() && std::isspace(static_cast<unsigned char>(m_text[m_pos])))
            advance(1);
    }

    bool XmlReader::skipPast(std::string_view end, const char* what)
    {
        auto found = m_text.find(end, m_pos);
        if (found == std::string_view::npos)
            return fail(std::string("unterminated ") + what);
        advance(found + end.size() - m_pos);
        return true;
    }

    bool XmlReader::skipDoctype()
    {
        // `<!DOCTYPE target SYSTEM "gdb-target.dtd">`, possibly with an internal subset in [...].
        int depth = 0;
        for (; !atEnd(); advance(1)) {
            char c = m_text[m_pos];
            depth += c == '[' ? 1 : c == ']' ? -1 : 0;
            if (c == '>' && depth <= 0) {
                advance(1);
                return true;
            }
        }
        return fail("unterminated <!DOCTYPE");
    }

    // Whitespace, comments, processing instructions and DOCTYPE between elements.
    bool XmlReader::skipMisc()
    {
        for (;;) {
            skipSpace();
            bool skipped = true;
            if (startsWith("<!--"))
                skipped = skipPast("-->", "comment");
            else if (startsWith("<?"))
                skipped = skipPast("?>", "<?...?>");
            else if (startsWith("<!DOCTYPE"))
                skipped = skipDoctype();
            else
                return true;
            if (!skipped)
                return false;
        }
    }

    bool XmlReader::name(std::string& out)
    {
        std::size_t start = m_pos;
        while (!atEnd() && isNameChar(m_text[m_pos]))
            ++m_pos;
        out = std::string(m_text.substr(start, m_pos - start));
        return !out.empty() || fail("expected a name");
    }

    bool XmlReader::entity(std::string& out)
    {
        auto semi = m_text.find(';', m_pos);
        if (semi == std::string_view::npos || semi - m_pos > 12)
            return fail("bad entity reference");
        std::string_view ref = m_text.substr(m_pos + 1, semi - m_pos - 1);
        static const std::pair<std::string_view, char> named[]
            = { { "lt", '<' }, { "gt", '>' }, { "amp", '&' }, { "quot", '"' }, { "apos", '\'' } };
        for (const auto& [key, c] : named) {
            if (ref == key) {
                out.push_back(c);
                advance(semi + 1 - m_pos);
                return true;
            }
        }
        std::optional<std::uint64_t> code;
        if (ref.size() > 2 && ref[0] == '#' && ref[1] == 'x')
            code = parseHexNumber(ref.substr(2));
        else if (ref.size() > 1 && ref[0] == '#' && ref.find_first_not_of("0123456789", 1) == std::string_view::npos)
            code = std::stoull(std::string(ref.substr(1)));
        if (!code || *code == 0 || *code > 0x7f)
            return fail("unsupported entity '&" + std::string(ref) + ";'");
        out.push_back(static_cast<char>(*code));
        advance(semi + 1 - m_pos);
        return true;
    }

    bool XmlReader::attributeValue(std::string& out)
    {
        if (atEnd() || (m_text[m_pos] != '"' && m_text[m_pos] != '\''))
            return fail("expected a quoted attribute value");
        char quote = m_text[m_pos];
        advance(1);
        while (!atEnd() && m_text[m_pos] != quote) {
            if (m_text[m_pos] == '<')
                return fail("'<' in an attribute value");
            if (m_text[m_pos] == '&') {
                if (!entity(out))
                    return false;
                continue;
            }
            out.push_back(m_text[m_pos]);
            advance(1);
        }
        if (atEnd())
            return fail("unterminated attribute value");
        advance(1);
        return true;
    }

    bool XmlReader::attributes(XmlElement& out, bool& empty)
    {
        for (;;) {
            skipSpace();
            if (startsWith("/>") || startsWith(">")) {
                empty = startsWith("/>");
                advance(empty ? 2 : 1);
                return true;
            }
            std::string key, value;
            if (atEnd())
                return fail("unterminated <" + out.name);
            if (!name(key))
                return false;
            skipSpace();
            if (!startsWith("="))
                return fail("expected '=' after attribute " + key);
            advance(1);
            skipSpace();
            if (!attributeValue(value))
                return false;
            out.attributes.emplace_back(std::move(key), std::move(value));
        }
    }

    bool XmlReader::content(XmlElement& out, int depth)
    {
        for (;;) {
            if (atEnd())
                return fail("missing </" + out.name + ">");
            if (startsWith("</")) {
                advance(2);
                std::string end;
                if (!name(end))
                    return false;
                skipSpace();
                if (end != out.name || !startsWith(">"))
                    return fail("expected </" + out.name + ">");
                advance(1);
                return true;
            }
            if (startsWith("<!--") || startsWith("<?")) {
                if (!skipMisc())
                    return false;
                continue;
            }
            if (startsWith("<")) {
                out.children.emplace_back();
                if (!element(out.children.back(), depth + 1))
                    return false;
                continue;
            }
            if (m_text[m_pos] == '&') {
                if (!entity(out.text))
                    return false;
                continue;
            }
            out.text.push_back(m_text[m_pos]);
            advance(1);
        }
    }

    bool XmlReader::element(XmlElement& out, int depth)
    {
        if (depth > kMaxDepth)
            return fail("elements nested too deeply");
        if (!startsWith("<"))
            return fail("expected an element");
        out.line = m_line;
        advance(1);
        bool empty = false;
        if (!name(out.name) || !attributes(out, empty))
            return false;
        return empty || content(out, depth);
    }

    Result<XmlElement> XmlReader::document()
    {
        XmlElement root;
        if (!skipMisc() || !element(root, 0) || !skipMisc())
            return m_error;
        if (!atEnd()) {
            fail("content after the root element");
            return m_error;
        }
        return root;
    }

} // namespace

Result<XmlElement> parseXml(std::string_view text, const std::string& document)
{
    return XmlReader(text, document).document();
}

} // namespace ppe::gdbremote
