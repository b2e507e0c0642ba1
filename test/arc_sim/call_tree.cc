#include "call_tree.h"

#include <elf.h>

#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ppe::arc::sim {

namespace {

    // The smallest function the machine lays out (machine.h): the entry instruction, two bytes of
    // own work, an 8-byte call site per callee and the 2-byte return.
    uint32_t neededSize(const TreeFunction& f) { return 2 + 2 + 8 * uint32_t(f.calls.size()) + 2; }

    bool number(const std::string& word, uint64_t& out)
    {
        const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), out);
        return error == std::errc() && end == word.data() + word.size();
    }

    struct Parser {
        const std::string& path;
        CallTree tree;
        std::vector<std::pair<std::string, std::string>> pendingCalls; // caller, callee
        std::vector<uint64_t> pendingTimes;
        std::vector<size_t> pendingLines;
        std::string rootName;

        Error error(size_t line, const std::string& message) const { return Error { path, line, message }; }
        Result<std::monostate> function(std::istringstream& in, size_t line);
        Result<std::monostate> statement(const std::string& text, size_t line);
        Result<CallTree> finish();
    };

    Result<std::monostate> Parser::function(std::istringstream& in, size_t line)
    {
        TreeFunction f;
        std::string instructions, cycles, word;
        uint64_t count = 0, each = 0;
        if (!(in >> f.name >> instructions >> cycles) || !number(instructions, count) || !number(cycles, each) || !each)
            return error(line, "expected 'fn FUNCTION INSTRUCTIONS CYCLES [kernel] [recurse N]'");
        f.instructions = count;
        f.cycles = uint32_t(each);
        while (in >> word) {
            uint64_t depth = 0;
            if (word == "kernel") {
                f.kernel = true;
            } else if (word == "recurse" && in >> word && number(word, depth) && depth > 0 && depth < 10000) {
                f.recurse = unsigned(depth);
            } else {
                return error(line, "unexpected '" + word + "' (kernel, recurse N)");
            }
        }
        if (tree.find(f.name) != tree.functions.size())
            return error(line, "function '" + f.name + "' given twice");
        tree.functions.push_back(std::move(f));
        return std::monostate {};
    }

    Result<std::monostate> Parser::statement(const std::string& text, size_t line)
    {
        std::istringstream in(text);
        std::string keyword;
        if (!(in >> keyword) || keyword[0] == '#')
            return std::monostate {};
        if (keyword == "fn")
            return function(in, line);
        std::string a, b, times, extra;
        uint64_t count = 0;
        if (keyword == "root" && in >> a && !(in >> extra)) {
            rootName = a;
            return std::monostate {};
        }
        if (keyword == "call" && in >> a >> b >> times && number(times, count) && count > 0 && !(in >> extra)) {
            pendingCalls.emplace_back(a, b);
            pendingTimes.push_back(count);
            pendingLines.push_back(line);
            return std::monostate {};
        }
        return error(line, "expected 'root FUNCTION', 'fn ...' or 'call CALLER CALLEE TIMES'");
    }

    Result<CallTree> Parser::finish()
    {
        for (size_t i = 0; i < pendingCalls.size(); ++i) {
            const size_t caller = tree.find(pendingCalls[i].first), callee = tree.find(pendingCalls[i].second);
            if (caller == tree.functions.size() || callee == tree.functions.size())
                return error(pendingLines[i], "a call between functions not given by 'fn'");
            tree.functions[caller].calls.push_back({ callee, pendingTimes[i] });
        }
        tree.root = tree.find(rootName);
        if (tree.root == tree.functions.size())
            return error(0, "no 'root FUNCTION' naming a function given by 'fn'");
        return std::move(tree);
    }

} // namespace

size_t CallTree::find(std::string_view name) const
{
    for (size_t i = 0; i < functions.size(); ++i) {
        if (functions[i].name == name)
            return i;
    }
    return functions.size();
}

Result<CallTree> parseCallTree(std::string_view text, const std::string& path)
{
    Parser parser { path, {}, {}, {}, {}, {} };
    std::istringstream in { std::string(text) };
    std::string line;
    for (size_t number = 1; std::getline(in, line); ++number) {
        if (Result<std::monostate> ok = parser.statement(line, number); !ok)
            return ok.error();
    }
    return parser.finish();
}

Result<CallTree> readCallTree(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        return Error { path, 0, std::string("cannot read: ") + std::strerror(errno) };
    std::ostringstream text;
    text << in.rdbuf();
    return parseCallTree(text.str(), path);
}

Result<std::vector<FunctionSymbol>> readFunctionSymbols(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error { path, 0, std::string("cannot read: ") + std::strerror(errno) };
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    Elf32_Ehdr header;
    if (data.size() < sizeof(header) || data.compare(0, 4, ELFMAG) != 0 || data[EI_CLASS] != ELFCLASS32
        || data[EI_DATA] != ELFDATA2LSB)
        return Error { path, 0, "not a 32-bit little-endian ELF file" };
    std::memcpy(&header, data.data(), sizeof(header));
    std::vector<FunctionSymbol> symbols;
    for (unsigned i = 0; i < header.e_shnum; ++i) {
        Elf32_Shdr section, strings;
        const uint64_t at = header.e_shoff + uint64_t(i) * sizeof(section);
        if (at + sizeof(section) > data.size())
            return Error { path, 0, "section header " + std::to_string(i) + " past the end of the file" };
        std::memcpy(&section, data.data() + at, sizeof(section));
        const uint64_t link = header.e_shoff + uint64_t(section.sh_link) * sizeof(strings);
        if (section.sh_type != SHT_SYMTAB || link + sizeof(strings) > data.size())
            continue;
        std::memcpy(&strings, data.data() + link, sizeof(strings));
        for (uint64_t s = section.sh_offset;
             s + sizeof(Elf32_Sym) <= section.sh_offset + section.sh_size && s + sizeof(Elf32_Sym) <= data.size();
             s += sizeof(Elf32_Sym)) {
            Elf32_Sym sym;
            std::memcpy(&sym, data.data() + s, sizeof(sym));
            const uint64_t name = uint64_t(strings.sh_offset) + sym.st_name;
            if (ELF32_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size || name >= data.size())
                continue;
            symbols.push_back({ std::string(data.c_str() + name, strnlen(data.c_str() + name, data.size() - name)),
                sym.st_value, sym.st_size });
        }
    }
    if (symbols.empty())
        return Error { path, 0, "no function symbols with a size (a stripped file?)" };
    return symbols;
}

Result<std::monostate> placeFunctions(CallTree& tree, const std::vector<FunctionSymbol>& symbols)
{
    for (TreeFunction& f : tree.functions) {
        const FunctionSymbol* symbol = nullptr;
        for (const FunctionSymbol& s : symbols)
            symbol = s.name == f.name ? &s : symbol;
        if (!symbol)
            return Error { "", 0, "the image has no function symbol '" + f.name + "'" };
        if (symbol->size < neededSize(f) || symbol->address % 2)
            return Error { "", 0,
                "function '" + f.name + "' is " + std::to_string(symbol->size) + " bytes: the machine needs "
                    + std::to_string(neededSize(f)) + " for its " + std::to_string(f.calls.size()) + " call sites" };
        f.address = symbol->address;
        f.size = symbol->size;
    }
    return std::monostate {};
}

} // namespace ppe::arc::sim
