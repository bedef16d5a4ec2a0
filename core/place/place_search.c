/* place_search: local search over single-group moves, started from the best
 * heuristic's placement: simulated annealing (anneal) and iterated
 * first-improvement local search with perturbation (ils).
 *
 * Both score a placement as the agent does by default: the simulator's
 * runtime plus 2 s per GB that a device's peak memory exceeds its memory,
 * so that they are memory-aware. Every placement simulated counts against
 * ctx->budget, the heuristics' placements of the start included, and the
 * count is reported in *ctx->simulated. Deterministic for a seed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "place_methods.h"
#include "sim.h"

#define OOM_PENALTY_US_PER_BYTE 2e-3 /* 2 s per GB, as the agent's default */

struct PlaceEval {
    const Grouping *gr;
    const Cluster *c;
    Sim *sim;
    int n, nd;           /* groups, devices */
    int *op;             /* per op: the placement being simulated */
    int64_t *group_bytes; /* per group: its ops' output bytes */
    int64_t *dev_bytes;   /* per device, in four lanes: the workspace */
    double *group_work;   /* [k * nd + d]: group k's ops' costs on device d and the gaps after them */
    double *dev_work;     /* per device, in four lanes: the work of the placement (sim_give_device_work) */
    int *op_gd;           /* per group: its device in op, or -1 */
    int all_fit;          /* every op's outputs fit on each device together */
    double last;         /* the last placement's answer, */
    int exact;           /* its score (1) or a lower bound (0) */
    int64_t unfit, below; /* runs of placements that may not fit, and those below their cutoff */
};

PlaceEval *place_eval_new(const Graph *g, const Grouping *gr, const Cluster *c)
{
    PlaceEval *pe = xcalloc(1, sizeof *pe);
    pe->gr = gr;
    pe->c = c;
    pe->n = gr->n_groups;
    pe->nd = c->n_devices;
    pe->sim = sim_new(g, c);
    sim_set_quiet(pe->sim, 1); /* one placement, one word to the observer (place_eval_cut) */
    pe->op = XMALLOC(int, g->n_nodes);
    pe->group_bytes = XNEW(int64_t, pe->n);
    pe->dev_bytes = XNEW(int64_t, 4 * (size_t)pe->nd);
    pe->group_work = XNEW(double, (size_t)pe->n * (size_t)pe->nd);
    pe->dev_work = XMALLOC(double, 4 * (size_t)pe->nd);
    pe->op_gd = XMALLOC(int, pe->n);
    for (int k = 0; k < pe->n; k++)
        pe->op_gd[k] = -1;
    for (int i = 0; i < g->n_nodes; i++)
        for (int d = 0; d < pe->nd; d++) {
            double cost = cluster_op_cost(c, g, i, d);
            pe->group_work[(size_t)gr->op_group[i] * (size_t)pe->nd + (size_t)d] += cost + (cost > 0 ? c->op_gap_us : 0);
        }
    int64_t total = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        pe->group_bytes[gr->op_group[i]] += graph_node_bytes(g, i);
        total += graph_node_bytes(g, i);
    }
    pe->all_fit = 1;
    for (int d = 0; d < pe->nd; d++)
        pe->all_fit &= total <= c->devices[d].memory_bytes;
    return pe;
}

void place_eval_free(PlaceEval *pe)
{
    if (!pe)
        return;
    sim_free(pe->sim);
    free(pe->op);
    free(pe->group_bytes);
    free(pe->dev_bytes);
    free(pe->group_work);
    free(pe->dev_work);
    free(pe->op_gd);
    free(pe);
}

/* pe->op as the op-level placement of gd: only the groups whose device
 * changed since the last call are written (a search moves one or two). */
static void expand(PlaceEval *pe, const int *gd)
{
    const Grouping *gr = pe->gr;
    for (int k = 0; k < pe->n; k++)
        if (gd[k] != pe->op_gd[k]) {
            for (int j = gr->member_off[k]; j < gr->member_off[k + 1]; j++)
                pe->op[gr->members[j]] = gd[k];
            pe->op_gd[k] = gd[k];
        }
}

/* Per device, in four lanes (one chain of sums through memory is slow),
 * one pass over the groups: the output bytes placed on it (bytes: the
 * fits test) and its work (work: for sim_give_device_work, rather than the
 * run's own sum over every op), the lanes of the work added up into
 * dev_work[0 .. nd). */
