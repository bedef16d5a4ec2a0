/* dist_serial: the one-rank backend of the plain program (dist.h). */
#include "dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dist_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* mpirun -np R placeto ...: R copies that would each train alone and
     * write the same files */
    const char *size = getenv("OMPI_COMM_WORLD_SIZE");
    if (size && atoi(size) > 1) {
        const char *rank = getenv("OMPI_COMM_WORLD_RANK");
        if (!rank || atoi(rank) == 0)
            fprintf(stderr, "placeto: started by mpirun with %s ranks, but this program has no MPI: run "
                            "placeto-mpi (make mpi) under mpirun\n", size);
        exit(2); /* a usage error */
    }
}

void dist_finalize(void) {}
int dist_rank(void) { return 0; }
int dist_size(void) { return 1; }
int dist_enabled(void) { return 0; }
int dist_any(int flag) { return flag != 0; }
int dist_agree(int failed, Err *e)
{
    (void)e;
    return failed ? -1 : 0;
}
int dist_same(uint64_t v)
{
    (void)v;
    return 0;
}

unsigned char *dist_gather(const void *p, size_t n, size_t *sizes)
{
    unsigned char *out = xmalloc(n + 1);
    if (n)
        memcpy(out, p, n);
    sizes[0] = n;
    return out;
}

void dist_share(int n, DistItem io, void *ctx)
{
    (void)n;
    (void)io;
    (void)ctx;
}
