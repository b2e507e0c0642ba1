#include "listing_parser.h"

#include "text_scan.h"

#include <algorithm>

namespace ppe::listparse {

namespace {

    // gas prints at most this many characters of an input line (listing_rhs_width - 1).
    constexpr size_t kTextWidth = 99;

    bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

    bool isCodeName(std::string_view name)
    {
        return name == ".text" || startsWith(name, ".text.") || name == ".init" || name == ".fini"
            || startsWith(name, ".gnu.linkonce.t.");
    }

    // "ax", "axG" (ELF) or #alloc,#execinstr (Solaris style).
    bool isCodeFlags(std::string_view flags)
    {
        if (flags.find("execinstr") != std::string_view::npos)
            return true;
        return flags.size() >= 2 && flags.front() == '"' && unquote(flags).find('x') != std::string::npos;
    }

    std::optional<uint64_t> alignmentBytes(std::string_view directive, std::string_view args)
    {
        std::vector<std::string_view> parts = splitAtCommas(args);
        auto value = parts.empty() ? std::nullopt : parseNumber<uint64_t>(parts[0]);
        if (!value)
            return std::nullopt;
        if (directive == ".p2align")
            return *value < 64 ? std::optional<uint64_t>(uint64_t(1) << *value) : std::nullopt;
        // .balign counts bytes; .align does on x86 and ARC but is a power of two on AArch64, where
        // reading it as bytes only understates the alignment.
        bool powerOfTwo = *value != 0 && (*value & (*value - 1)) == 0;
        return powerOfTwo ? value : std::nullopt;
    }

