#include "demangle.h"

#include <cstdlib>
#include <cxxabi.h>
#include <memory>

namespace ppe::debuginfo {

namespace {

    // libstdc++'s demangler, the code of c++filt and nm -C (LLVM's prints lambdas otherwise).
    std::string demangledCxx(const std::string& name)
    {
        int status = 0;
        std::unique_ptr<char, decltype(&std::free)> out(
            abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
        return status == 0 && out ? std::string(out.get()) : name;
    }

    // gfortran's module procedures: __MODULE_MOD_NAME.
    std::string demangledFortran(const std::string& name)
    {
        const size_t mod = name.find("_MOD_", 2);
        if (mod == std::string::npos || mod == 2 || mod + 5 == name.size())
            return name;
        return fortranName(name.substr(2, mod - 2), name.substr(mod + 5));
    }

} // namespace

std::string fortranName(const std::string& module, const std::string& name)
{
    return module.empty() ? name : module + "::" + name;
}

std::string demangled(const std::string& name)
{
    if (name.size() > 2 && name[0] == '_' && name[1] == 'Z')
        return demangledCxx(name);
    if (name.size() > 2 && name[0] == '_' && name[1] == '_')
        return demangledFortran(name);
    return name;
}

} // namespace ppe::debuginfo
