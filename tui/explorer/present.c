/* present: the explorer's presentation layout (P, --present; draw.h), for
 * a projector where the terminal has few, large cells: fewer panes — the
 * graph with the policy's probabilities beside it, a tall timeline whose
 * compute lanes are several rows high, and a legend strip that says what
 * the colours and glyphs mean (the devices' colours, the timeline's
 * glyphs, the graph's highlights). Drawn from the App alone, like the rest
 * of the view. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"

enum { LEGEND_ROWS = 3, MAX_LANE_H = 4 };

/* Writes s at (*x, y) in pen and moves *x past it and a gap; nothing when
 * it would cross right. */
static void item(Grid *g, int *x, int y, int right, const char *s, int pen)
{
    int w = grid_text_width(s);
    if (*x + w > right)
        return;
    grid_text(g, *x, y, s, pen);
    *x += w;
}

/* A sample of a symbol (n cells of ch in pen), then its meaning. */
static void sample(Grid *g, int *x, int y, int right, uint32_t ch, int n, int pen, const char *what)
{
    int w = n + 1 + grid_text_width(what) + 3;
    if (*x + w > right)
        return;
    for (int k = 0; k < n; k++)
        grid_put(g, *x + k, y, ch, pen);
    grid_text(g, *x + n + 1, y, what, GS_LABEL);
    *x += w;
}

/* A word in a highlight's style, then its meaning. */
static void styled(Grid *g, int *x, int y, int right, const char *word, int pen, const char *what)
{
    char buf[160];
    snprintf(buf, sizeof buf, " %s ", word);
    int w = grid_text_width(buf) + 1 + grid_text_width(what) + 3;
    if (*x + w > right)
        return;
    grid_text(g, *x, y, buf, pen);
    grid_text(g, *x + grid_text_width(buf) + 1, y, what, GS_LABEL);
    *x += w;
}

/* The legend strip in r (up to LEGEND_ROWS rows): devices, the timeline's
 * glyphs, the graph's highlights as this frame uses them. */
static void draw_legend(const App *a, Grid *g, GridRect r)
{
    int right = r.x + r.w, y = r.y;
    grid_hline(g, r.x, y, r.w, GS_BORDER);
    grid_text(g, r.x + 2, y, " Legend ", GS_TITLE);
    if (++y >= r.y + r.h)
        return;
    const Cluster *c = a->data.pb.c;
    int x = r.x + 1;
    item(g, &x, y, right, a->view.tl_by_group ? "ops by group; devices: " : "devices: ", GS_DIM);
    for (int d = 0; d < c->n_devices; d++) {
        char name[80];
        snprintf(name, sizeof name, "%d %s", d, c->devices[d].name);
        int w = 3 + 1 + grid_text_width(name) + 2;
        if (x + w > right) {
            item(g, &x, y, right, "...", GS_DIM);
            break;
        }
        for (int k = 0; k < 3; k++)
            grid_put(g, x + k, y, GRID_FULL, GRID_PEN(GS_DEVICE, d));
        grid_text(g, x + 4, y, name, GS_LABEL);
        x += w;
    }
    if (++y >= r.y + r.h)
        return;
    x = r.x + 1;
    item(g, &x, y, right, "timeline: ", GS_DIM);
    sample(g, &x, y, right, GRID_SHADE, 3, GS_IDLE, "idle");
    sample(g, &x, y, right, GRID_MARK, 3, GS_CRITICAL, "critical path");
    sample(g, &x, y, right, GRID_DOUBLE, 3, GS_CRITICAL, "critical transfer");
    sample(g, &x, y, right, GRID_ARROW_RIGHT, 1, GS_TRANSFER, "transfer on the bus");
    sample(g, &x, y, right, GRID_FULL, 3, GRID_PEN(GS_SELECTED, 0), "the selected group's ops");
    if (++y >= r.y + r.h)
        return;
    x = r.x + 1;
    item(g, &x, y, right, "graph: ", GS_DIM);
    styled(g, &x, y, right, "name", GS_CURRENT, "the group the policy places now");
    styled(g, &x, y, right, "name", GS_SELECTED, "selected (0-9 moves it)");
    if (a->view.show_sets && app_placeto_insides(a)) {
        styled(g, &x, y, right, "anc", GS_ANCESTOR, "ancestors");
        styled(g, &x, y, right, "desc", GS_DESCENDANT, "descendants");
        styled(g, &x, y, right, "par", GS_PARALLEL, "parallel");
    } else if (!app_placeto_insides(a)) {
        styled(g, &x, y, right, "name", GS_DIM, "not reached yet");
    }
    item(g, &x, y, right, "a node's colour: its device", GS_DIM);
}

