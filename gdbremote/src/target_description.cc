#include "ppe/gdbremote/target_description.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ppe::gdbremote {

const RegisterInfo* TargetDescription::find(std::string_view name) const
{
    for (const auto& r : registers) {
        if (r.name == name)
            return &r;
    }
    return nullptr;
}

const RegisterInfo* TargetDescription::pc() const
{
    for (const char* name : { "pc", "rip", "eip", "PC" }) {
        if (const auto* r = find(name))
            return r;
    }
    return nullptr;
}

std::size_t TargetDescription::registerBytes() const
{
    return registers.empty() ? 0 : registers.back().offset + registers.back().bytes();
}

namespace {

    constexpr int kMaxIncludeDepth = 8;
    constexpr std::size_t kMaxDocuments = 64;
    constexpr std::size_t kMaxRegisters = 4096;
    constexpr unsigned kMaxRegnum = 65535;
    constexpr unsigned kMaxBitsize = 4096;

    bool parseUnsigned(const std::string& text, unsigned& value)
    {
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        return ec == std::errc() && end == text.data() + text.size();
    }

    std::string trimmed(const std::string& text)
    {
        auto first = text.find_first_not_of(" \t\r\n");
        auto last = text.find_last_not_of(" \t\r\n");
        return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
    }

    class DescriptionReader {
    public:
        explicit DescriptionReader(const DocumentFetcher& fetch)
            : m_fetch(fetch)
        {
        }
        Result<TargetDescription> read(const std::string& root);

    private:
        bool fail(const std::string& document, std::size_t line, std::string message)
        {
            m_error = Error { document, line, std::move(message) };
            return false;
        }
        bool document(const std::string& name, int depth);
        bool walk(const XmlElement& element, const std::string& document, int depth);
        bool child(const XmlElement& element, const std::string& document, int depth);
        bool include(const XmlElement& element, const std::string& document, int depth);
        bool reg(const XmlElement& element, const std::string& document);
        bool layout();

        const DocumentFetcher& m_fetch;
        TargetDescription m_result;
        std::string m_feature;
        unsigned m_next = 0;
        Error m_error;
    };

    bool DescriptionReader::document(const std::string& name, int depth)
    {
        if (depth > kMaxIncludeDepth || m_result.documents.size() >= kMaxDocuments)
            return fail(name, 0, "too many nested or included documents");
        m_result.documents.push_back(name);
        auto text = m_fetch(name);
        if (!text && text.error().file == name)
            return fail(name, 0, text.error().message);
        if (!text)
            return fail(text.error().file, text.error().line, "reading " + name + ": " + text.error().message);
        auto root = parseXml(*text, name);
        if (!root) {
            m_error = root.error();
            return false;
        }
        return walk(*root, name, depth);
    }

    bool DescriptionReader::walk(const XmlElement& element, const std::string& document, int depth)
    {
        std::string saved = m_feature;
        if (element.name == "feature") {
            const std::string* name = element.attribute("name");
            m_feature = name ? *name : std::string();
        }
        for (const auto& c : element.children) {
            if (!child(c, document, depth))
                return false;
        }
        m_feature = saved;
        return true;
    }

    bool DescriptionReader::child(const XmlElement& element, const std::string& document, int depth)
    {
        if (element.name == "architecture") {
            m_result.architecture = trimmed(element.text);
            return true;
        }
        if (element.name == "osabi") {
            m_result.osabi = trimmed(element.text);
            return true;
        }
        if (element.name == "xi:include")
            return include(element, document, depth);
        if (element.name == "reg")
            return reg(element, document);
        if (element.name == "feature")
            return walk(element, document, depth);
        return true; // types (vector, flags, struct, union, enum) and compatibility: not needed
    }

    bool DescriptionReader::include(const XmlElement& element, const std::string& document, int depth)
    {
        const std::string* href = element.attribute("href");
        if (!href || href->empty())
            return fail(document, element.line, "xi:include without href");
        return this->document(*href, depth + 1);
    }

