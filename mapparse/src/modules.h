// From input sections to modules: which sections are code, which objects are real, and how a
// user names them.
#pragma once

#include "input_section.h"
#include "ppe/mapparse/link_map.h"

namespace ppe::mapparse {

// Code sections (.text, .text.*, .init, .fini, .gnu.linkonce.t.*, .ltext, .ltext.*) of real
// objects, non-empty, merged per object path; modules sorted by address.
std::vector<Module> buildModules(const InputSections& sections);

// ".text.startup.main" yes, ".plt", ".rodata", ".fini_array" no.
bool isCodeSection(std::string_view name);

// "<internal>" (lld), "linker stubs" (GNU ld) and the like: pieces no object file owns.
bool isLinkerMade(std::string_view path);

// "/usr/lib/x86_64-linux-gnu/crti.o" -> "crti.o", "/usr/lib/libc_nonshared.a(atexit.o)" ->
// "libc_nonshared.a(atexit.o)".
std::string moduleName(std::string_view path);

} // namespace ppe::mapparse
