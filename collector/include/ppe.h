/* ppe: PC-sampling profiler, collector control interface (libppe).
 *
 * Nothing here needs to be called: with PPE_ON set in the environment the collector starts before
 * main() and writes NAME.ppe when the program ends. These calls let a program profile only part of
 * its run, as PPE$INIT/SET/START/PAUSE/STOP did on VMS. Without PPE_ON every call does nothing and
 * returns -1.
 *
 * Fortran: `call ppe_start()`, `call ppe_pause()`, `call ppe_stop()`, `call ppe_set(interval, mode)`
 * and `call ppe_init(istart, iend)` (integer*8 addresses, e.g. from loc()) resolve to the
 * trailing-underscore entry points below; the module in ppe.f90 also offers ppe_init with the
 * optional page count.
 */
#ifndef PPE_H
#define PPE_H

#ifdef __cplusplus
extern "C" {
#endif

/* The automatic start, run from the library's constructor. Referencing it forces the collector
 * into a link that would otherwise drop it: -Wl,-u,ppe_load (like PPE$LOAD /INCLUDE on VMS). */
void ppe_load(void);

/* Discards any profile so far and monitors [start, end) of the object that contains `start`
 * (run-time addresses, e.g. of two functions), with at most `pages` 512-byte pages of counters
 * (0: PPE_MEM or its default). Sampling is left paused: call ppe_start(). */
int ppe_init(const void* start, const void* end, unsigned pages);

/* Sampling interval in 100 ns units and mode: 0 real (wall-clock) time, 1 CPU time. */
int ppe_set(unsigned interval, int mode);

/* Starts or resumes sampling. */
int ppe_start(void);

/* Suspends sampling; ppe_start() resumes it. */
int ppe_pause(void);

/* Ends sampling and writes the profile now; the exit handler will then write nothing. */
int ppe_stop(void);

/* Fortran entry points (arguments by reference). */
void ppe_init_(const long long* start, const long long* end);
void ppe_init_f(const long long* start, const long long* end, const int* pages /* may be NULL */);
void ppe_set_(const int* interval, const int* mode);
void ppe_start_(void);
void ppe_pause_(void);
void ppe_stop_(void);

#ifdef __cplusplus
}
#endif

#endif /* PPE_H */
