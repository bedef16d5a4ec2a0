/* dist: the ranks of a data-parallel training run, for the trainers of
 * every learned placer. The plain program has one rank (dist_serial.c:
 * every call below is free and changes nothing); placeto-mpi links the MPI
 * backend instead (core/mpi/dist_mpi.c), one process per rank under mpirun.
 *
 * The trainers keep one rule: every rank holds the same weights and
 * training state, runs the same code on them, and takes part in each update
 * only through its block of the update's items (dist_span: its episodes or
 * samples, on its threads), then obtains every other item's results
 * (dist_share: the owner's bytes, through one io function per trainer) and
 * applies all of them in item order, exactly as one process computing
 * every item does. The reduction is a gather, not a floating-point
 * allreduce: the sums are done by every rank in the same fixed order over
 * the same bytes, so the weights do not depend on the rank count, on the
 * reduction tree or on timing. Errors and the stop flag are agreed
 * (dist_agree, dist_any) so that no rank waits for another that left. */
#ifndef PLACETO_DIST_H
#define PLACETO_DIST_H

#include <stddef.h>

#include "util.h"

/* Starts the backend (MPI_Init in placeto-mpi); the plain program refuses
 * to run as one of several mpirun ranks (it would not share the work) and
 * exits with a message. */
void dist_init(int *argc, char ***argv);
/* Ends it (MPI_Finalize) before the program returns from main. */
void dist_finalize(void);
int dist_rank(void);
int dist_size(void);
/* 1 in placeto-mpi (even with one rank), 0 in the plain program. */
int dist_enabled(void);

/* This rank's block [*lo, *hi) of the items 0 .. n-1: rank r of R takes
 * [r n / R, (r + 1) n / R) (possibly empty). */
void dist_span(int n, int *lo, int *hi);
/* Rank `rank`'s block of n items. */
void dist_span_of(int n, int rank, int *lo, int *hi);

/* Nonzero when flag is nonzero on any rank (the stop flag of a round). */
int dist_any(int flag);
/* Every rank calls it once at the same point with failed = whether its own
 * set-up failed (e holding the message). Returns 0 when no rank failed;
 * otherwise -1 on every rank, with e set to the message of the lowest
 * failing rank. */
int dist_agree(int failed, Err *e);
/* 0 when every rank passed the same value (a fingerprint of the training
 * set and options), -1 otherwise. */
int dist_same(uint64_t v);

/* Rank 0 receives every rank's n bytes at p (the configurations that the
 * ranks compare before training): returns them rank after rank in one
 * allocation (to free), with rank r's count in sizes[r] (sizes holds
 * dist_size() entries); the other ranks get NULL. */
unsigned char *dist_gather(const void *p, size_t n, size_t *sizes);

/* The bytes of the items that dist_share moves: filled by the owner
 * (packing), read by every other rank (reading). */
typedef struct DistBuf {
    unsigned char *p;
    size_t n, cap, pos;
    int reading;
} DistBuf;

/* The one call of an item's io function per field: packing, appends the n
 * bytes at x; reading, fills them from what the owner packed. */
void dist_io(DistBuf *b, void *x, size_t n);

typedef void (*DistItem)(void *ctx, int item, DistBuf *b);

/* After each rank computed its block of the n items: io(ctx, i, b) packs
 * each of this rank's items, in order, then reads every other rank's items,
 * in order (the same io, so that what is read is what was packed). One
 * rank: nothing is called. */
void dist_share(int n, DistItem io, void *ctx);

#endif
