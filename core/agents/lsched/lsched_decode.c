/* lsched_decode: the learned list scheduler's schedule, features, decode
 * and placing (lsched.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lsched.h"
#include "place.h"
#include "sample.h"
#include "sim.h"

struct LscGraph {
    const Graph *g;
    const Grouping *gr;
    const Cluster *c;
    PlaceEval *pe;
    int n, nd;
    int *order;          /* the groups by decreasing bottom level (a topological order) */
    double *cost;        /* [k * nd + d]: group k's time on device d */
    double *blev;        /* per group: its bottom level (reference costs) */
    double crit;         /* the largest bottom level */
    double share;        /* the total reference cost over the devices: the features' time scale */
    double total;        /* the total reference cost */
    double per_byte;     /* µs per byte on a bus */
    double *pred_bytes;  /* per entry of gr->pred: the bytes of that edge */
    /* a decode's schedule */
    double *fin;         /* per group: its estimated finish */
    int *dev;            /* per group: its device (-1: not yet placed) */
    double *dev_free, *bus_free, *load, *mem; /* per device */
    /* one group's candidates, per device */
    double *finish, *start, *ready, *xfer, *in, *bus_tmp, *score, *p;
    float *phi, *hid;    /* [d * LSC_FEATURES], [d * hidden] */
    int hid_cap;
};

static const Grouping *grp(const LscGraph *lg) { return lg->gr; }

/* 1 when group x comes before y: a larger bottom level, then a smaller index. */
static int before(const double *key, int x, int y) { return key[x] != key[y] ? key[x] > key[y] : x < y; }

/* Sorts idx[0..n) by before() (a merge sort: stable, n log n, no globals). */
static void sort_by_blev(int *idx, int n, const double *key)
{
    int *tmp = xnew_array((size_t)n, sizeof *tmp);
    for (int w = 1; w < n; w *= 2) {
        for (int lo = 0; lo < n; lo += 2 * w) {
            int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                tmp[o++] = before(key, idx[b], idx[a]) ? idx[b++] : idx[a++];
            while (a < mid)
                tmp[o++] = idx[a++];
            while (b < hi)
                tmp[o++] = idx[b++];
        }
        memcpy(idx, tmp, (size_t)n * sizeof *idx);
    }
    free(tmp);
}

LscGraph *lsc_graph_new(const Graph *g, const Grouping *gr, const Cluster *c, Err *e)
{
    int n = gr->n_groups, nd = c->n_devices;
    if ((int64_t)n * nd > LSC_MAX_CHOICES) {
        err_set(e, "the learned list scheduler scores at most %d choices (groups x devices); %s has %d groups on %d "
                   "devices", LSC_MAX_CHOICES, g->name, n, nd);
        return NULL;
    }
    LscGraph *lg = xcalloc(1, sizeof *lg);
    lg->g = g;
    lg->gr = gr;
    lg->c = c;
    lg->n = n;
    lg->nd = nd;
    lg->pe = place_eval_new(g, gr, c);
    PlaceCtx ctx = {.g = g, .gr = gr, .c = c};
    lg->cost = xnew_array((size_t)n * (size_t)nd, sizeof *lg->cost);
    for (int k = 0; k < n; k++) {
        for (int d = 0; d < nd; d++)
            lg->cost[(size_t)k * (size_t)nd + (size_t)d] = place_group_cost(&ctx, k, d);
        lg->total += gr->cost_us[k];
    }
    /* the features' time scale: a device's share of the work, at least a
     * picosecond, so that times over it stay finite whatever the costs
     * (1e-307 us) */
    lg->share = lg->total <= 0 ? 1 : lg->total / nd > 1e-6 ? lg->total / nd : 1e-6;
    lg->per_byte = c->bandwidth_bytes_per_us > 0 ? 1 / c->bandwidth_bytes_per_us : 0;
    lg->blev = xnew_array((size_t)n, sizeof *lg->blev);
    lg->crit = group_bottom_levels(gr, lg->blev);
    lg->order = xnew_array((size_t)n, sizeof *lg->order);
    for (int k = 0; k < n; k++)
        lg->order[k] = k;
    sort_by_blev(lg->order, n, lg->blev);
    lg->pred_bytes = xnew_array((size_t)gr->pred_off[n] + 1, sizeof *lg->pred_bytes);
    for (int a = 0; a < n; a++)
        for (int j = gr->succ_off[a]; j < gr->succ_off[a + 1]; j++) {
            int b = gr->succ[j], lo = gr->pred_off[b], hi = gr->pred_off[b + 1];
            while (lo < hi) { /* pred lists are sorted */
                int mid = lo + (hi - lo) / 2;
                if (gr->pred[mid] < a)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < gr->pred_off[b + 1] && gr->pred[lo] == a)
                lg->pred_bytes[lo] = (double)gr->succ_bytes[j];
        }
    lg->fin = xnew_array((size_t)n, sizeof *lg->fin);
    lg->dev = xnew_array((size_t)n, sizeof *lg->dev);
    double **per_dev[] = {&lg->dev_free, &lg->bus_free, &lg->load, &lg->mem, &lg->finish, &lg->start, &lg->ready,
                          &lg->xfer, &lg->in, &lg->bus_tmp, &lg->score, &lg->p};
    for (size_t i = 0; i < sizeof per_dev / sizeof per_dev[0]; i++)
        *per_dev[i] = xnew_array((size_t)nd, sizeof **per_dev[i]);
    lg->phi = xnew_array((size_t)nd * LSC_FEATURES, sizeof *lg->phi);
    return lg;
}

