/* Golden renders (tests/data/golden/NAME.txt, ASCII glyphs): the group graphs of the
 * toy graphs and of two bundled graphs in both zoom levels, through a fixed
 * 120x40 viewport (toys: at the top-left; bundled graphs: centred on the
 * first group, and on a middle group marked current), the bundled training
 * graphs folded (dag_fold.c: the forward pass, the backward groups beside
 * it) with the minimap of the folded and of the whole layout, and their
 * 2-device timelines. Group k sits on device k % 2. A mismatch prints the first
 * differing lines and writes the render to build/golden/; `make
 * update-golden` (PLACETO_UPDATE_GOLDEN=1) rewrites the files instead, for
 * review in the diff. */
#include <stdlib.h>
#include <sys/stat.h>

#include "dag.h"
#include "group.h"
#include "sim.h"
#include "test.h"
#include "timeline.h"

enum { VIEW_W = 120, VIEW_H = 40, TL_W = 120 };

/* Prints where expected and got first differ (up to 4 differing lines). */
static void diff_hint(const char *name, const char *want, const char *got)
{
    int line = 1, shown = 0, differ = 0;
    while (*want || *got) {
        size_t a = strcspn(want, "\n"), b = strcspn(got, "\n");
        if (a != b || memcmp(want, got, a) != 0) {
            differ++;
            if (shown++ < 4)
                fprintf(stderr, "  %s line %d:\n    - %.*s\n    + %.*s\n", name, line, (int)a, want, (int)b, got);
        }
        want += a + (want[a] == '\n');
        got += b + (got[b] == '\n');
        line++;
    }
    fprintf(stderr, "  %d line(s) differ\n", differ);
}

static void golden(const char *name, const char *text)
{
    char path[256], out[256];
    snprintf(path, sizeof path, "tests/data/golden/%s.txt", name);
    Err e;
    if (getenv("PLACETO_UPDATE_GOLDEN")) {
        mkdir("tests/data/golden", 0777);
        CHECK_MSG(util_write_atomic(path, text, strlen(text), &e) == 0, "%s", e.msg);
        return;
    }
    char *want = util_read_file(path, NULL, &e);
    CHECK_MSG(want != NULL, "%s (run `make update-golden` to create it)", e.msg);
    if (want && strcmp(want, text) != 0) {
        diff_hint(path, want, text);
        mkdir("build", 0777);
        mkdir("build/golden", 0777);
        snprintf(out, sizeof out, "build/golden/%s.txt", name);
        util_write_atomic(out, text, strlen(text), &e);
        test_fail(__FILE__, __LINE__, "%s differs from the render: diff -u %s %s; `make update-golden` accepts it",
                  path, path, out);
    }
    free(want);
}

typedef struct Case {
    Graph *g;
    Grouping *gr;
    DagLayout *L;
    DagLayout *F; /* folded */
    char **labels;
    int *dev;
} Case;

static int case_load(Case *c, const char *path)
{
    Err e;
    memset(c, 0, sizeof *c);
    c->g = graph_load(path, &e);
    REQUIRE_OR(c->g != NULL, -1, "%s", e.msg);
    c->gr = group_build(c->g, 0, &e);
    REQUIRE_OR(c->gr != NULL, -1, "%s", e.msg);
    int n = c->gr->n_groups;
    c->labels = XMALLOC(char *, n);
    c->dev = XMALLOC(int, n);
    for (int k = 0; k < n; k++) {
        c->labels[k] = dag_short_label(c->gr->names[k]);
        c->dev[k] = k % 2;
    }
    c->L = dag_layout(n, c->gr->succ_off, c->gr->succ, NULL);
    int *host = XNEW(int, n + 1);
    dag_fold_training(c->g, c->gr, host);
    DagOptions o;
    dag_options_default(&o);
    o.label_width = DAG_FOLD_LABEL_WIDTH;
    c->F = dag_layout_folded(n, c->gr->succ_off, c->gr->succ, host, &o);
    free(host);
    return 0;
}

