// Which section the assembler is in, following gas's rules (gas/config/obj-elf.c): every switch
// remembers the section it left for .previous; .pushsection also saves that pair for
// .popsection. Subsections only matter to .previous: the listing's addresses are already final.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ppe::listparse {

struct SectionRef {
    std::string name;
    int subsection = 0;
};

class SectionTracker {
public:
    const std::string& current() const { return m_current.name; }
    int subsection() const { return m_current.subsection; }

    void switchTo(SectionRef to); // .section, .text, .data, .bss
    void setSubsection(int subsection); // .subsection
    void push(SectionRef to); // .pushsection
    void pop(); // .popsection (ignored with an empty stack, as gas warns and does)
    void previous(); // .previous (ignored before any switch)
    void renameCurrent(std::string name); // the current section turned out to be `name`

private:
    SectionRef m_current { ".text", 0 };
    std::optional<SectionRef> m_previous;
    std::vector<std::pair<SectionRef, std::optional<SectionRef>>> m_stack;
};

} // namespace ppe::listparse
