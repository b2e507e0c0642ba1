// What `-Wl,-u,ppe_load` must bring out of libppe.a and libc.a along with the collector. A static
// archive's member is linked only when something already linked refers to it, so this table,
// kept alive by ppe_load (control_api.cc), refers to:
//  - the sigaction/signal interposer (interpose.cc): nothing in the collector calls it, but the
//    program's libraries must go through it (libgfortran installs its own SIGTRAP handler from
//    main: without the interposer it replaced the collector's and every CPU-mode sample killed the
//    program with "Program received signal SIGTRAP");
//  - the POSIX thread functions libgcc's gthreads call through weak references: the collector
//    links pthread_create (its collector thread), which brings __pthread_key_create, by which
//    libgcc and libgfortran decide that threads are in use (__gthread_active_p); each weak reference
//    that nothing else linked is then a call through address 0 (a fully static gfortran program
//    died in _gfortran_st_open calling pthread_mutex_destroy, PPE_ON or not).
// In libppe.so the same table only names functions that are there anyway.
#include <csignal>
#include <pthread.h>
#include <sched.h>

extern "C" {

// extern: a const object would otherwise have internal linkage in C++.
__attribute__((used)) extern void* const ppe_archive_links[] = {
    reinterpret_cast<void*>(&::sigaction),
    reinterpret_cast<void*>(&::signal),
    reinterpret_cast<void*>(&pthread_once),
    reinterpret_cast<void*>(&pthread_getspecific),
    reinterpret_cast<void*>(&pthread_setspecific),
    reinterpret_cast<void*>(&pthread_key_create),
    reinterpret_cast<void*>(&pthread_key_delete),
    reinterpret_cast<void*>(&pthread_create),
    reinterpret_cast<void*>(&pthread_join),
    reinterpret_cast<void*>(&pthread_equal),
    reinterpret_cast<void*>(&pthread_self),
    reinterpret_cast<void*>(&pthread_detach),
    reinterpret_cast<void*>(&pthread_cancel),
    reinterpret_cast<void*>(&sched_yield),
    reinterpret_cast<void*>(&pthread_mutex_lock),
    reinterpret_cast<void*>(&pthread_mutex_trylock),
    reinterpret_cast<void*>(&pthread_mutex_timedlock),
    reinterpret_cast<void*>(&pthread_mutex_unlock),
    reinterpret_cast<void*>(&pthread_mutex_init),
    reinterpret_cast<void*>(&pthread_mutex_destroy),
    reinterpret_cast<void*>(&pthread_mutexattr_init),
    reinterpret_cast<void*>(&pthread_mutexattr_settype),
    reinterpret_cast<void*>(&pthread_mutexattr_destroy),
    reinterpret_cast<void*>(&pthread_cond_init),
    reinterpret_cast<void*>(&pthread_cond_broadcast),
    reinterpret_cast<void*>(&pthread_cond_signal),
    reinterpret_cast<void*>(&pthread_cond_wait),
    reinterpret_cast<void*>(&pthread_cond_timedwait),
    reinterpret_cast<void*>(&pthread_cond_destroy),
};

} // extern "C"