void lsc_graph_free(LscGraph *lg)
{
    if (!lg)
        return;
    place_eval_free(lg->pe);
    void *arrays[] = {lg->order, lg->cost, lg->blev, lg->pred_bytes, lg->fin, lg->dev, lg->dev_free, lg->bus_free,
                      lg->load, lg->mem, lg->finish, lg->start, lg->ready, lg->xfer, lg->in, lg->bus_tmp,
                      lg->score, lg->p, lg->phi, lg->hid};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        free(arrays[i]);
    free(lg);
}

/* Group k's time on device d. */
static double cost_of(const LscGraph *lg, int k, int d) { return lg->cost[(size_t)k * (size_t)lg->nd + (size_t)d]; }

/* Where group k would start and finish on each device, given the groups
 * placed so far, and the transfers it would cost. */
static void candidates(LscGraph *lg, int k)
{
    const Grouping *gr = grp(lg);
    for (int d = 0; d < lg->nd; d++) {
        memcpy(lg->bus_tmp, lg->bus_free, (size_t)lg->nd * sizeof *lg->bus_tmp);
        double ready = 0, xfer = 0, in = 0;
        for (int j = gr->pred_off[k]; j < gr->pred_off[k + 1]; j++) {
            int q = gr->pred[j], dq = lg->dev[q];
            double at;
            if (dq == d) {
                at = lg->fin[q];
                in += lg->pred_bytes[j];
            } else { /* sent on q's device's bus when both q and the bus are done */
                double s0 = lg->fin[q] > lg->bus_tmp[dq] ? lg->fin[q] : lg->bus_tmp[dq];
                double t = lg->pred_bytes[j] * lg->per_byte;
                at = s0 + t;
                lg->bus_tmp[dq] = at + lg->c->transfer_overhead_us;
                xfer += t + lg->c->transfer_overhead_us;
            }
            ready = at > ready ? at : ready;
        }
        lg->ready[d] = ready;
        lg->start[d] = ready > lg->dev_free[d] ? ready : lg->dev_free[d];
        lg->finish[d] = lg->start[d] + cost_of(lg, k, d);
        lg->xfer[d] = xfer;
        lg->in[d] = in;
    }
}

/* Puts group k on device d: its sends, its device's queue, load and memory. */
static void commit(LscGraph *lg, int k, int d)
{
    const Grouping *gr = grp(lg);
    for (int j = gr->pred_off[k]; j < gr->pred_off[k + 1]; j++) {
        int q = gr->pred[j], dq = lg->dev[q];
        if (dq == d)
            continue;
        double s0 = lg->fin[q] > lg->bus_free[dq] ? lg->fin[q] : lg->bus_free[dq];
        lg->bus_free[dq] = s0 + lg->pred_bytes[j] * lg->per_byte + lg->c->transfer_overhead_us;
    }
    lg->dev[k] = d;
    lg->fin[k] = lg->finish[d];
    lg->dev_free[d] = lg->finish[d];
    lg->load[d] += cost_of(lg, k, d);
    lg->mem[d] += (double)gr->bytes[k];
}

/* The features of group k on every device (candidates() first); done is
 * the reference cost of the groups placed before it. */
