/* Folding a training graph (layouts/dag_fold.c) and the minimap
 * (layouts/dag_map.c): which groups fold where on the bundled training
 * graphs, that the folded layout of ResNet-18 reads as its network (few
 * long edges, against the hundreds of the layout of every group), that
 * folded cells are found and centred like boxes, determinism, graphs
 * without a backward pass, and the map's viewport and devices. */
#include <stdlib.h>

#include "dag.h"
#include "gen.h"
#include "group.h"
#include "test.h"

typedef struct Fold {
    Graph *g;
    Grouping *gr;
    int *host, folded;
    DagLayout *all, *fold;
} Fold;

static int fold_load(Fold *f, const char *path)
{
    Err e;
    memset(f, 0, sizeof *f);
    f->g = graph_load(path, &e);
    REQUIRE_OR(f->g != NULL, -1, "%s", e.msg);
    f->gr = group_build(f->g, 0, &e);
    REQUIRE_OR(f->gr != NULL, -1, "%s", e.msg);
    int n = f->gr->n_groups;
    f->host = XNEW(int, n + 1);
    f->folded = dag_fold_training(f->g, f->gr, f->host);
    DagOptions o;
    dag_options_default(&o);
    o.label_width = DAG_FOLD_LABEL_WIDTH;
    f->all = dag_layout(n, f->gr->succ_off, f->gr->succ, NULL);
    f->fold = dag_layout_folded(n, f->gr->succ_off, f->gr->succ, f->host, &o);
    return 0;
}

static void fold_free(Fold *f)
{
    dag_free(f->all);
    dag_free(f->fold);
    free(f->host);
    group_free(f->gr);
    graph_free(f->g);
}

/* Canvas cells of vertical runs of edges that span more than span layers:
 * the parallel lines of a training graph's forward-to-backward edges. */
static long long_edge_cells(const DagLayout *L, int zoom, int span)
{
    const DagGeom *G = dag_geom(L, zoom);
    long cells = 0;
    for (int e = 0; e < L->n_edges; e++) {
        if (L->layer[L->edge_dst[e]] - L->layer[L->edge_src[e]] <= span)
            continue;
        for (int i = G->pt_off[e]; i + 1 < G->pt_off[e + 1]; i++)
            if (G->pts[i].x == G->pts[i + 1].x)
                cells += abs(G->pts[i + 1].y - G->pts[i].y);
    }
    return cells;
}

TEST(fold_resnet18_reads_as_its_network)
{
    Fold f;
    if (fold_load(&f, "graphs/resnet18.json") == 0) {
        const Grouping *gr = f.gr;
        int n = gr->n_groups, backward = 0;
        for (int k = 0; k < n; k++) {
            int grad = strstr(gr->names[k], "/grad") != NULL;
            backward += grad;
            /* every gradient group beside a forward group, every forward group laid out */
            CHECK_MSG(grad ? f.host[k] != k && f.host[f.host[k]] == f.host[k] : f.host[k] == k,
                      "group %d %s has host %d", k, gr->names[k], f.host[k]);
            CHECK_INT(f.fold->host[k], f.host[k]);
        }
        CHECK_INT(f.folded, backward);
        CHECK_INT(f.folded, 51);
        /* the backward groups of a block sit beside that block's forward groups */
        CHECK_INT(f.host[group_find(gr, "layer2.0.conv2/grad_weight")], group_find(gr, "layer2.0.relu1"));
        CHECK_INT(f.host[group_find(gr, "conv1/grad_weight")], group_find(gr, "data"));
        for (int z = 0; z < DAG_ZOOMS; z++) {
            long all = long_edge_cells(f.all, z, 3), fold = long_edge_cells(f.fold, z, 3);
            const DagGeom *A = dag_geom(f.all, z), *F = dag_geom(f.fold, z);
            /* the layout of every group is mostly long parallel lines (19 200
             * cells on a 400-row canvas); the folded one has only the residual
             * connections beside the blocks (103 cells on 187 rows), and no
             * edge longer than a block */
            CHECK_MSG(all > 20L * A->height, "zoom %d: %ld long edge cells in the layout of every group", z, all);
            CHECK_MSG(fold <= F->height, "zoom %d: %ld long edge cells on a %d-row canvas", z, fold, F->height);
            CHECK_INT(long_edge_cells(f.fold, z, 6), 0);
            CHECK_MSG(F->width * 4 < A->width, "zoom %d: folded %d columns, every group %d", z, F->width, A->width);
        }
    }
    fold_free(&f);
}

TEST(fold_bundled_training_graphs)
{
    static const char *paths[] = {"graphs/inception_v3.json", "graphs/vgg16.json", "graphs/mobilenet_v2.json"};
    for (int p = 0; p < 3; p++) {
        Fold f;
        if (fold_load(&f, paths[p]) == 0) {
            int n = f.gr->n_groups, hosts = 0;
            CHECK_MSG(f.folded > n / 4, "%s: %d of %d groups folded", paths[p], f.folded, n);
            for (int k = 0; k < n; k++) {
                CHECK(f.host[k] >= 0 && f.host[k] < n && f.host[f.host[k]] == f.host[k]);
                hosts += f.host[k] == k;
            }
            CHECK_INT(hosts + f.folded, n);
            CHECK_INT(f.fold->sat_off[n], f.folded);
            CHECK_MSG(long_edge_cells(f.fold, DAG_FULL, 3) < long_edge_cells(f.all, DAG_FULL, 3) / 4, "%s", paths[p]);
        }
        fold_free(&f);
    }
}

