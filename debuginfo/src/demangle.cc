#include "demangle.h"

#include <llvm/Demangle/Demangle.h>

namespace ppe::debuginfo {

std::string demangled(const std::string& name)
{
    if (name.size() > 2 && name[0] == '_' && name[1] == 'Z')
        return llvm::demangle(name);
    return name;
}

} // namespace ppe::debuginfo
