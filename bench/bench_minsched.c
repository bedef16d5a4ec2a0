/* bench_minsched: a minimal list scheduler of the simulator's model
 * (bench_minsched.h), the yardstick sim_run is held to (docs/simulator.md,
 * "Performance").
 *
 * The model as a list scheduler: ops are taken in the order of the time
 * their last input arrives (a binary heap of (time, op)); an op starts when
 * it is ready and its device is free, which is then busy until its end plus
 * the gap after an op of non-zero cost; each output index with consumers on
 * other devices is one transfer on the producer's bus, sent when the output
 * is ready and the bus free, arriving bytes / bandwidth later, the bus busy
 * for the overhead after that. Taking ops in ready order gives each device
 * its ops in the order the simulator runs them and each bus its transfers in
 * the order of their producers' ends, so the schedule is the simulator's
 * except where equal times tie (the simulator breaks those like the
 * reference, by names and events; this takes the smaller op index). It
 * computes starts, ends and the makespan only: no transfer list, busy
 * times or memory, which sim_run also gives. It reads the Sim's own arrays
 * (costs, children, outputs, bytes), built once by sim_new. */
#include "bench_minsched.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "sim_impl.h"
#include "util.h"

typedef struct {
    double t;
    int op;
} Ready;

struct MinSched {
    const Sim *s;
    double *start, *end, *ready, *dfree, *bfree, *arrive;
    int *waiting, *out_seen;
    Ready *heap;
    int nh;
};

MinSched *minsched_new(const Sim *s)
{
    MinSched *m = XNEW(MinSched, 1);
    int n = s->n, nd = s->nd, maxc = 1;
    for (int i = 0; i < n; i++)
        if (s->ch_off[i + 1] - s->ch_off[i] > maxc)
            maxc = s->ch_off[i + 1] - s->ch_off[i];
    m->s = s;
    m->start = XMALLOC(double, n);
    m->end = XMALLOC(double, n);
    m->ready = XMALLOC(double, n);
    m->waiting = XMALLOC(int, n);
    m->heap = XMALLOC(Ready, n);
    m->dfree = XMALLOC(double, nd);
    m->bfree = XMALLOC(double, nd);
    m->arrive = XMALLOC(double, maxc);
    m->out_seen = XMALLOC(int, maxc);
    return m;
}

void minsched_free(MinSched *m)
{
    if (!m)
        return;
    free(m->start);
    free(m->end);
    free(m->ready);
    free(m->waiting);
    free(m->heap);
    free(m->dfree);
    free(m->bfree);
    free(m->arrive);
    free(m->out_seen);
    free(m);
}

const double *minsched_start(const MinSched *m) { return m->start; }
const double *minsched_end(const MinSched *m) { return m->end; }

static inline int before(Ready a, Ready b) { return a.t < b.t || (a.t == b.t && a.op < b.op); }

static inline void push(MinSched *m, double t, int op)
{
    Ready x = {t, op};
    int i = m->nh++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!before(x, m->heap[p]))
            break;
        m->heap[i] = m->heap[p];
        i = p;
    }
    m->heap[i] = x;
}

static inline Ready pop(MinSched *m)
{
    Ready top = m->heap[0], last = m->heap[--m->nh];
    int n = m->nh, i = 0;
    for (;;) {
        int l = 2 * i + 1;
        if (l >= n)
            break;
        if (l + 1 < n && before(m->heap[l + 1], m->heap[l]))
            l++;
        if (!before(m->heap[l], last))
            break;
        m->heap[i] = m->heap[l];
        i = l;
    }
    m->heap[i] = last;
    return top;
}

double minsched_run(MinSched *m, const int *dev)
{
    const Sim *s = m->s;
    int n = s->n, nd = s->nd;
    double makespan = 0;
    for (int d = 0; d < nd; d++)
        m->dfree[d] = m->bfree[d] = 0;
    m->nh = 0;
    for (int i = 0; i < n; i++) {
        m->waiting[i] = s->n_par[i];
        m->ready[i] = 0;
        if (s->n_par[i] == 0)
            push(m, 0.0, i);
    }
    while (m->nh) {
        Ready r = pop(m);
        int op = r.op, x = dev[op];
        double c = s->cost[(size_t)op * (size_t)nd + (size_t)x];
        double t = r.t > m->dfree[x] ? r.t : m->dfree[x];
        double end = t + c;
        m->start[op] = t;
        m->end[op] = end;
        m->dfree[x] = end + (c > 0 ? s->gap : 0);
        if (m->dfree[x] > makespan)
            makespan = m->dfree[x];
        int k0 = s->ch_off[op], k1 = s->ch_off[op + 1], n_out = 0;
        for (int k = k0; k < k1; k++) {
            int ch = s->ch[k];
            double a = end;
            if (dev[ch] != x) { /* one transfer per output index, sent when first met */
                int out = s->eout[k], j = 0;
                while (j < n_out && m->out_seen[j] != out)
                    j++;
                if (j == n_out) {
                    double ts = end > m->bfree[x] ? end : m->bfree[x];
                    m->arrive[j] = ts + (double)s->ebytes[k] / s->bandwidth;
                    m->bfree[x] = m->arrive[j] + s->overhead;
                    if (m->bfree[x] > makespan)
                        makespan = m->bfree[x];
                    m->out_seen[n_out++] = out;
                }
                a = m->arrive[j];
            }
            if (a > m->ready[ch])
                m->ready[ch] = a;
            if (--m->waiting[ch] == 0)
                push(m, m->ready[ch], ch);
        }
    }
    return makespan;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The calling thread's CPU time in seconds: a busy machine's other work
 * does not count. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double minsched_ratio(Sim *s, const int *dev, int n_ops, int reps, double batch_s, double *sim_ns, double *min_ns)
{
    MinSched *m = minsched_new(s);
    double *ratio = XMALLOC(double, reps), *ts = XMALLOC(double, reps), *tm = XMALLOC(double, reps);
    sim_run(s, dev); /* warm both up */
    minsched_run(m, dev);
    for (int k = 0; k < reps; k++) {
        /* one run of each in turn, so that both see the same machine */
        long runs = 0;
        double a = 0, b = 0;
        do {
            double t0 = cpu_now();
            sim_run(s, dev);
            double t1 = cpu_now();
            minsched_run(m, dev);
            double t2 = cpu_now();
            a += t1 - t0;
            b += t2 - t1;
            runs++;
        } while (a + b < batch_s);
        ts[k] = a * 1e9 / ((double)runs * n_ops);
        tm[k] = b * 1e9 / ((double)runs * n_ops);
        ratio[k] = a / b;
    }
    qsort(ratio, (size_t)reps, sizeof *ratio, cmp_double);
    qsort(ts, (size_t)reps, sizeof *ts, cmp_double);
    qsort(tm, (size_t)reps, sizeof *tm, cmp_double);
    double r = ratio[reps / 2];
    *sim_ns = ts[reps / 2];
    *min_ns = tm[reps / 2];
    free(ratio);
    free(ts);
    free(tm);
    minsched_free(m);
    return r;
}