TEST(fold_cells_found_and_centred)
{
    Fold f;
    if (fold_load(&f, "graphs/resnet18.json") == 0) {
        const DagLayout *L = f.fold;
        for (int z = 0; z < DAG_ZOOMS; z++)
            for (int u = 0; u < L->n; u++) {
                GridRect r = dag_node_rect(L, z, u);
                CHECK_INT(dag_node_at(L, z, r.x, r.y), u);
                CHECK_INT(dag_node_at(L, z, r.x + r.w - 1, r.y + r.h - 1), u);
                CHECK(r.x >= 0 && r.x + r.w <= dag_geom(L, z)->width && r.y + r.h <= dag_geom(L, z)->height);
                if (L->host[u] != u) { /* right of its host's box, in its layer */
                    GridRect h = dag_node_rect(L, z, L->host[u]);
                    CHECK(r.y == h.y && r.x > h.x + h.w);
                }
                int x, y;
                dag_center_on(L, z, u, 21, 9, &x, &y);
                CHECK(x >= 0 && y >= 0);
            }
        for (int l = 0; l < L->n_layers; l++) /* the boxes of a layer with their cells do not overlap */
            for (int i = L->layer_off[l]; i + 1 < L->layer_off[l + 1]; i++) {
                int a = L->order[i], b = L->order[i + 1];
                const DagGeom *G = dag_geom(L, DAG_FULL);
                int wa = a < L->n ? G->box_w + G->wext[a] : 1;
                CHECK(G->x[a] + wa < G->x[b]);
            }
        /* the same input, the same layout */
        DagOptions o;
        dag_options_default(&o);
        o.label_width = DAG_FOLD_LABEL_WIDTH;
        DagLayout *again = dag_layout_folded(L->n, f.gr->succ_off, f.gr->succ, f.host, &o);
        for (int z = 0; z < DAG_ZOOMS; z++) {
            CHECK(memcmp(dag_geom(again, z)->x, dag_geom(L, z)->x, (size_t)L->n_vert * sizeof(int)) == 0);
            CHECK_INT(dag_geom(again, z)->height, dag_geom(L, z)->height);
        }
        CHECK(memcmp(again->order, L->order, (size_t)L->layer_off[L->n_layers] * sizeof(int)) == 0);
        dag_free(again);
    }
    fold_free(&f);
}

TEST(fold_nothing_without_a_backward_pass)
{
    Fold f;
    if (fold_load(&f, "graphs/toy/crown.json") == 0) {
        CHECK_INT(f.folded, 0);
        /* folding nothing lays out like dag_layout */
        for (int z = 0; z < DAG_ZOOMS; z++) {
            CHECK_INT(f.fold->n_vert, f.all->n_vert);
            CHECK_INT(f.fold->n_layers, f.all->n_layers);
        }
        CHECK(memcmp(f.fold->order, f.all->order, (size_t)f.all->n_vert * sizeof(int)) == 0);
    }
    fold_free(&f);
    DagLayout *L = dag_layout_folded(0, NULL, NULL, NULL, NULL);
    CHECK(L->n == 0 && L->n_layers == 0);
    dag_free(L);
    /* a random DAG with every odd node folded beside the node before it */
    Graph *g = gen_random_dag(80, 1.5, 7);
    int n = g->n_nodes, *off = XNEW(int, n + 1), *host = XNEW(int, n);
    for (int i = 0; i < n; i++) {
        off[i + 1] = off[i] + g->nodes[i].n_children;
        host[i] = i % 2 ? i - 1 : i;
    }
    int *succ = XMALLOC(int, off[n] + 1);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < g->nodes[i].n_children; k++)
            succ[off[i] + k] = g->nodes[i].children[k];
    L = dag_layout_folded(n, off, succ, host, NULL);
    for (int u = 0; u < n; u++)
        for (int z = 0; z < DAG_ZOOMS; z++) {
            GridRect r = dag_node_rect(L, z, u);
            CHECK_INT(dag_node_at(L, z, r.x, r.y), u);
        }
    for (int e = 0; e < L->n_edges; e++) /* only the edges between two hosts */
        CHECK(L->edge_src[e] % 2 == 0 && L->edge_dst[e] % 2 == 0);
    dag_free(L);
    free(off);
    free(succ);
    free(host);
    graph_free(g);
}

TEST(fold_map_shows_the_viewport_and_devices)
{
    Fold f;
    if (fold_load(&f, "graphs/resnet18.json") == 0) {
        int n = f.gr->n_groups, w, h, *dev = XNEW(int, n);
        for (int k = 0; k < n; k++)
            dev[k] = k % 3;
        dag_map_fit(f.fold, DAG_FULL, 20, 30, &w, &h);
        CHECK(w >= DAG_MAP_MIN_W && w <= 20 && h == 30);
        Grid *g = grid_new(w, h);
        DagView v = {DAG_FULL, 0, 0, {0, 0, 60, 40}, NULL, dev, NULL, NULL, 1, NULL};
        dag_render_map(f.fold, &v, (GridRect){0, 0, w, h}, g);
        int shaded = 0, digits[3] = {0, 0, 0};
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const GridCell *c = grid_at(g, x, y);
                shaded += c->ch == GRID_SHADE;
                if (c->ch >= '0' && c->ch <= '2') {
                    digits[c->ch - '0']++;
                    CHECK(c->style == GS_DEVICE && c->device == c->ch - '0');
                }
            }
        CHECK(shaded > 0);
        for (int y = 0; y < h; y++) /* the viewport: the top rows only */
            CHECK(y < h * 40 / dag_geom(f.fold, DAG_FULL)->height + 2 || grid_at(g, 0, y)->ch != GRID_SHADE);
        for (int d = 0; d < 3; d++)
            CHECK_MSG(digits[d] > 10, "device %d: %d cells", d, digits[d]);
        grid_free(g);
        free(dev);
    }
    fold_free(&f);
}
