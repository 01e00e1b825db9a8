/* A program that uses MPI directly next to XMP directives (global-view §9): MPI_Init and
 * MPI_Finalize of its own (the runtime owns MPI: they succeed), MPI_Comm_rank/size on
 * MPI_COMM_WORLD, MPI_Allreduce on xmp_get_mpi_comm() at the top level and inside a task
 * (the task's node set), and the xmp_init_mpi family. */
#include <stdio.h>
#include <xmp.h>
#include <mpi.h>

#define N 40

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double a[N];
#pragma xmp align a[i] with t[i]

int main(int argc, char **argv)
{
    int rank, size, i, provided = -1, flag = 0;
    MPI_Init(&argc, &argv);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    xmp_init_mpi(&argc, &argv);
    xmp_init();
    MPI_Initialized(&flag);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double local = 0, total = 0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) {
        a[i] = i;
        local += a[i];
    }
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, xmp_get_mpi_comm());
    int ones = 0, tsize = 0, trank = -1, one = 1;
#pragma xmp task on p[0:(size + 1) / 2]
    {
        MPI_Comm c = xmp_get_mpi_comm();
        MPI_Comm_size(c, &tsize);
        MPI_Comm_rank(c, &trank);
        MPI_Allreduce(&one, &ones, 1, MPI_INT, MPI_SUM, c);
        if (trank != xmpc_node_num())
            printf("rank %d: task rank %d but xmpc_node_num() %d\n", rank, trank, xmpc_node_num());
    }
    int world_ones = 0;
    MPI_Allreduce(&ones, &world_ones, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("initialized %d  world %d of %d  sum %.1f  task size %d  ones %d  provided >= funneled %d\n",
               flag, rank, size, total, tsize, world_ones, provided >= MPI_THREAD_FUNNELED);
    xmp_finalize();
    xmp_finalize_mpi();
    MPI_Finalize();
    return 0;
}
