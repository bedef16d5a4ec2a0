/* place_part: graph-partitioning baselines (METIS k-way and Scotch static
 * mapping) on the undirected group graph.
 *
 * Both build the same weighted graph: the group graph of ctx->gr made
 * symmetric (a neighbour appears once per vertex, no self loops), vertex
 * weight = the group's reference cost, edge weight = the bytes carried
 * between the two groups (both directions summed). Weights are scaled to
 * integers so that the largest is at most PART_MAX_WEIGHT and the sum over
 * all vertices (or all adjacency entries) stays below PART_MAX_SUM, which
 * keeps the libraries' 32-bit internal sums from overflowing; every weight is
 * at least 1 (zero-cost groups and zero-byte control edges still count a
 * little, and old Scotch releases reject zero vertex loads).
 *
 * Devices of different throughput get shares proportional to their rate
 * (reference cost / cost on the device, i.e. the speed unless kind costs
 * apply): METIS through tpwgts, Scotch through a weighted complete
 * architecture. METIS adds memory (group output bytes) as a second balance
 * constraint, with shares proportional to device memory, when some device
 * cannot hold every group's bytes. One device, or fewer groups than devices,
 * is handled here without calling a library. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <metis.h>
#if defined(__has_include)
#if __has_include(<scotch.h>)
#include <scotch.h>
#else
#include <scotch/scotch.h> /* Debian installs it under scotch/ */
#endif
#else
#include <scotch/scotch.h>
#endif

#include "place.h"
#include "place_methods.h"

#define PART_MAX_WEIGHT 1e6
#define PART_MAX_SUM 1e9

/* The symmetric group graph in CSR, weights as doubles before scaling. */
typedef struct PartGraph {
    int n, n_adj;   /* vertices, adjacency entries (2 x undirected edges) */
    int *xadj;      /* n + 1 */
    int *adj;       /* n_adj */
    double *ewt;    /* n_adj: bytes between the two groups */
} PartGraph;

static void part_graph_free(PartGraph *pg)
{
    free(pg->xadj);
    free(pg->adj);
    free(pg->ewt);
}