    // "\timull\t%esi, %eax" as "imull %esi, %eax".
    std::string oneSpaced(std::string_view text)
    {
        std::string out;
        for (char c : trim(text)) {
            const bool blank = c == '\t' || c == ' ';
            if (blank && out.back() == ' ')
                continue;
            out += blank ? ' ' : c;
        }
        return out;
    }

} // namespace

bool showsLocDirectives(const std::vector<ListingLine>& lines)
{
    return std::any_of(lines.begin(), lines.end(), [](const ListingLine& line) {
        return line.kind == LineKind::Code && !line.logical && parseStatement(line.text).directive == ".loc";
    });
}

void ListingParser::add(const ListingLine& line)
{
    if (line.kind == LineKind::Source)
        onSource(line);
    else if (line.kind == LineKind::Code)
        onCode(line);
}

void ListingParser::onSource(const ListingLine& line)
{
    int id = m_files.idOf(line.fileName);
    keepText(id, int(line.number), line.text);
    m_sourceFileBeforeCode = id;
    if (!m_useLoc)
        m_nextInstructionRow = LineRow { id, int(line.number) };
}

void ListingParser::onCode(const ListingLine& line)
{
    if (line.logical) {
        keepText(m_files.idOf(line.logicalFile), int(line.number), line.text);
        if (line.hasAddress)
            recordBytes(line, true);
    } else {
        Statement statement = parseStatement(line.text);
        if (line.hasAddress)
            recordBytes(line, statement.kind == StatementKind::Instruction);
        m_textCut = line.text.size() >= kTextWidth;
        if (statement.kind == StatementKind::Directive)
            onDirective(statement);
    }
    m_sourceFileBeforeCode.reset();
}

// gas prints a source line again, when the code goes back to it, with the text of the line that
// follows it (rebuffer_line); the first time is right.
void ListingParser::keepText(int fileId, int line, std::string_view text)
{
    m_texts.try_emplace({ fileId, line }, text);
}

// The bytes on a line belong to the section current before the line's own directive: the line
// that leaves a section shows the padding the assembler put at that section's end.
void ListingParser::recordBytes(const ListingLine& line, bool instruction)
{
    if (m_cutEntered)
        resolveCutSection(line.address);
    const std::string section = m_sections.current();
    if (auto cut = m_cutEnds.find(section); cut != m_cutEnds.end())
        cut->second = std::max(cut->second, line.address + line.byteCount);
    declare(section);
    Chunk chunk { section, line.address, line.byteCount, std::nullopt, oneSpaced(line.text) };
    if (auto here = m_rowsHere.find({ section, m_sections.subsection() }); here != m_rowsHere.end()) {
        chunk.row = here->second;
        m_rowsHere.erase(here);
    }
    if (instruction && m_nextInstructionRow) {
        chunk.row = m_nextInstructionRow;
        m_nextInstructionRow.reset();
    }
    m_chunks.push_back(std::move(chunk));
}

const std::map<std::string_view, ListingParser::Handler>& ListingParser::handlers()
{
    static const std::map<std::string_view, Handler> table {
        { ".section", &ListingParser::onSection },
        { ".pushsection", &ListingParser::onSection },
        { ".popsection", &ListingParser::onPopSection },
        { ".previous", &ListingParser::onPrevious },
        { ".subsection", &ListingParser::onSubsection },
        { ".text", &ListingParser::onNamedSection },
        { ".data", &ListingParser::onNamedSection },
        { ".bss", &ListingParser::onNamedSection },
        { ".file", &ListingParser::onFile },
        { ".loc", &ListingParser::onLoc },
        { ".p2align", &ListingParser::onAlign },
        { ".balign", &ListingParser::onAlign },
        { ".align", &ListingParser::onAlign },
        { ".type", &ListingParser::onSymbolDebugging },
        { ".size", &ListingParser::onSymbolDebugging },
    };
    return table;
}

void ListingParser::onDirective(const Statement& statement)
{
    auto it = handlers().find(statement.directive);
    if (it != handlers().end())
        (this->*(it->second))(statement.directive, statement.args);
}

ListingParser::SectionInfo& ListingParser::declare(const std::string& name, std::optional<std::string_view> flags)
{
    auto [it, inserted] = m_sectionInfo.try_emplace(name);
    bool codeFlags = flags && isCodeFlags(*flags);
    if (inserted)
        it->second.code = flags ? codeFlags : isCodeName(name);
    else if (codeFlags)
        it->second.code = true;
    return it->second;
}

// .section NAME[,"FLAGS"[,@TYPE...]] and .pushsection with the same arguments.
void ListingParser::onSection(std::string_view directive, std::string_view args)
{
    std::vector<std::string_view> parts = splitAtCommas(args);
    std::string_view nameField = parts.empty() ? std::string_view() : parts[0];
    std::string name = unquote(takeToken(nameField));
    if (name.empty())
        return;
    const bool cut = m_textCut && parts.size() == 1;
    if (cut)
        m_truncatedSections.insert(name);
    if (startsWith(name, ".debug"))
        m_showsDebugging = true;
    if (startsWith(name, ".gnu.lto_") || startsWith(name, ".gnu.debuglto_"))
        m_ltoBytecode = true;
    declare(name, parts.size() > 1 ? std::optional(parts[1]) : std::nullopt);
    if (directive == ".pushsection")
        m_sections.push(SectionRef { name, 0 });
    else
        m_sections.switchTo(SectionRef { name, 0 });
    m_cutEntered = cut ? std::optional(name) : std::nullopt;
}

// A cut name may stand for several sections (COMDAT sections with a long common prefix): the
// first bytes after the switch tell which. At offset 0 of a name that has bytes already, a new
// section begins (NAME#2, NAME#3, ...); elsewhere the code goes on in the one that ends there.
void ListingParser::resolveCutSection(uint64_t address)
{
    const std::string base = *m_cutEntered;
    m_cutEntered.reset();
    std::string chosen;
    for (int n = 1;; ++n) {
        const std::string name = n == 1 ? base : base + "#" + std::to_string(n);
        auto it = m_cutEnds.find(name);
        if (it == m_cutEnds.end()) {
            chosen = chosen.empty() || address == 0 ? name : chosen;
            break;
        }
        if (it->second == address && address != 0)
            return m_sections.renameCurrent(name), moveRows(base, name);
        chosen = name;
    }
    m_cutEnds.try_emplace(chosen, 0);
    m_truncatedSections.insert(chosen);
    declare(chosen);
    m_sections.renameCurrent(chosen);
    moveRows(base, chosen);
}

// Line rows a .loc left for the bytes of section `from`, for `to` (the section `from` stood for).
void ListingParser::moveRows(const std::string& from, const std::string& to)
{
    if (from == to)
        return;
    auto it = m_rowsHere.find({ from, m_sections.subsection() });
    if (it == m_rowsHere.end())
        return;
    m_rowsHere[{ to, m_sections.subsection() }] = it->second;
    m_rowsHere.erase(it);
}

// .text, .data, .bss with an optional subsection number.
void ListingParser::onNamedSection(std::string_view directive, std::string_view args)
{
    std::string name(directive);
    declare(name);
    m_sections.switchTo(SectionRef { name, parseNumber<int>(trim(args)).value_or(0) });
}

void ListingParser::onSubsection(std::string_view, std::string_view args)
{
    m_sections.setSubsection(parseNumber<int>(trim(args)).value_or(0));
}

void ListingParser::onPopSection(std::string_view, std::string_view) { m_sections.pop(); }

void ListingParser::onPrevious(std::string_view, std::string_view) { m_sections.previous(); }

void ListingParser::onFile(std::string_view, std::string_view args) { m_files.onFileDirective(args); }

// .loc FILE LINE [COLUMN] [OPTIONS], as gas/dwarf2dbg.c (dwarf2_directive_loc) applies it: a
// .loc that still waits for its instruction takes effect where the assembler is; a .loc with a
// view (gcc -O1 and up) takes effect at once, in the current section; any other waits for the
// next instruction; line 0 makes no row, so the code before keeps its line. Source lines printed
// just before a .loc are its file as gas names it: that settles file numbers whose .file the
// listing cut or named differently.
void ListingParser::onLoc(std::string_view, std::string_view args)
{
    std::vector<std::string_view> words = splitAtBlanks(args);
    auto number = words.size() >= 2 ? parseNumber<unsigned>(words[0]) : std::nullopt;
    auto line = words.size() >= 2 ? parseNumber<int>(words[1]) : std::nullopt;
    if (!number || !line)
        return;
    if (m_sourceFileBeforeCode)
        m_files.bind(*number, *m_sourceFileBeforeCode);
    auto id = m_files.idOfNumber(*number);
    if (!id)
        return;
    std::pair here(m_sections.current(), m_sections.subsection());
    if (m_nextInstructionRow)
        m_rowsHere[here] = *m_nextInstructionRow;
    m_nextInstructionRow.reset();
    if (*line == 0)
        return; // clang's "no line": gas makes no row for it (dwarf2_gen_line_info)
    m_nextInstructionRow = LineRow { *id, *line };
    if (std::find(words.begin(), words.end(), "view") != words.end()) {
        m_rowsHere[here] = *m_nextInstructionRow;
        m_nextInstructionRow.reset();
    }
}

void ListingParser::onAlign(std::string_view directive, std::string_view args)
{
    auto bytes = alignmentBytes(directive, args);
    SectionInfo& info = declare(m_sections.current());
    if (bytes)
        info.alignment = std::max(info.alignment, *bytes);
}

// 'd' hides .type and .size (gas's debugging_pseudo): seeing them means nothing is hidden.
void ListingParser::onSymbolDebugging(std::string_view, std::string_view) { m_showsDebugging = true; }

std::set<std::string> ListingParser::codeSections() const
{
    std::set<std::string> code;
    for (const auto& [name, info] : m_sectionInfo) {
        if (info.code)
            code.insert(name);
    }
    return code;
}

std::set<int> ListingParser::usedFileIds(const std::set<std::string>& code) const
{
    std::set<int> used;
    for (const Chunk& chunk : m_chunks) {
        if (chunk.row && chunk.row->fileId >= 0 && chunk.row->line > 0 && code.contains(chunk.section))
            used.insert(chunk.row->fileId);
    }
    for (const auto& [key, text] : m_texts)
        used.insert(key.first);
    return used;
}

// buffer_line shows "..." for the line after a file's last one; that line does not exist.
std::vector<SourceLine> ListingParser::sourceLines(const std::vector<int>& indexOfId) const
{
    std::vector<SourceLine> lines;
    for (const auto& [key, text] : m_texts)
        lines.push_back(SourceLine { indexOfId[key.first], key.second, text });
    std::sort(lines.begin(), lines.end(),
        [](const SourceLine& a, const SourceLine& b) { return std::pair(a.file, a.line) < std::pair(b.file, b.line); });
    std::vector<SourceLine> kept;
    for (size_t i = 0; i < lines.size(); ++i) {
        bool lastOfFile = i + 1 == lines.size() || lines[i + 1].file != lines[i].file;
        if (!(lastOfFile && lines[i].text == "..."))
            kept.push_back(std::move(lines[i]));
    }
    return kept;
}

Listing ListingParser::finish()
{
    Listing out;
    std::set<std::string> code = codeSections();
    std::vector<int> indexOfId;
    out.files = m_files.order(usedFileIds(code), indexOfId);
    out.primarySource = m_files.primarySource();
    out.compilationDirectory = m_files.compilationDirectory();
    CodeLayout layout = layOutCode(std::move(m_chunks), code, indexOfId);
    out.sectionSizes = std::move(layout.sizes);
    out.ranges = std::move(layout.ranges);
    out.codeLines = std::move(layout.codeLines);
    out.sourceLines = sourceLines(indexOfId);
    out.truncatedSections = m_truncatedSections;
    out.ltoBytecode = m_ltoBytecode;
    if (!m_showsDebugging && code.contains(m_sections.current())) {
        out.openSection = m_sections.current();
        out.openSectionAlignment = m_sectionInfo[out.openSection].alignment;
    }
    return out;
}

} // namespace ppe::listparse
