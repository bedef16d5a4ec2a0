/* mpi_ping: what a training update's communication costs on this machine
 * (make bench PARTS=mpi, bench/bench_mpi.sh): the latency of a one-int
 * MPI_Allreduce (the stop flag and the error agreement) and the time of an
 * MPI_Allgather of B bytes per rank (dist_share's gather) for a range of B,
 * with the bandwidth it implies. Rank 0 prints one line per size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double time_allgather(size_t bytes, int reps, int size)
{
    char *mine = calloc(bytes ? bytes : 1, 1), *all = calloc(bytes ? bytes * (size_t)size : 1, 1);
    if (!mine || !all) {
        fprintf(stderr, "mpi_ping: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, MPI_COMM_WORLD); /* warm-up */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int r = 0; r < reps; r++)
        MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
    double t = (MPI_Wtime() - t0) / reps;
    free(mine);
    free(all);
    return t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int flag = 0, any;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int r = 0; r < 1000; r++)
        MPI_Allreduce(&flag, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    double lat = (MPI_Wtime() - t0) / 1000;
    if (rank == 0)
        printf("mpi_ping  %d ranks  allreduce of one int: %.1f us\n", size, lat * 1e6);
    static const size_t sizes[] = {1u << 12, 1u << 16, 1u << 20, 1u << 22, 1u << 24};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int reps = sizes[k] >= (1u << 22) ? 20 : 200;
        double t = time_allgather(sizes[k], reps, size);
        /* each rank receives (size - 1) blocks */
        double gbs = t > 0 ? (double)sizes[k] * (size - 1) / t / 1e9 : 0;
        if (rank == 0)
            printf("mpi_ping  %d ranks  allgather %8zu B per rank: %9.1f us  %6.2f GB/s received per rank\n", size,
                   sizes[k], t * 1e6, gbs);
    }
    MPI_Finalize();
    return 0;
}