static void group_sums(PlaceEval *pe, const int *gd, int bytes, int work)
{
    int n = pe->n, nd = pe->nd, blocks = n & ~3; /* groups past the last block of four: lane 0 */
    int64_t *bl = pe->dev_bytes;
    double *wl = pe->dev_work;
    const int64_t *gb = pe->group_bytes;
    const double *gw = pe->group_work;
    if (bytes)
        memset(bl, 0, 4 * (size_t)nd * sizeof *bl);
    if (work)
        memset(wl, 0, 4 * (size_t)nd * sizeof *wl);
    for (int k = 0; k < n; k++) {
        int d = gd[k], lane = (k < blocks ? k & 3 : 0) * nd + d;
        if (bytes)
            bl[lane] += gb[k];
        if (work)
            wl[lane] += gw[(size_t)k * (size_t)nd + (size_t)d];
    }
    for (int d = 0; work && d < nd; d++)
        wl[d] = (wl[d] + wl[nd + d]) + (wl[2 * nd + d] + wl[3 * nd + d]);
}

/* A device's peak memory is at most the bytes of the outputs placed on it;
 * when that fits on every device, the score is the makespan (the makespan
 * loop, without the transfers' and allocations' bookkeeping). Otherwise the
 * makespan is a lower bound of the score, and the memory pass is run only
 * when it is below the cutoff: by a second, whole run when few runs get
 * there (as in a search near a local optimum), else from what the first
 * kept (sim_run_lazy_cut). Either
 * run stops once a lower bound of the makespan reaches the cutoff
 * (sim_makespan_cut): a placement that cannot be kept costs only the part
 * of its run before that. Whole
 * runs, not incremental ones: a group move re-simulates 97-99.7 % of the
 * events from the last checkpoint before it (the groups hold early ops),
 * and recording the checkpoints costs more than that saves
 * (docs/simulator.md, "Incremental re-simulation"). */
double place_eval_cut(PlaceEval *pe, const int *gd, double cutoff)
{
    expand(pe, gd);
    int fits = pe->all_fit;
    group_sums(pe, gd, !fits, cutoff < INFINITY);
    if (!fits) {
        const int64_t *lane = pe->dev_bytes;
        int nd = pe->nd;
        fits = 1;
        for (int d = 0; d < nd && fits; d++)
            fits = lane[d] + lane[nd + d] + lane[2 * nd + d] + lane[3 * nd + d] <= pe->c->devices[d].memory_bytes;
    }
    /* a placement that may not fit: while at most a quarter of such runs
     * have come out below their cutoff, the makespan loop, and the whole
     * run again for the memory of those that do; else the loop that keeps
     * what the memory pass needs */
    int lean = fits || pe->below * 4 <= pe->unfit;
    if (cutoff < INFINITY)
        sim_give_device_work(pe->sim, pe->dev_work);
    double makespan = lean ? sim_makespan_cut(pe->sim, pe->op, cutoff) : sim_run_lazy_cut(pe->sim, pe->op, cutoff);
    if (!fits) {
        pe->unfit++;
        pe->below += makespan < cutoff;
    }
    pe->exact = fits && makespan < cutoff; /* at or above it, a run may have stopped at a bound */
    if (fits || makespan >= cutoff) {
        sim_tell(makespan, NULL);
        return pe->last = makespan;
    }
    const SimResult *r = sim_result_memory(pe->sim);
    sim_tell(makespan, r);
    pe->exact = 1;
    return pe->last = place_score(pe->c, r);
}

double place_eval(PlaceEval *pe, const int *gd) { return place_eval_cut(pe, gd, INFINITY); }

double place_eval_score(PlaceEval *pe)
{
    if (!pe->exact) {
        pe->last = place_score(pe->c, sim_result_memory(pe->sim));
        pe->exact = 1;
    }
    return pe->last;
}

const SimResult *place_eval_full(PlaceEval *pe, const int *gd)
{
    expand(pe, gd);
    const SimResult *r = sim_run(pe->sim, pe->op);
    sim_tell(r->makespan_us, r);
    return r;
}

typedef struct Search {
    const PlaceCtx *ctx;
    PlaceEval *pe;
    int n, nd;          /* groups, devices */
    int64_t budget, used;
    int *cur;           /* per group: the current placement */
    double cur_score;
    int *best;          /* per group: the best placement seen */
    double best_score;
    const char *start;  /* the method whose placement started the search */
    Rng rng;
} Search;

double place_score(const Cluster *c, const SimResult *r)
{
    double over = 0;
    for (int d = 0; d < c->n_devices; d++) {
        double x = (double)r->peak_memory_bytes[d] - (double)c->devices[d].memory_bytes;
        if (x > 0)
            over += x;
    }
    return r->makespan_us + OOM_PENALTY_US_PER_BYTE * over;
}