static void features(const LscGraph *lg, int k, double done)
{
    const Grouping *gr = grp(lg);
    int nd = lg->nd;
    double S = lg->share, lo = INFINITY, in_all = 0;
    for (int d = 0; d < nd; d++)
        lo = lg->finish[d] < lo ? lg->finish[d] : lo;
    for (int j = gr->pred_off[k]; j < gr->pred_off[k + 1]; j++)
        in_all += lg->pred_bytes[j];
    double pace = (done + gr->cost_us[k]) / (lg->total > 0 ? lg->total : 1) * nd;
    for (int d = 0; d < nd; d++) {
        float *f = &lg->phi[(size_t)d * LSC_FEATURES];
        double cap = (double)lg->c->devices[d].memory_bytes;
        double mem = cap > 0 ? (lg->mem[d] + (double)gr->bytes[k]) / cap : 0;
        double backlog = lg->bus_free[d] - lg->ready[d];
        f[0] = 1;
        f[1] = scorer_slog((lg->finish[d] - lo) / S * 10);
        f[2] = scorer_slog((lg->start[d] - lg->ready[d]) / S * 10);
        f[3] = scorer_slog(lg->xfer[d] / S * 10);
        f[4] = (float)(lg->load[d] / S);
        f[5] = (float)((lg->load[d] + cost_of(lg, k, d)) / S - pace);
        f[6] = (float)(mem < 2 ? mem : 2);
        f[7] = (float)(in_all > 0 ? lg->in[d] / in_all : 0);
        f[8] = scorer_slog((double)gr->bytes[k] * lg->per_byte / S * 10);
        f[9] = (float)(lg->crit > 0 ? lg->blev[k] / lg->crit : 0);
        f[10] = scorer_slog((backlog > 0 ? backlog : 0) / S * 10);
        f[11] = scorer_slog(cost_of(lg, k, d) / S * 10);
    }
}

double lsc_decode(LscGraph *lg, Scorer *net, Rng *rng, const int *force, double adv, double scale, int *gd)
{
    int nd = lg->nd, H = net->hidden;
    if (lg->hid_cap < nd * H) {
        free(lg->hid);
        lg->hid_cap = nd * H;
        lg->hid = xnew_array((size_t)lg->hid_cap, sizeof *lg->hid);
    }
    for (int k = 0; k < lg->n; k++)
        lg->dev[k] = -1;
    for (int d = 0; d < nd; d++)
        lg->dev_free[d] = lg->bus_free[d] = lg->load[d] = lg->mem[d] = 0;
    double done = 0, logp = 0;
    for (int i = 0; i < lg->n; i++) {
        int k = lg->order[i];
        candidates(lg, k);
        features(lg, k, done);
        double hi = -INFINITY, sum = 0;
        for (int d = 0; d < nd; d++) {
            lg->score[d] = scorer_score(net, &lg->phi[(size_t)d * LSC_FEATURES], &lg->hid[(size_t)d * (size_t)H]);
            hi = lg->score[d] > hi ? lg->score[d] : hi;
        }
        for (int d = 0; d < nd; d++) {
            lg->p[d] = exp(lg->score[d] - hi);
            sum += lg->p[d];
        }
        for (int d = 0; d < nd; d++)
            lg->p[d] /= sum;
        int d = force ? force[k] : rng ? sample_draw_d(lg->p, nd, rng_uniform(rng)) : sample_argmax_d(lg->score, nd);
        logp += log(lg->p[d] > 1e-300 ? lg->p[d] : 1e-300);
        if (force && adv != 0)
            scorer_policy_grad(net, lg->phi, lg->hid, lg->p, nd, d, adv, scale);
        commit(lg, k, d);
        gd[k] = d;
        done += grp(lg)->cost_us[k];
    }
    return logp;
}

double lsc_eval(LscGraph *lg, const int *gd) { return place_eval(lg->pe, gd); }
const SimResult *lsc_full(LscGraph *lg, const int *gd) { return place_eval_full(lg->pe, gd); }

void lsc_place(LscGraph *lg, Scorer *net, int64_t budget, uint64_t seed, int *best_gd, LscResult *res)
{
    memset(res, 0, sizeof *res);
    if (budget <= 0)
        budget = LSC_DEFAULT_BUDGET;
    PlaceCtx ctx = {.g = lg->g, .gr = lg->gr, .c = lg->c, .seed = seed, .budget = budget};
    res->used = place_search_start(&ctx, best_gd, &res->start_score, &res->start);
    res->best_score = res->start_score;
    int *gd = xnew_array((size_t)lg->n, sizeof *gd);
    Rng rng;
    rng_seed(&rng, seed);
    while (net && res->used < budget) {
        lsc_decode(lg, net, res->decodes ? &rng : NULL, NULL, 0, 0, gd); /* the greedy decode, then samples */
        double s = lsc_eval(lg, gd);
        res->used++;
        res->decodes++;
        if (s < res->best_score) {
            res->best_score = s;
            res->from_decode = 1;
            memcpy(best_gd, gd, (size_t)lg->n * sizeof *gd);
        }
    }
    res->best_runtime_us = lsc_full(lg, best_gd)->makespan_us;
    free(gd);
}