static void case_free(Case *c)
{
    for (int k = 0; c->labels && k < c->gr->n_groups; k++)
        free(c->labels[k]);
    free(c->labels);
    free(c->dev);
    dag_free(c->L);
    dag_free(c->F);
    group_free(c->gr);
    graph_free(c->g);
}

/* One DAG golden: the view at the top-left (center < 0) or centred on node
 * `center`, which is the current node when `current` is set. */
static void dag_golden(const Case *c, const DagLayout *L, const char *name, int zoom, int center, int current)
{
    const DagGeom *G = dag_geom(L, zoom);
    int x = 0, y = 0, n = c->gr->n_groups;
    uint8_t *style = XNEW(uint8_t, n);
    if (center >= 0)
        dag_center_on(L, zoom, center, VIEW_W, VIEW_H, &x, &y);
    if (center >= 0 && current)
        style[center] = GS_CURRENT;
    Grid *g = grid_new(VIEW_W, VIEW_H);
    DagView v = {zoom, x, y, {0, 0, VIEW_W, VIEW_H}, (const char *const *)c->labels, c->dev, style, NULL, 1, NULL};
    dag_render(L, &v, g);
    char *text = grid_to_text(g, GRID_ASCII), head[200];
    snprintf(head, sizeof head, "# %s: %d groups, %s%s view %dx%d at (%d, %d) of a %dx%d canvas%s\n", c->g->name, n,
             L->host ? "folded " : "", zoom == DAG_FULL ? "full" : "compact", VIEW_W, VIEW_H, x, y, G->width, G->height,
             center < 0 ? "" : current ? ", centred on the current group" : ", centred on the first group");
    StrBuf b = {0};
    sb_puts(&b, head);
    sb_puts(&b, text);
    golden(name, b.s);
    sb_free(&b);
    free(text);
    grid_free(g);
    free(style);
}

/* The minimaps (24x36 at most) of the folded layout and of the whole one, in
 * both zoom levels, side by side, each with a 120x40 viewport centred on the
 * middle group (marked current). */
static void map_golden(const Case *c, const char *name)
{
    enum { MW = 24, MH = 36 };
    int n = c->gr->n_groups, mid = n / 2;
    uint8_t *style = XNEW(uint8_t, n);
    style[mid] = GS_CURRENT;
    Grid *g = grid_new(4 * (MW + 2), MH);
    StrBuf b = {0};
    sb_printf(&b, "# %s: minimaps of the folded full, folded compact, full and compact views, 120x40 viewports centred on group %d\n",
              c->g->name, mid);
    for (int k = 0; k < 4; k++) {
        const DagLayout *L = k < 2 ? c->F : c->L;
        int zoom = k % 2, w, h, x, y;
        dag_map_fit(L, zoom, MW, MH, &w, &h);
        dag_center_on(L, zoom, mid, VIEW_W, VIEW_H, &x, &y);
        DagView v = {zoom, x, y, {0, 0, VIEW_W, VIEW_H}, NULL, c->dev, style, NULL, 1, NULL};
        dag_render_map(L, &v, (GridRect){k * (MW + 2), 0, w, h}, g);
        sb_printf(&b, "# map %d: %dx%d of a %dx%d canvas\n", k, w, h, dag_geom(L, zoom)->width, dag_geom(L, zoom)->height);
    }
    char *text = grid_to_text(g, GRID_ASCII);
    sb_puts(&b, text);
    golden(name, b.s);
    sb_free(&b);
    free(text);
    grid_free(g);
    free(style);
}