/* Scores the per-group placement gd (one placement of the budget): exactly
 * when below cutoff, else a lower bound of the score that is >= cutoff. */
static double evaluate_cut(Search *s, const int *gd, double cutoff)
{
    s->used++;
    return place_eval_cut(s->pe, gd, cutoff);
}

static double evaluate(Search *s, const int *gd) { return evaluate_cut(s, gd, INFINITY); }

static void note(Search *s, const int *gd, double score)
{
    if (score < s->best_score) {
        s->best_score = score;
        memcpy(s->best, gd, (size_t)s->n * sizeof *gd);
    }
}

static void search_init(Search *s, const PlaceCtx *ctx)
{
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    s->n = ctx->gr->n_groups;
    s->nd = ctx->c->n_devices;
    s->budget = ctx->budget > 0 ? ctx->budget : place_default_budget(ctx->g);
    s->pe = place_eval_new(ctx->g, ctx->gr, ctx->c);
    s->cur = XNEW(int, s->n);
    s->best = XNEW(int, s->n);
    s->best_score = INFINITY;
    rng_seed(&s->rng, ctx->seed);
}

static void search_free(Search *s)
{
    place_eval_free(s->pe);
    free(s->cur);
    free(s->best);
}

/* Writes the best placement and the count, frees the workspace. */
static void search_done(Search *s, int *op_device)
{
    group_expand(s->ctx->gr, s->best, op_device);
    if (s->ctx->simulated)
        *s->ctx->simulated = s->used;
    search_free(s);
}

/* Every heuristic's placement (not the searches'), simulated while the
 * budget lasts, goes through note(); s->start names the best. A heuristic
 * that fails is passed over; with none, every group on device 0. */
static void heuristics(Search *s)
{
    int n_methods;
    const PlaceMethod *m = place_methods(&n_methods);
    int *dev = XMALLOC(int, s->ctx->g->n_nodes);
    int *gd = XMALLOC(int, s->n);
    for (int k = 0; k < n_methods && s->used < s->budget; k++) {
        Err ignored;
        if (place_is_search(&m[k]) || m[k].fn(s->ctx, dev, &ignored) != 0)
            continue;
        int ok = 1;
        for (int i = 0; i < s->ctx->g->n_nodes && ok; i++)
            ok = dev[i] >= 0 && dev[i] < s->nd;
        if (!ok)
            continue;
        group_collapse(s->ctx->gr, dev, gd);
        double score = evaluate(s, gd);
        if (score < s->best_score)
            s->start = m[k].name;
        note(s, gd, score);
    }
    if (!s->start) { /* nothing ran (a budget of 0 is not possible: at least one placement) */
        memset(gd, 0, (size_t)s->n * sizeof *gd);
        note(s, gd, evaluate(s, gd));
        s->start = "device0";
    }
    free(gd);
    free(dev);
}

/* The start: the best heuristic's placement becomes the current one (the
 * one given in ctx->start, or computed here). */
static void search_start(Search *s)
{
    const PlaceStart *st = s->ctx->start;
    if (st) {
        memcpy(s->best, st->group_device, (size_t)s->n * sizeof *s->best);
        s->best_score = st->score;
        s->start = st->name;
        s->used = st->used;
    } else {
        heuristics(s);
    }
    memcpy(s->cur, s->best, (size_t)s->n * sizeof *s->cur);
    s->cur_score = s->best_score;
}

int64_t place_best_heuristic(const PlaceCtx *ctx, int *group_device, double *score, const char **name)
{
    PlaceCtx c = *ctx;
    c.budget = INT64_MAX;
    return place_search_start(&c, group_device, score, name);
}

int64_t place_search_start(const PlaceCtx *ctx, int *group_device, double *score, const char **name)
{
    PlaceCtx c = *ctx;
    c.simulated = NULL;
    c.start = NULL;
    Search s;
    search_init(&s, &c);
    heuristics(&s);
    memcpy(group_device, s.best, (size_t)s.n * sizeof *group_device);
    *score = s.best_score;
    *name = s.start;
    int64_t used = s.used;
    search_free(&s);
    return used;
}

/* A device for group k other than its current one, uniformly. */
static int other_device(Search *s, int k)
{
    int d = (int)rng_below(&s->rng, (uint64_t)(s->nd - 1));
    return d >= s->cur[k] ? d + 1 : d;
}

void place_kick(int *group_device, int n, int n_devices, Rng *rng)
{
    if (n_devices < 2 || n <= 0)
        return;
    int kick = n / 20 > 2 ? n / 20 : 2;
    for (int j = 0; j < kick; j++) {
        int k = (int)rng_below(rng, (uint64_t)n);
        int d = (int)rng_below(rng, (uint64_t)(n_devices - 1));
        group_device[k] = d >= group_device[k] ? d + 1 : d;
    }
}

