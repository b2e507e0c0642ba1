/* An MPI job whose ranks do deliberately unequal work, for ppeout's merge and per-rank imbalance
 * (issue 20).
 *   mpi_imbalance [UNITS] [HEAVY]        every rank does UNITS units in common_work and UNITS units
 *                                        in own_work, except rank HEAVY (default 2), which does 4x
 *                                        as many in own_work
 *   mpi_imbalance abort [UNITS] [WHO]    after a barrier, rank WHO (default 1) works UNITS units and
 *                                        calls MPI_Abort; the others work until they are killed
 *   mpi_imbalance exit [UNITS] [WHO]     the same, but rank WHO calls exit(2) without MPI_Finalize:
 *                                        the launcher sees a failed rank and kills the others
 *   mpi_imbalance crash [UNITS] [WHO]    the same, but rank WHO dies of SIGSEGV
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile double sink;

/* One unit: about 10^8 floating-point steps. */
static double unit(double seed)
{
    double x = seed;
    for (long i = 0; i < 100000000L; ++i)
        x = x * 1.0000001 + 1e-9;
    return x;
}

__attribute__((noinline)) void common_work(int units)
{
    for (int u = 0; u < units; ++u)
        sink += unit(1.0 + u);
}

__attribute__((noinline)) void own_work(int units)
{
    for (int u = 0; u < units; ++u)
        sink += unit(2.0 + u);
}

static int imbalance(int rank, int units, int heavy)
{
    common_work(units);
    own_work(rank == heavy ? 4 * units : units);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_imbalance: done\n");
    return 0;
}

/* How rank WHO fails: "abort", "exit" or "crash". */
static void fail(const char* how, int rank)
{
    fprintf(stderr, "mpi_imbalance: rank %d fails (%s)\n", rank, how);
    if (strcmp(how, "exit") == 0)
        exit(2);
    if (strcmp(how, "crash") == 0)
        raise(SIGSEGV);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

static int failOne(const char* how, int rank, int units, int who)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == who) {
        own_work(units);
        fail(how, rank);
    }
    for (;;)
        common_work(1);
    return 0;
}

static int isFailure(const char* mode)
{
    return strcmp(mode, "abort") == 0 || strcmp(mode, "exit") == 0 || strcmp(mode, "crash") == 0;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int status;
    if (argc > 1 && isFailure(argv[1]))
        status = failOne(argv[1], rank, argc > 2 ? atoi(argv[2]) : 2, argc > 3 ? atoi(argv[3]) : 1);
    else
        status = imbalance(rank, argc > 1 ? atoi(argv[1]) : 1, argc > 2 ? atoi(argv[2]) : 2);
    MPI_Finalize();
    return status;
}
