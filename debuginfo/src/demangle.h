// Symbol names as people read them, and as the GNU tools and gdb print them.
#pragma once

#include <string>

namespace ppe::debuginfo {

// A C++ (Itanium ABI) symbol demangled as c++filt and nm -C do (lambdas are
// `main::{lambda(int)#2}`), a gfortran module procedure as gdb shows it (`__kern_MOD_smooth` is
// `kern::smooth`); any other name as it is.
std::string demangled(const std::string& name);

// A Fortran procedure's name: `module::name` inside a module, else `name`.
std::string fortranName(const std::string& module, const std::string& name);

} // namespace ppe::debuginfo
