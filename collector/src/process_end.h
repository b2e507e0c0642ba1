// Ways a process ends without running exit handlers: _exit/_Exit (MPI_Abort ends this way) and
// exec. The collector writes its profile first.
#pragma once

namespace ppe {

// Stops sampling and writes the profile now (once; later calls do nothing). Signal-safe.
void finishBeforeProcessEnds(const char* reason);

// dlclose: keeps the samples of an object it unloads (retired_objects.h), then returns what
// realDlclose returned.
int closeSharedObject(void* handle, int (*realDlclose)(void*));

} // namespace ppe
