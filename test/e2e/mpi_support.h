// What the tests that run Open MPI jobs share (mpi_test.cc, process_plumbing_test.cc): mpirun as
// they run it, the environment it needs, and the skip where the build found no MPI. The MPI
// example and mpirun are known only when the build found mpicc and mpirun (PPE_MPI_IMBALANCE and
// PPE_MPIRUN, test/e2e/CMakeLists.txt); without them the functions are not declared and every
// MPI test skips through PPE_NEEDS_MPI(), saying why.
#pragma once

#include "run_program.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ppe::testing {

#ifdef PPE_MPI_IMBALANCE
// mpirun as the tests run it: as root in containers, more ranks (4) than cores, shared memory, the
// collector on and writing to `out`, mpirun's `options` before the program.
std::vector<std::string> mpirunArgv(
    const std::vector<std::string>& program, const std::string& out, const std::vector<std::string>& options = {});

// The environment of an Open MPI run in its own session directory `session`: two mpiruns under one
// TMPDIR share /tmp/ompi.HOST.UID, and the one that ends first removes it while the other is still
// creating its pid.N in it ("A call to mkdir was unable to create the desired directory",
// orte_init failed) when ctest runs the MPI tests side by side. Also what a singleton run (the
// program without mpirun) needs as root.
std::vector<EnvChange> mpirunEnv(const TempDir& session);

// Runs `program` under mpirunArgv (with `options`) in `cwd`, in a session directory of its own.
RunResult mpirun(const std::vector<std::string>& program, const std::string& out,
    const std::vector<std::string>& options = {}, const std::string& cwd = "");

#define PPE_NEEDS_MPI()
#else
#define PPE_NEEDS_MPI()                                                                                                \
    GTEST_SKIP() << "no mpicc or mpirun when the build was configured (install openmpi-bin and "                       \
                    "libopenmpi-dev, scripts/install-deps.sh, and configure again)"
#endif

} // namespace ppe::testing