/* Bytes on the group edge a -> b, 0 if there is none (succ lists are sorted). */
static double group_edge_bytes(const Grouping *gr, int a, int b)
{
    int lo = gr->succ_off[a], hi = gr->succ_off[a + 1];
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (gr->succ[mid] == b)
            return (double)gr->succ_bytes[mid];
        if (gr->succ[mid] < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

static void part_graph_build(const Grouping *gr, PartGraph *pg)
{
    int n = gr->n_groups;
    size_t cap = 0;
    for (int k = 0; k < n; k++)
        cap += (size_t)(gr->succ_off[k + 1] - gr->succ_off[k]) +
               (size_t)(gr->pred_off[k + 1] - gr->pred_off[k]);
    pg->n = n;
    pg->xadj = xmalloc_array((size_t)(n + 1), sizeof *pg->xadj);
    pg->adj = xmalloc_array(cap, sizeof *pg->adj);
    pg->ewt = xmalloc_array(cap, sizeof *pg->ewt);
    int *pos = xmalloc_array((size_t)n, sizeof *pos); /* neighbour -> slot in row */
    for (int k = 0; k < n; k++)
        pos[k] = -1;
    int m = 0;
    for (int k = 0; k < n; k++) {
        pg->xadj[k] = m;
        for (int pass = 0; pass < 2; pass++) {
            const int *off = pass ? gr->pred_off : gr->succ_off;
            const int *nb = pass ? gr->pred : gr->succ;
            for (int j = off[k]; j < off[k + 1]; j++) {
                int o = nb[j];
                if (o == k || o < 0 || o >= n)
                    continue;
                double b = pass ? group_edge_bytes(gr, o, k) : (double)gr->succ_bytes[j];
                if (pos[o] < 0) {
                    pos[o] = m;
                    pg->adj[m] = o;
                    pg->ewt[m] = 0;
                    m++;
                }
                pg->ewt[pos[o]] += b;
            }
        }
        /* Edge a -> b shows up in row a through succ and in row b through
         * pred, each time with its bytes; were there also b -> a, the row
         * would sum both directions into one entry. */
        for (int j = pg->xadj[k]; j < m; j++)
            pos[pg->adj[j]] = -1;
    }
    pg->xadj[n] = m;
    pg->n_adj = m;
    free(pos);
}

/* Scale factor mapping doubles w[0..n) to integers: the largest becomes at
 * most PART_MAX_WEIGHT and the sum at most PART_MAX_SUM. */
static double weight_scale(const double *w, int n)
{
    double mx = 0, sum = 0;
    for (int i = 0; i < n; i++) {
        double x = isfinite(w[i]) && w[i] > 0 ? w[i] : 0;
        if (x > mx)
            mx = x;
        sum += x;
    }
    if (mx <= 0)
        return 0;
    double s = PART_MAX_WEIGHT / mx;
    if (sum * s > PART_MAX_SUM)
        s = PART_MAX_SUM / sum;
    return s;
}

/* Integer weight of x under scale s, at least 1. */
static long long scaled(double x, double s)
{
    if (!isfinite(x) || x <= 0 || s <= 0)
        return 1;
    double v = floor(x * s + 0.5);
    if (v < 1)
        v = 1;
    if (v > PART_MAX_WEIGHT)
        v = PART_MAX_WEIGHT;
    return (long long)v;
}

/* Relative throughput of every device: reference cost / cost on the device
 * over all groups (exactly the speed without kind costs). Returns 1 when the
 * devices differ. */
static int device_rates(const PlaceCtx *ctx, double *rate)
{
    const Cluster *c = ctx->c;
    double ref = 0;
    for (int k = 0; k < ctx->gr->n_groups; k++)
        ref += ctx->gr->cost_us[k];
    for (int d = 0; d < c->n_devices; d++) {
        double on_d = 0;
        for (int k = 0; k < ctx->gr->n_groups; k++)
            on_d += place_group_cost(ctx, k, d);
        double r = ref > 0 && on_d > 0 ? ref / on_d : c->devices[d].speed;
        rate[d] = isfinite(r) && r > 0 ? r : 1.0;
    }
    int differ = 0;
    for (int d = 1; d < c->n_devices; d++)
        if (fabs(rate[d] - rate[0]) > 1e-9 * fabs(rate[0]))
            differ = 1;
    return differ;
}

/* Sorts idx[0..n) by key descending, ties by index (insertion sort: n is
 * below the device count here). */
static void sort_desc(int *idx, int n, const double *key)
{
    for (int i = 1; i < n; i++) {
        int x = idx[i], j = i - 1;
        while (j >= 0 && (key[idx[j]] < key[x] || (key[idx[j]] == key[x] && idx[j] > x))) {
            idx[j + 1] = idx[j];
            j--;
        }
        idx[j + 1] = x;
    }
}

/* The cases no library is asked about: one device (everything on it) and
 * fewer groups than devices (each group on its own device, the costliest
 * groups on the fastest devices). Returns 1 when it filled group_device. */
static int place_trivial(const PlaceCtx *ctx, const double *rate, int *group_device)
{
    int n = ctx->gr->n_groups, nd = ctx->c->n_devices;
    if (nd == 1) {
        for (int k = 0; k < n; k++)
            group_device[k] = 0;
        return 1;
    }
    if (n >= nd)
        return 0;
    int *gs = xmalloc_array((size_t)n, sizeof *gs);
    int *ds = xmalloc_array((size_t)nd, sizeof *ds);
    for (int k = 0; k < n; k++)
        gs[k] = k;
    for (int d = 0; d < nd; d++)
        ds[d] = d;
    sort_desc(gs, n, ctx->gr->cost_us);
    sort_desc(ds, nd, rate);
    for (int i = 0; i < n; i++)
        group_device[gs[i]] = ds[i];
    free(gs);
    free(ds);
    return 1;
}

/* Folds a 64-bit seed into a non-negative 31-bit library seed. */
static int fold_seed(uint64_t seed)
{
    return (int)((seed ^ (seed >> 31) ^ (seed >> 62)) & 0x7fffffff);
}

/* ---------------------------------------------------------------- METIS */

static int partition_metis(const PlaceCtx *ctx, const PartGraph *pgp, const double *rate, int differ,
                           int *gd, Err *e)
{
    const Grouping *gr = ctx->gr;
    const Cluster *c = ctx->c;
    int n = gr->n_groups, nd = c->n_devices, rc = 0;
    PartGraph pg = *pgp;

    /* memory as a second constraint when some device cannot hold it all */
    int64_t total_bytes = 0;
    for (int k = 0; k < n; k++)
        total_bytes += gr->bytes[k];
    idx_t ncon = 1;
    for (int d = 0; d < nd; d++)
        if (c->devices[d].memory_bytes < total_bytes)
            ncon = 2;

    double *bw = xmalloc_array((size_t)n, sizeof *bw);
    for (int k = 0; k < n; k++)
        bw[k] = (double)gr->bytes[k];
    double vs = weight_scale(gr->cost_us, n), ms = weight_scale(bw, n);
    double es = weight_scale(pg.ewt, pg.n_adj);

    idx_t nv = n, np = nd, objval = 0;
    idx_t *xadj = xmalloc_array((size_t)(n + 1), sizeof *xadj);
    idx_t *adjncy = xmalloc_array((size_t)pg.n_adj, sizeof *adjncy);
    idx_t *adjwgt = xmalloc_array((size_t)pg.n_adj, sizeof *adjwgt);
    idx_t *vwgt = xmalloc_array((size_t)n * (size_t)ncon, sizeof *vwgt);
    idx_t *part = xmalloc_array((size_t)n, sizeof *part);
    for (int k = 0; k <= n; k++)
        xadj[k] = pg.xadj[k];
    for (int j = 0; j < pg.n_adj; j++) {
        adjncy[j] = pg.adj[j];
        adjwgt[j] = (idx_t)scaled(pg.ewt[j], es);
    }
    for (int k = 0; k < n; k++) {
        vwgt[k * ncon] = (idx_t)scaled(gr->cost_us[k], vs);
        if (ncon == 2)
            vwgt[k * ncon + 1] = (idx_t)scaled(bw[k], ms);
    }

    real_t *tpwgts = NULL;
    if (differ || ncon == 2) {
        /* Target shares: rates for cost, memory capacities for bytes. METIS
         * rejects (and prints about) a share <= 0 or shares not summing to 1,
         * so every share gets a small floor and each constraint is
         * normalised in float, the last device absorbing the rounding. */
        tpwgts = xmalloc_array((size_t)nd * (size_t)ncon, sizeof *tpwgts);
        double *want = xmalloc_array((size_t)nd, sizeof *want);
        for (int con = 0; con < ncon; con++) {
            double sum = 0;
            for (int d = 0; d < nd; d++) {
                double v = con == 0 ? (differ ? rate[d] : 1.0)
                                    : (double)(c->devices[d].memory_bytes > 0
                                                   ? c->devices[d].memory_bytes : 0);
                want[d] = isfinite(v) && v > 0 ? v : 0;
                sum += want[d];
            }
            double fsum = 0;
            for (int d = 0; d < nd; d++) {
                want[d] = sum > 0 ? want[d] / sum : 1.0 / nd;
                if (want[d] < 1e-4 / nd)
                    want[d] = 1e-4 / nd;
                fsum += want[d];
            }
            double acc = 0;
            for (int d = 0; d < nd; d++) {
                real_t share = (real_t)(want[d] / fsum);
                if (d == nd - 1 && 1.0 - acc > 0)
                    share = (real_t)(1.0 - acc);
                tpwgts[d * ncon + con] = share;
                acc += (double)share;
            }
        }
        free(want);
    }

    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = (idx_t)fold_seed(ctx->seed);
    options[METIS_OPTION_NUMBERING] = 0;

    int status = METIS_PartGraphKway(&nv, &ncon, xadj, adjncy, vwgt, NULL, adjwgt, &np,
                                     tpwgts, NULL, options, &objval, part);
    if (status != METIS_OK) {
        rc = err_set(e, "metis: METIS_PartGraphKway failed (%s) on %d groups, %d devices",
                     status == METIS_ERROR_INPUT    ? "input error"
                     : status == METIS_ERROR_MEMORY ? "out of memory"
                                                    : "error",
                     n, nd);
    } else {
        for (int k = 0; k < n; k++) {
            if (part[k] < 0 || part[k] >= nd) {
                rc = err_set(e, "metis: partition %d of group %d is out of range",
                             (int)part[k], k);
                break;
            }
            gd[k] = (int)part[k];
        }
    }
    free(tpwgts);
    free(part);
    free(vwgt);
    free(adjwgt);
    free(adjncy);
    free(xadj);
    free(bw);
    return rc;
}

/* --------------------------------------------------------------- Scotch */

static int partition_scotch(const PlaceCtx *ctx, const PartGraph *pgp, const double *rate, int differ,
                            int *gd, Err *e)
{
    const Grouping *gr = ctx->gr;
    const Cluster *c = ctx->c;
    int n = gr->n_groups, nd = c->n_devices, rc = 0;
    PartGraph pg = *pgp;
    double vs = weight_scale(gr->cost_us, n), es = weight_scale(pg.ewt, pg.n_adj);
    SCOTCH_Num *verttab = xmalloc_array((size_t)(n + 1), sizeof *verttab);
    SCOTCH_Num *velotab = xmalloc_array((size_t)n, sizeof *velotab);
    SCOTCH_Num *edgetab = xmalloc_array((size_t)pg.n_adj, sizeof *edgetab);
    SCOTCH_Num *edlotab = xmalloc_array((size_t)pg.n_adj, sizeof *edlotab);
    SCOTCH_Num *parttab = xmalloc_array((size_t)n, sizeof *parttab);
    SCOTCH_Num *archw = xmalloc_array((size_t)nd, sizeof *archw);
    for (int k = 0; k <= n; k++)
        verttab[k] = pg.xadj[k];
    for (int k = 0; k < n; k++)
        velotab[k] = (SCOTCH_Num)scaled(gr->cost_us[k], vs);
    for (int j = 0; j < pg.n_adj; j++) {
        edgetab[j] = pg.adj[j];
        edlotab[j] = (SCOTCH_Num)scaled(pg.ewt[j], es);
    }
    if (differ) {
        double mx = 0;
        for (int d = 0; d < nd; d++)
            if (rate[d] > mx)
                mx = rate[d];
        for (int d = 0; d < nd; d++) {
            double w = floor(rate[d] / mx * 10000.0 + 0.5);
            archw[d] = (SCOTCH_Num)(w < 1 ? 1 : w);
        }
    }

    SCOTCH_Graph graph, cgraph;
    SCOTCH_Arch arch;
    SCOTCH_Strat strat;
    SCOTCH_Context context;
    int have_graph = 0, have_cgraph = 0, have_arch = 0, have_strat = 0, have_ctx = 0;
    const char *what = NULL;

    /* A private context: one thread, deterministic, its own seeded random
     * generator (the library's global state is left alone). */
    if (SCOTCH_contextInit(&context) != 0) {
        what = "SCOTCH_contextInit";
        goto scotch_done;
    }
    have_ctx = 1;
    if (SCOTCH_contextRandomClone(&context) != 0) {
        what = "SCOTCH_contextRandomClone";
        goto scotch_done;
    }
    SCOTCH_contextRandomSeed(&context, (SCOTCH_Num)fold_seed(ctx->seed));
    SCOTCH_contextRandomReset(&context);
    SCOTCH_contextOptionSetNum(&context, SCOTCH_OPTIONNUMDETERMINISTIC, 1);
    if (SCOTCH_contextThreadSpawn(&context, 1, NULL) != 0) {
        what = "SCOTCH_contextThreadSpawn";
        goto scotch_done;
    }
    if (SCOTCH_graphInit(&graph) != 0) {
        what = "SCOTCH_graphInit";
        goto scotch_done;
    }
    have_graph = 1;
    if (SCOTCH_graphBuild(&graph, 0, n, verttab, NULL, velotab, NULL, pg.n_adj, edgetab,
                          edlotab) != 0) {
        what = "SCOTCH_graphBuild";
        goto scotch_done;
    }
    if (SCOTCH_graphCheck(&graph) != 0) {
        what = "SCOTCH_graphCheck";
        goto scotch_done;
    }
    if (SCOTCH_graphInit(&cgraph) != 0) {
        what = "SCOTCH_graphInit";
        goto scotch_done;
    }
    have_cgraph = 1;
    if (SCOTCH_contextBindGraph(&context, &graph, &cgraph) != 0) {
        what = "SCOTCH_contextBindGraph";
        goto scotch_done;
    }
    if (SCOTCH_archInit(&arch) != 0) {
        what = "SCOTCH_archInit";
        goto scotch_done;
    }
    have_arch = 1;
    if ((differ ? SCOTCH_archCmpltw(&arch, nd, archw) : SCOTCH_archCmplt(&arch, nd)) != 0) {
        what = differ ? "SCOTCH_archCmpltw" : "SCOTCH_archCmplt";
        goto scotch_done;
    }
    if (SCOTCH_stratInit(&strat) != 0) {
        what = "SCOTCH_stratInit";
        goto scotch_done;
    }
    have_strat = 1;
    if (SCOTCH_graphMap(&cgraph, &arch, &strat, parttab) != 0) {
        what = "SCOTCH_graphMap";
        goto scotch_done;
    }
    for (int k = 0; k < n; k++) {
        if (parttab[k] < 0 || parttab[k] >= nd) {
            rc = err_set(e, "scotch: device %d of group %d is out of range", (int)parttab[k], k);
            break;
        }
        gd[k] = (int)parttab[k];
    }

scotch_done:
    if (what)
        rc = err_set(e, "scotch: %s failed on %d groups, %d devices", what, n, nd);
    if (have_strat)
        SCOTCH_stratExit(&strat);
    if (have_arch)
        SCOTCH_archExit(&arch);
    if (have_cgraph)
        SCOTCH_graphExit(&cgraph);
    if (have_graph)
        SCOTCH_graphExit(&graph);
    if (have_ctx)
        SCOTCH_contextExit(&context);
    free(archw);
    free(parttab);
    free(edlotab);
    free(edgetab);
    free(velotab);
    free(verttab);
    return rc;
}

/* The common frame of both partitioners: the trivial cases without a
 * library, the undirected group graph, the library call, then groups to ops. */
static int place_partitioned(const PlaceCtx *ctx, int *op_device, Err *e,
                             int (*partition)(const PlaceCtx *, const PartGraph *, const double *, int, int *,
                                              Err *))
{
    int n = ctx->gr->n_groups, nd = ctx->c->n_devices, rc = 0;
    if (n == 0)
        return 0;
    double *rate = xmalloc_array((size_t)nd, sizeof *rate);
    int differ = device_rates(ctx, rate);
    int *gd = xmalloc_array((size_t)n, sizeof *gd);
    if (!place_trivial(ctx, rate, gd)) {
        PartGraph pg;
        part_graph_build(ctx->gr, &pg);
        rc = partition(ctx, &pg, rate, differ, gd, e);
        part_graph_free(&pg);
    }
    if (rc == 0)
        group_expand(ctx->gr, gd, op_device);
    free(gd);
    free(rate);
    return rc;
}

int place_metis(const PlaceCtx *ctx, int *op_device, Err *e)
{
    return place_partitioned(ctx, op_device, e, partition_metis);
}

int place_scotch(const PlaceCtx *ctx, int *op_device, Err *e)
{
    return place_partitioned(ctx, op_device, e, partition_scotch);
}