/* Simulated annealing: a random single-group move is kept when it is no
 * worse, or with probability exp(-delta / T); T falls geometrically from
 * 1% to 0.001% of the start's score over the budget left. */
int place_anneal(const PlaceCtx *ctx, int *op_device, Err *e)
{
    (void)e;
    Search s;
    search_init(&s, ctx);
    search_start(&s);
    int64_t first = s.used, total = s.budget - s.used;
    double t0 = 1e-2 * s.cur_score, t1 = 1e-5 * s.cur_score;
    while (s.nd > 1 && s.n > 0 && s.used < s.budget) {
        double frac = total > 0 ? (double)(s.used - first) / (double)total : 1;
        double temp = t0 * pow(t1 / t0, frac);
        int k = (int)rng_below(&s.rng, (uint64_t)s.n), old = s.cur[k];
        s.cur[k] = other_device(&s, k);
        /* exact up to the score the draw would still accept (the draw a
         * worse move takes next, read ahead); above it a lower bound,
         * enough to reject unless the draw could accept the move */
        Rng ahead = s.rng;
        double u_next = rng_uniform(&ahead), reach = -temp * log(u_next);
        double cutoff = s.cur_score + reach * (1 + 1e-6);
        if (!(cutoff > s.cur_score))
            cutoff = nextafter(s.cur_score, INFINITY);
        double score = evaluate_cut(&s, s.cur, cutoff), delta = score - s.cur_score;
        int keep = delta <= 0;
        if (!keep) {
            double u = rng_uniform(&s.rng);
            if (u < exp(-delta / temp)) { /* the draw may accept: the exact score decides */
                score = place_eval_score(s.pe);
                delta = score - s.cur_score;
                keep = u < exp(-delta / temp);
            }
        }
        if (keep) {
            s.cur_score = score;
            note(&s, s.cur, score);
        } else {
            s.cur[k] = old;
        }
    }
    search_done(&s, op_device);
    return 0;
}

/* First-improvement local search from the current placement: the groups in
 * a random order, for each the other devices from a random one on; the
 * first move that lowers the score is kept and the scan goes on with the
 * next group. Ends at a local optimum (a pass without a move) or when the
 * budget is spent. */
static void local_search(Search *s, int *order)
{
    int moved = 1;
    while (moved && s->used < s->budget) {
        moved = 0;
        for (int i = s->n - 1; i > 0; i--) { /* Fisher-Yates */
            int j = (int)rng_below(&s->rng, (uint64_t)i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int i = 0; i < s->n && s->used < s->budget; i++) {
            int k = order[i], old = s->cur[k];
            int o = (int)rng_below(&s->rng, (uint64_t)(s->nd - 1));
            for (int j = 0; j < s->nd - 1 && s->used < s->budget; j++) {
                int d = (o + j) % (s->nd - 1);
                s->cur[k] = d >= old ? d + 1 : d;
                double score = evaluate_cut(s, s->cur, s->cur_score);
                if (score < s->cur_score) {
                    s->cur_score = score;
                    note(s, s->cur, score);
                    moved = 1;
                    break;
                }
                s->cur[k] = old;
            }
        }
    }
}

/* Iterated local search: local search to a local optimum, then a kick of
 * max(2, groups / 20) random moves from the best placement seen, and again,
 * until the budget is spent. */
int place_ils(const PlaceCtx *ctx, int *op_device, Err *e)
{
    (void)e;
    Search s;
    search_init(&s, ctx);
    search_start(&s);
    int *order = XMALLOC(int, s.n);
    for (int k = 0; k < s.n; k++)
        order[k] = k;
    while (s.nd > 1 && s.n > 0 && s.used < s.budget) {
        local_search(&s, order);
        if (s.used >= s.budget)
            break;
        memcpy(s.cur, s.best, (size_t)s.n * sizeof *s.cur);
        place_kick(s.cur, s.n, s.nd, &s.rng);
        s.cur_score = evaluate(&s, s.cur);
        note(&s, s.cur, s.cur_score);
    }
    free(order);
    search_done(&s, op_device);
    return 0;
}

static const PlaceMethod search_methods[] = {PLACE_SEARCH_METHODS};

int place_is_search(const PlaceMethod *m)
{
    for (size_t k = 0; k < sizeof search_methods / sizeof search_methods[0]; k++)
        if (m->fn == search_methods[k].fn)
            return 1;
    return 0;
}
