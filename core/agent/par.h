/* par: a loop over independent items on threads, for the trainers of the
 * learned placers: items lo .. hi-1 run on up to `threads` threads (at most
 * PAR_MAX_THREADS), thread j taking items lo + j, lo + j + T, ...; the
 * caller's thread is thread 0, and fn learns the thread of each item (for
 * per-thread work spaces). Each item writes only its own results, so what
 * the loop computes does not depend on the thread count; a thread that
 * cannot be started has its items run on the caller's thread, with the same
 * result. par_for_rank runs this rank's block of the items 0 .. n-1
 * (dist.h's dist_span): all of them in the plain program. */
#ifndef PLACETO_PAR_H
#define PLACETO_PAR_H

#define PAR_MAX_THREADS 64

typedef void (*ParFn)(void *ctx, int item, int thread);

void par_for(int lo, int hi, int threads, ParFn fn, void *ctx);
void par_for_rank(int n, int threads, ParFn fn, void *ctx);

#endif
