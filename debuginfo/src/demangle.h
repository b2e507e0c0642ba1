// Symbol names as people read them.
#pragma once

#include <string>

namespace ppe::debuginfo {

// A C++ (Itanium ABI) symbol demangled; any other name as it is.
std::string demangled(const std::string& name);

} // namespace ppe::debuginfo