/* One timeline golden over [t0, t1] (t1 <= 0: the whole run). */
static void tl_golden(const Case *c, const char *name, double f0, double f1, int select)
{
    Cluster *cl = cluster_default(2);
    int *op_dev = XMALLOC(int, c->g->n_nodes);
    for (int i = 0; i < c->g->n_nodes; i++)
        op_dev[i] = c->dev[c->gr->op_group[i]];
    Sim *s = sim_new(c->g, cl);
    const SimResult *r = sim_run(s, op_dev);
    Timeline *t = tl_new(c->g, cl, r);
    int h = TL_AXIS_ROWS + 2 * TL_LANE_ROWS;
    Grid *g = grid_new(TL_W, h);
    TlView v = tl_view_default(t, (GridRect){0, 0, TL_W, h});
    v.t0 = f0 * r->makespan_us;
    v.t1 = f1 * r->makespan_us;
    v.op_group = c->gr->op_group;
    v.group_names = (const char *const *)c->labels;
    v.selected_group = select;
    v.by_group = select >= 0;
    tl_render(t, &v, g);
    char *text = grid_to_text(g, GRID_ASCII), ms[32];
    StrBuf b = {0};
    sb_printf(&b, "# %s: 2 devices, makespan %s, window [%.6g, %.6g] us%s\n", c->g->name, util_fmt_time(ms, r->makespan_us),
              v.t0, v.t1, select >= 0 ? ", coloured by group, one group selected" : "");
    sb_puts(&b, text);
    golden(name, b.s);
    sb_free(&b);
    free(text);
    grid_free(g);
    tl_free(t);
    sim_free(s);
    free(op_dev);
    cluster_free(cl);
}

TEST(golden_toy_graphs)
{
    static const char *toys[] = {"chain", "crown", "diamond"};
    for (int k = 0; k < 3; k++) {
        char path[128], name[128];
        snprintf(path, sizeof path, "graphs/toy/%s.json", toys[k]);
        Case c;
        if (case_load(&c, path) == 0) {
            snprintf(name, sizeof name, "dag_%s_full", toys[k]);
            dag_golden(&c, c.L, name, DAG_FULL, -1, 0);
            snprintf(name, sizeof name, "dag_%s_compact", toys[k]);
            dag_golden(&c, c.L, name, DAG_COMPACT, -1, 0);
            snprintf(name, sizeof name, "tl_%s", toys[k]);
            tl_golden(&c, name, 0, 1, -1);
        }
        case_free(&c);
    }
}

static void bundled(const char *stem)
{
    char path[128], name[128];
    snprintf(path, sizeof path, "graphs/%s.json", stem);
    Case c;
    if (case_load(&c, path) == 0) {
        int mid = c.gr->n_groups / 2;
        static const char *zn[2] = {"full", "compact"};
        for (int z = 0; z < DAG_ZOOMS; z++) {
            snprintf(name, sizeof name, "dag_%s_%s_top", stem, zn[z]);
            dag_golden(&c, c.L, name, z, 0, 0); /* the top: the canvas' top-left is mostly long edges */
            snprintf(name, sizeof name, "dag_%s_%s_center", stem, zn[z]);
            dag_golden(&c, c.L, name, z, mid, 1);
            /* folded: the forward pass from the top; centred on a backward group (a cell) */
            snprintf(name, sizeof name, "dag_%s_fold_%s_top", stem, zn[z]);
            dag_golden(&c, c.F, name, z, 0, 0);
            snprintf(name, sizeof name, "dag_%s_fold_%s_center", stem, zn[z]);
            dag_golden(&c, c.F, name, z, c.gr->n_groups * 3 / 4, 1);
        }
        snprintf(name, sizeof name, "dag_%s_maps", stem);
        map_golden(&c, name);
        snprintf(name, sizeof name, "tl_%s", stem);
        tl_golden(&c, name, 0, 1, -1);
        snprintf(name, sizeof name, "tl_%s_zoom", stem);
        tl_golden(&c, name, 0.25, 0.30, mid);
    }
    case_free(&c);
}

TEST(golden_resnet18)
{
    bundled("resnet18");
}

TEST(golden_inception_v3)
{
    bundled("inception_v3");
}