/* Copies row sy of src into row dy of g; a filler copy (fill 1) keeps
 * blocks, shades, lines and the fills of coloured cells but not text, so a
 * lane reads as one tall bar with its labels on the middle row. */
static void copy_row(Grid *g, int dy, const Grid *src, int sy, int fill)
{
    for (int x = 0; x < src->w && x < g->w; x++) {
        GridCell c = src->cells[(size_t)sy * (size_t)src->w + (size_t)x];
        int shape = GRID_IS_LINE(c.ch) || c.ch == GRID_FULL || c.ch == GRID_BLOCK_L || c.ch == GRID_BLOCK_R ||
                    c.ch == GRID_SHADE; /* what continues down a tall lane; text and marks do not */
        if (fill && !shape && c.ch != ' ') {
            int keep = c.style == GS_DEVICE || c.style == GS_GROUP || c.style == GS_SELECTED;
            c.ch = ' ';
            if (!keep) {
                c.style = GS_NONE;
                c.device = 0;
            }
        }
        g->cells[(size_t)dy * (size_t)g->w + (size_t)x] = c;
    }
}

/* The timeline pane in r, its compute lanes up to MAX_LANE_H rows high:
 * drawn at the usual size on a scratch grid, then stretched. Clicks on it
 * are not mapped (geom->have_tl stays 0). */
static void draw_tall_timeline(const App *a, Grid *g, GridRect r)
{
    int nd = a->data.pb.c->n_devices;
    int natural = 2 + TL_AXIS_ROWS + TL_LANE_ROWS * nd;
    int extra = r.h - natural, lane_h = 1 + (nd > 0 && extra > 0 ? extra / nd : 0);
    if (lane_h > MAX_LANE_H)
        lane_h = MAX_LANE_H;
    if (lane_h <= 1) {
        app_draw_pane(a, g, PANE_TIMELINE, r, NULL);
        return;
    }
    Grid *src = grid_new(r.x + r.w, natural);
    AppGeom scratch;
    memset(&scratch, 0, sizeof scratch);
    app_draw_pane(a, src, PANE_TIMELINE, (GridRect){r.x, 0, r.w, natural}, &scratch);
    int dy = r.y;
    for (int sy = 0; sy < natural && dy < r.y + r.h; sy++) {
        int lane_row = sy - 1 - TL_AXIS_ROWS; /* the compute row of a lane: lane_row % 3 == 0 */
        int compute = sy > TL_AXIS_ROWS && sy < natural - 1 && lane_row % TL_LANE_ROWS == 0;
        if (!compute) {
            copy_row(g, dy++, src, sy, 0);
            continue;
        }
        int mid = (lane_h - 1) / 2;
        for (int k = 0; k < lane_h && dy < r.y + r.h; k++)
            copy_row(g, dy++, src, sy, k != mid);
    }
    grid_free(src);
}

void present_draw(const App *a, Grid *g, GridRect area, AppGeom *geom)
{
    int nd = a->data.pb.c->n_devices;
    int legend = area.h >= 20 ? LEGEND_ROWS + 1 : area.h >= 14 ? 2 : 0;
    GridRect panes = {area.x, area.y, area.w, area.h - legend};
    /* the timeline: 55% of the panes (more when its lanes need it), its lanes
     * stretched into what is left over */
    int natural = 2 + TL_AXIS_ROWS + TL_LANE_ROWS * nd;
    int tl_h = panes.h * 55 / 100;
    if (natural > tl_h) /* every lane shown when the graph keeps 6 rows */
        tl_h = natural < panes.h - 6 ? natural : panes.h - 6;
    int tall = natural + (MAX_LANE_H - 1) * nd;
    if (tl_h > tall)
        tl_h = tall;
    if (tl_h < 6)
        tl_h = 6;
    if (nd > 0 && tl_h > natural) /* whole lanes: what is left goes to the graph */
        tl_h = natural + (tl_h - natural) / nd * nd;
    int top_h = panes.h - tl_h;
    /* the policy's probabilities beside the graph when there is room */
    int pol_w = area.w >= 90 ? 34 : 0;
    if (top_h >= 5)
        app_draw_pane(a, g, PANE_GRAPH, (GridRect){panes.x, panes.y, panes.w - pol_w, top_h}, geom);
    if (pol_w && top_h >= 5)
        app_draw_pane(a, g, PANE_POLICY, (GridRect){panes.x + panes.w - pol_w, panes.y, pol_w, top_h}, geom);
    draw_tall_timeline(a, g, (GridRect){panes.x, panes.y + top_h, panes.w, tl_h});
    if (legend)
        draw_legend(a, g, (GridRect){area.x, area.y + area.h - legend, area.w, legend});
}