    bool DescriptionReader::reg(const XmlElement& element, const std::string& document)
    {
        const std::string* name = element.attribute("name");
        const std::string* bitsize = element.attribute("bitsize");
        const std::string* regnum = element.attribute("regnum");
        RegisterInfo r;
        if (!name || name->empty())
            return fail(document, element.line, "reg without a name");
        r.name = *name;
        if (!bitsize || !parseUnsigned(*bitsize, r.bitsize) || r.bitsize == 0 || r.bitsize > kMaxBitsize)
            return fail(document, element.line, "reg " + r.name + ": bad bitsize");
        r.regnum = m_next;
        if (regnum && (!parseUnsigned(*regnum, r.regnum) || r.regnum > kMaxRegnum))
            return fail(document, element.line, "reg " + r.name + ": bad regnum");
        if (m_result.registers.size() >= kMaxRegisters)
            return fail(document, element.line, "too many registers");
        m_next = r.regnum + 1;
        const std::string* type = element.attribute("type");
        const std::string* group = element.attribute("group");
        r.type = type ? *type : "int";
        r.group = group ? *group : std::string();
        r.feature = m_feature;
        m_result.registers.push_back(std::move(r));
        return true;
    }

    // Sorts by number and places each register in the `g` reply after the lower-numbered ones (GDB's
    // remote.c map_regcache_remote_table does the same with the description's numbers).
    bool DescriptionReader::layout()
    {
        auto& regs = m_result.registers;
        std::stable_sort(regs.begin(), regs.end(), [](const auto& a, const auto& b) { return a.regnum < b.regnum; });
        std::size_t offset = 0;
        for (std::size_t i = 0; i < regs.size(); ++i) {
            if (i && regs[i].regnum == regs[i - 1].regnum)
                return fail(m_result.documents.front(), 0,
                    "registers " + regs[i - 1].name + " and " + regs[i].name + " share number "
                        + std::to_string(regs[i].regnum));
            regs[i].offset = offset;
            offset += regs[i].bytes();
        }
        return true;
    }

    Result<TargetDescription> DescriptionReader::read(const std::string& root)
    {
        if (!document(root, 0) || !layout())
            return m_error;
        if (m_result.registers.empty())
            return Error { root, 0, "no registers described" };
        return std::move(m_result);
    }

    // A description file, or one its xi:include names (which may be anything: /dev/zero, a FIFO):
    // a regular file of at most a document's limit, as the server's documents are.
    Result<std::string> readFile(const std::string& path)
    {
        constexpr std::size_t kMaxFileDocument = 1 << 20;
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
            return Error { path, 0, "cannot open" };
        struct stat st { };
        std::string text;
        const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
        if (regular && std::uint64_t(st.st_size) <= kMaxFileDocument) {
            text.resize(std::size_t(st.st_size));
            std::size_t got = 0;
            while (got < text.size()) {
                const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
                if (n <= 0)
                    break;
                got += std::size_t(n);
            }
            text.resize(got);
        }
        ::close(fd);
        if (!regular)
            return Error { path, 0, "not a regular file" };
        if (std::uint64_t(st.st_size) > kMaxFileDocument)
            return Error { path, 0,
                "longer than " + std::to_string(kMaxFileDocument) + " bytes (the limit of a document)" };
        return text;
    }

} // namespace

Result<TargetDescription> readTargetDescription(const std::string& root, const DocumentFetcher& fetch)
{
    return DescriptionReader(fetch).read(root);
}

Result<TargetDescription> readTargetDescriptionFile(const std::string& path)
{
    auto slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    DocumentFetcher fetch = [&dir](const std::string& doc) {
        if (!doc.empty() && doc.front() == '/')
            return readFile(doc);
        return readFile(dir + doc);
    };
    return readTargetDescription(name, fetch);
}

} // namespace ppe::gdbremote
