#include "mpi_support.h"

namespace ppe::testing {

#ifdef PPE_MPI_IMBALANCE
std::vector<std::string> mpirunArgv(
    const std::vector<std::string>& program, const std::string& out, const std::vector<std::string>& options)
{
    std::vector<std::string> argv { "timeout", "300", PPE_MPIRUN, "--allow-run-as-root", "--oversubscribe", "-np", "4",
        "--mca", "btl", "self,vader,tcp", "-x", "PPE_ON=1", "-x", "PPE_OUT=" + out };
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), program.begin(), program.end());
    return argv;
}

std::vector<EnvChange> mpirunEnv(const TempDir& session)
{
    return { { "OMPI_ALLOW_RUN_AS_ROOT", "1" }, { "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1" },
        { "TMPDIR", session.path() } };
}

RunResult mpirun(const std::vector<std::string>& program, const std::string& out,
    const std::vector<std::string>& options, const std::string& cwd)
{
    const TempDir session;
    return runProgram(mpirunArgv(program, out, options), mpirunEnv(session), cwd);
}
#endif

} // namespace ppe::testing
