/* par: items on threads (par.h). */
#include "par.h"

#include <pthread.h>

typedef struct ParJob {
    int first, step, n;
    void (*fn)(void *ctx, int item);
    void *ctx;
} ParJob;

static void *par_job(void *arg)
{
    ParJob *j = arg;
    for (int k = j->first; k < j->n; k += j->step)
        j->fn(j->ctx, k);
    return NULL;
}

void par_for(int n, int threads, void (*fn)(void *ctx, int item), void *ctx)
{
    int T = threads < 1 ? 1 : threads > PAR_MAX_THREADS ? PAR_MAX_THREADS : threads;
    if (T > n)
        T = n > 0 ? n : 1;
    ParJob jobs[PAR_MAX_THREADS];
    pthread_t th[PAR_MAX_THREADS];
    int started[PAR_MAX_THREADS];
    for (int j = 0; j < T; j++) {
        jobs[j] = (ParJob){j, T, n, fn, ctx};
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
