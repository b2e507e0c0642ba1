// Which loaded object a user's NAME names: PPE_OBJECT (`ppe --object`) in the collector and
// `ppeout --object` / `--object-lines` in the formatter apply this one rule (issue 38: the two
// had drifted on an empty name). docs/user-guide.md section 10 states it.
// Pure, no allocation: part of libppe.
#pragma once

namespace ppe {

// True when `name` names the object at `path`: the whole path; its file name (the part after the
// last '/'); or that file name up to a '.' (the name without its version: "libkernel.so" names
// ".../libkernel.so.1.2", "libkernel.so.1" does too; "libkernel" names "libkernel.so", but
// "kernel.so" and "libkernel2" do not). An empty name names nothing. Signal-safe.
bool objectNameMatches(const char* path, const char* name);

} // namespace ppe
