/* dag_pav: candidate x coordinates of one zoom level (stage 4 of dag.h) by
 * layer sweeps.
 *
 * Each sweep places one layer at a time against the layer just placed: every
 * vertex wishes its port (box middle) at the weighted median port of its
 * neighbours there (edge weights 1, 2, 8 for real-real, real-dummy and
 * dummy-dummy segments, as in dot); the layer's order and minimum gaps are
 * constraints. Minimising the weighted squared distance to those wishes
 * under "x[i+1] >= x[i] + width[i] + gap" is an isotonic regression once
 * the prefix of widths and gaps is subtracted, solved exactly in linear time
 * by pooling adjacent violators. Sweeps go down, up, ..., down: the last one
 * aligns each layer with the one above, so chains run straight and fan-ins
 * sit under their inputs. The result stays close to the narrowest possible
 * width; long edges may jog where a layer is crowded. */
#include <math.h>
#include <stdlib.h>

#include "dag_impl.h"
#include "util.h"

/* Blocks of pooled vertices: weighted sum of targets, weight, length. */
typedef struct Pool {
    double *sum, *wt;
    int *len;
} Pool;

static int edge_weight(const DagLayout *L, int a, int b)
{
    int dummies = (a >= L->n) + (b >= L->n);
    return dummies == 2 ? 8 : dummies == 1 ? 2 : 1;
}

/* The weighted median port of v's neighbours above (up) or below; *wt gets
 * their total weight (0 when there are none: the wish is v's own port).
 * Neighbour lists are sorted left to right, so their ports are sorted. */
static double wish_of(const DagLayout *L, const DagGeom *G, int v, int up, double *wt)
{
    const int *off = up ? L->up_off : L->down_off, *nb = up ? L->up : L->down;
    double total = 0, acc = 0;
    for (int j = off[v]; j < off[v + 1]; j++)
        total += edge_weight(L, v, nb[j]);
    *wt = total;
    for (int j = off[v]; j < off[v + 1]; j++) {
        acc += edge_weight(L, v, nb[j]);
        if (2 * acc > total)
            return dag_port(L, G, nb[j]);
        if (2 * acc == total)
            return (dag_port(L, G, nb[j]) + dag_port(L, G, nb[j + 1])) / 2.0;
    }
    return dag_port(L, G, v);
}

/* Places layer l against its neighbours above (up) or below. */
static void place_layer(const DagLayout *L, DagGeom *G, int zoom, int l, int up, Pool *p)
{
    const int *ord = L->order + L->layer_off[l];
    int k = L->layer_off[l + 1] - L->layer_off[l], nblk = 0;
    double prefix = 0;
    for (int i = 0; i < k; i++) {
        int v = ord[i];
        if (i > 0)
            prefix += dag_vert_w(L, G, ord[i - 1]) + dag_sep(L, zoom, ord[i - 1], v);
        double w, target = wish_of(L, G, v, up, &w) - dag_port_off(L, G, v) - prefix;
        if (w == 0)
            w = 0.25; /* free to move, mild wish to stay */
        p->sum[nblk] = w * target;
        p->wt[nblk] = w;
        p->len[nblk++] = 1;
        while (nblk > 1 && p->sum[nblk - 2] / p->wt[nblk - 2] >= p->sum[nblk - 1] / p->wt[nblk - 1]) {
            p->sum[nblk - 2] += p->sum[nblk - 1];
            p->wt[nblk - 2] += p->wt[nblk - 1];
            p->len[nblk - 2] += p->len[nblk - 1];
            nblk--;
        }
    }
    prefix = 0;
    for (int b = 0, i = 0; b < nblk; b++) {
        long y = lround(floor(p->sum[b] / p->wt[b] + 0.5));
        for (int j = 0; j < p->len[b]; j++, i++) {
            if (i > 0)
                prefix += dag_vert_w(L, G, ord[i - 1]) + dag_sep(L, zoom, ord[i - 1], ord[i]);
            G->x[ord[i]] = (int)(y + (long)prefix);
        }
    }
}

void dag_place_x_pav(const DagLayout *L, DagGeom *G, int zoom, int sweeps)
{
    int widest = 1;
    for (int l = 0; l < L->n_layers; l++) { /* start left-packed */
        int x = 0, k = L->layer_off[l + 1] - L->layer_off[l];
        widest = k > widest ? k : widest;
        for (int i = L->layer_off[l]; i < L->layer_off[l + 1]; i++) {
            int v = L->order[i];
            if (i > L->layer_off[l])
                x += dag_sep(L, zoom, L->order[i - 1], v);
            G->x[v] = x;
            x += dag_vert_w(L, G, v);
        }
    }
    Pool p = {XMALLOC(double, widest), XMALLOC(double, widest), XMALLOC(int, widest)};
    for (int it = 0; it <= 2 * sweeps; it++) {
        int down = it % 2 == 0;
        for (int s = 1; s < L->n_layers; s++)
            place_layer(L, G, zoom, down ? s : L->n_layers - 1 - s, down, &p);
    }
    free(p.sum);
    free(p.wt);
    free(p.len);
}
