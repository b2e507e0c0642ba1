// One collector per process: when a program carries two copies (libppe.a linked in and libppe.so
// preloaded), only the copy in the earliest loaded object (the executable) runs.
#pragma once

namespace ppe {

// True when this copy of the collector is the first loaded one (or no copy carries the note).
// Not signal-safe (dl_iterate_phdr).
bool isFirstCollector();

} // namespace ppe
