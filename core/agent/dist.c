/* dist: what both backends share (dist.h): the blocks of items and the
 * pack buffer. */
#include "dist.h"

#include <string.h>

void dist_span_of(int n, int rank, int *lo, int *hi)
{
    int R = dist_size();
    *lo = (int)((long long)n * rank / R);
    *hi = (int)((long long)n * (rank + 1) / R);
}

void dist_span(int n, int *lo, int *hi)
{
    dist_span_of(n, dist_rank(), lo, hi);
}

void dist_io(DistBuf *b, void *x, size_t n)
{
    if (!b->reading) {
        xgrow((void **)&b->p, &b->cap, b->n + n, 1);
        memcpy(b->p + b->n, x, n);
        b->n += n;
        return;
    }
    if (b->pos + n > b->n)
        util_die("dist: a rank sent fewer bytes than its items need (%zu)", b->n);
    memcpy(x, b->p + b->pos, n);
    b->pos += n;
}
