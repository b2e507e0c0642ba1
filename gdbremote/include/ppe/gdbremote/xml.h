// A small XML reader for GDB target descriptions: elements, attributes, text, comments, the
// `<?xml ...?>` declaration and `<!DOCTYPE ...>` (skipped, internal subset included), the five
// predefined entities and character references. No namespaces (`xi:include` is just a name), no
// CDATA, no DTD validation: what target descriptions use, nothing more.
#pragma once

#include "ppe/support/result.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ppe::gdbremote {

struct XmlElement {
    std::string name;
    std::vector<std::pair<std::string, std::string>> attributes;
    std::vector<XmlElement> children;
    std::string text; // character data directly inside, concatenated
    std::size_t line = 0;

    // The attribute's value, or null.
    const std::string* attribute(std::string_view key) const;
};

// The document's root element; an error names `document` and the line.
Result<XmlElement> parseXml(std::string_view text, const std::string& document);

} // namespace ppe::gdbremote
