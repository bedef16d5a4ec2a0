/* par: items on threads (par.h). */
#include "par.h"

#include <pthread.h>

#include "dist.h"

typedef struct ParJob {
    int first, step, hi, thread;
    ParFn fn;
    void *ctx;
} ParJob;

static void *par_job(void *arg)
{
    ParJob *j = arg;
    for (int k = j->first; k < j->hi; k += j->step)
        j->fn(j->ctx, k, j->thread);
    return NULL;
}

void par_for(int lo, int hi, int threads, ParFn fn, void *ctx)
{
    int n = hi - lo;
    if (n <= 0)
        return;
    int T = threads < 1 ? 1 : threads > PAR_MAX_THREADS ? PAR_MAX_THREADS : threads;
    if (T > n)
        T = n;
    ParJob jobs[PAR_MAX_THREADS];
    pthread_t th[PAR_MAX_THREADS];
    int started[PAR_MAX_THREADS];
    for (int j = 0; j < T; j++) {
        jobs[j] = (ParJob){lo + j, T, hi, j, fn, ctx};
        started[j] = j > 0 && pthread_create(&th[j], NULL, par_job, &jobs[j]) == 0;
    }
    par_job(&jobs[0]);
    for (int j = 1; j < T; j++) {
        if (started[j])
            pthread_join(th[j], NULL);
        else
            par_job(&jobs[j]);
    }
}

void par_for_rank(int n, int threads, ParFn fn, void *ctx)
{
    int lo, hi;
    dist_span(n, &lo, &hi);
    par_for(lo, hi, threads, fn, ctx);
}
