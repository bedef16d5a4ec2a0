/* par: a loop over independent items on threads, for the trainers of the
 * learned placers: items 0 .. n-1 run on up to `threads` threads (at most
 * PAR_MAX_THREADS), thread j taking items j, j + T, ...; the caller's
 * thread is thread 0. Each item writes only its own results, so what the
 * loop computes does not depend on the thread count; a thread that cannot
 * be started has its items run on the caller's thread, with the same
 * result. */
#ifndef PLACETO_PAR_H
#define PLACETO_PAR_H

#define PAR_MAX_THREADS 64

void par_for(int n, int threads, void (*fn)(void *ctx, int item), void *ctx);

#endif
