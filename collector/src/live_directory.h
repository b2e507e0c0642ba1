// The live file's directory, held open (O_PATH) in the collector thread's own descriptor table,
// where the program never sees it: a program that chroot()s writes its profile inside the jail,
// and its live file, left in the real directory, would be merged later as a killed process's
// (issue 34). Through the held directory the collector thread removes it all the same.
#pragma once

namespace ppe {

// Holds the directory of the live file `livePath` (this process's), once per collector thread
// (a forked child's, or one back from parking, holds it anew). On the collector thread only.
// Signal-safe.
void holdLiveDirectory(const char* livePath);

// Removes the live file `livePath` through the held directory, when called on the collector
// thread that holds it and the name there is still the file it held (same device and inode).
// Returns false when it did not (the caller unlinks by name). Signal-safe.
bool removeHeldLiveFile(const char* livePath);

} // namespace ppe
