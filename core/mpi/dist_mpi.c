/* dist_mpi: the MPI backend of dist.h, linked into placeto-mpi only (the
 * plain program links dist_serial.c and no MPI library).
 *
 * Only the main thread calls MPI (MPI_THREAD_FUNNELED); the trainers' own
 * threads compute between the calls. Every call checks its status
 * (MPI_ERRORS_RETURN): a failed collective, which is what a rank that died
 * or was killed leaves its peers with when the transport notices first,
 * ends this rank at once with a message (mpirun then ends the others, as
 * it does when it notices the death itself); the policy file keeps its
 * last checkpoint, which is written whole (temporary file, then rename). */
#include "dist.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int my_rank, n_ranks = 1;
static DistBuf mine, all;
static int *counts, *displs;

static void check(int rc, const char *what)
{
    if (rc == MPI_SUCCESS)
        return;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "error %d", rc);
    fprintf(stderr, "placeto: rank %d: %s failed (%s): another rank has stopped or died; ending the job (the policy "
                    "file holds the last checkpoint)\n", my_rank, what, msg);
    fflush(stderr);
    _exit(1);
}

/* Open MPI's blocking collectives poll the transport without pause, so a
 * rank that reaches one first (its block done, or waiting on rank 0's save)
 * burns a core until the last arrives: on one host that is a core taken
 * from the other ranks' threads. Every collective below is therefore
 * preceded by a nonblocking barrier polled with sleeps that double from
 * 2 us up to 256 us: the rank sleeps while it waits, then the collective
 * itself starts with every rank present and moves the same bytes as
 * before (the results do not change). */
static void arrive(const char *what)
{
    if (n_ranks == 1)
        return;
    MPI_Request req;
    check(MPI_Ibarrier(MPI_COMM_WORLD, &req), what);
    long ns = 2000;
    for (;;) {
        int done = 0;
        check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), what);
        if (done)
            return;
        struct timespec ts = {0, ns};
        nanosleep(&ts, NULL);
        if (ns < 256000)
            ns *= 2;
    }
}

void dist_init(int *argc, char ***argv)
{
    int provided;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "placeto: MPI_Init failed\n");
        exit(1);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n_ranks);
    counts = xnew_array((size_t)n_ranks, sizeof *counts);
    displs = xnew_array((size_t)n_ranks, sizeof *displs);
}

void dist_finalize(void)
{
    free(mine.p);
    free(all.p);
    free(counts);
    free(displs);
    memset(&mine, 0, sizeof mine);
    memset(&all, 0, sizeof all);
    counts = displs = NULL;
    MPI_Finalize();
}

int dist_rank(void) { return my_rank; }
int dist_size(void) { return n_ranks; }
int dist_enabled(void) { return 1; }

int dist_any(int flag)
{
    int in = flag != 0, out = 0;
    arrive("MPI_Ibarrier (stop flag)");
    check(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce (stop flag)");
    return out;
}

int dist_agree(int failed, Err *e)
{
    int in = failed ? my_rank : n_ranks, first = n_ranks;
    arrive("MPI_Ibarrier (errors)");
    check(MPI_Allreduce(&in, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce (errors)");
    if (first == n_ranks)
        return 0;
    Err tmp;
    if (!e)
        e = &tmp;
    check(MPI_Bcast(e->msg, (int)sizeof e->msg, MPI_CHAR, first, MPI_COMM_WORLD), "MPI_Bcast (error)");
    e->msg[sizeof e->msg - 1] = '\0';
    return -1;
}

int dist_same(uint64_t v)
{
    unsigned long long in[2] = {v, ~(unsigned long long)v}, out[2];
    arrive("MPI_Ibarrier (fingerprint)");
    check(MPI_Allreduce(in, out, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce (fingerprint)");
    return out[0] == v && out[1] == ~(unsigned long long)v ? 0 : -1;
}

unsigned char *dist_gather(const void *p, size_t n, size_t *sizes)
{
    if (n > INT_MAX)
        util_die("dist: rank %d has %zu bytes to gather, more than MPI counts", my_rank, n);
    int count = (int)n;
    arrive("MPI_Ibarrier (gather)");
    check(MPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather (sizes)");
    unsigned char *out = NULL;
    if (my_rank == 0) {
        long long total = 0;
        for (int q = 0; q < n_ranks; q++) {
            displs[q] = (int)total;
            sizes[q] = (size_t)counts[q];
            total += counts[q];
            if (total > INT_MAX)
                util_die("dist: the ranks gather more than %d bytes", INT_MAX);
        }
        out = xmalloc((size_t)total + 1);
    }
    check(MPI_Gatherv(p, count, MPI_BYTE, out, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Gatherv");
    return out;
}

/* The blocks of the n items, packed by their owners in rank order, are
 * gathered whole on every rank (MPI_Allgatherv): each rank then reads the
 * exact bytes every owner produced. */
void dist_share(int n, DistItem io, void *ctx)
{
    if (n_ranks == 1)
        return;
    int lo, hi;
    dist_span(n, &lo, &hi);
    mine.n = mine.pos = 0;
    mine.reading = 0;
    for (int i = lo; i < hi; i++)
        io(ctx, i, &mine);
    if (mine.n > INT_MAX)
        util_die("dist: rank %d has %zu bytes to send, more than MPI counts", my_rank, mine.n);
    int count = (int)mine.n;
    arrive("MPI_Ibarrier (results)");
    check(MPI_Allgather(&count, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather (sizes)");
    long long total = 0;
    for (int q = 0; q < n_ranks; q++) {
        displs[q] = (int)total;
        total += counts[q];
        if (total > INT_MAX)
            util_die("dist: an update shares more than %d bytes", INT_MAX);
    }
    all.n = all.pos = 0;
    all.reading = 1;
    xgrow((void **)&all.p, &all.cap, (size_t)total + 1, 1);
    check(MPI_Allgatherv(mine.p, count, MPI_BYTE, all.p, counts, displs, MPI_BYTE, MPI_COMM_WORLD),
          "MPI_Allgatherv (results)");
    all.n = (size_t)total;
    for (int q = 0; q < n_ranks; q++) {
        int qlo, qhi;
        dist_span_of(n, q, &qlo, &qhi);
        all.pos = (size_t)displs[q];
        if (q == my_rank)
            continue;
        for (int i = qlo; i < qhi; i++)
            io(ctx, i, &all);
        if (all.pos != (size_t)displs[q] + (size_t)counts[q])
            util_die("dist: rank %d sent %d bytes, %zu were read", q, counts[q], all.pos - (size_t)displs[q]);
    }
}
