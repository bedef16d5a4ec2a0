/* timeline: the simulator's per-device timeline (sim.h) drawn on a Grid
 * (grid.h): a time axis, and per device a compute lane, a critical-path mark
 * row and a lane for the transfers on its outgoing bus.
 *
 *            0         2 ms      4 ms      6 ms
 *            +---------+---------+---------+-----
 *   /GPU:0   [conv1####][bn1#]#.[relu]..[add##]
 *            ^^^^^^^^^^^        ^^^^^^
 *     bus     -d1->      >
 *
 * A Timeline is an index built once per simulation result: each device's ops
 * and each bus's transfers in start order, and the critical path (walking
 * back from the op that ends last through whatever released each op: a
 * parent on the same device, a transfer, or the previous op on the device;
 * for a transfer, its source op or the previous transfer on the bus). It
 * borrows the graph, cluster and result: they must outlive it, and a new
 * simulation (which reuses the SimResult) needs a new Timeline. tl_free()
 * releases only the index. Rendering allocates nothing and reads back the
 * grid it draws on, so its cost is the visible ops plus the lane cells. */
#ifndef PLACETO_TIMELINE_H
#define PLACETO_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "cluster.h"
#include "graph.h"
#include "grid.h"
#include "sim.h"

typedef struct Timeline {
    const Graph *g;       /* borrowed */
    const Cluster *c;     /* borrowed */
    const SimResult *r;   /* borrowed */
    int n_devices;
    int *dev_off, *dev_ops; /* ops of device d: dev_ops[dev_off[d] .. dev_off[d+1]), by start */
    int *bus_off, *bus_tr;  /* transfers from device d, likewise, by start */
    uint8_t *op_crit;     /* per op: 1 on the critical path */
    uint8_t *tr_crit;     /* per transfer: 1 on the critical path */
    double end_us;        /* the makespan */
} Timeline;

Timeline *tl_new(const Graph *g, const Cluster *c, const SimResult *r);
void tl_free(Timeline *t);

/* Rows of a timeline: the axis (2) and 3 per device. */
enum { TL_AXIS_ROWS = 2, TL_LANE_ROWS = 3 };

typedef struct TlView {
    double t0, t1;            /* the visible window in µs, t1 > t0 */
    GridRect dst;             /* where on the grid */
    int label_w;              /* width of the lane-name column (0: fitted to the names) */
    int first_device;         /* the top lane shown (vertical scroll) */
    const int *op_group;      /* per op: its group, or NULL */
    int selected_group;       /* ops of this group use GS_SELECTED (-1: none) */
    int by_group;             /* colour ops by group (GS_GROUP) instead of by device */
    const char *const *group_names; /* with op_group: label blocks by group, not op */
    const uint8_t *critical;  /* per op: marks to show instead of the computed path */
} TlView;

/* A view of the whole run [0, makespan] in dst. */
TlView tl_view_default(const Timeline *t, GridRect dst);

/* Draws the axis and the lanes from v->first_device on, clipped to v->dst.
 * An op gets the columns whose middle time it covers, or else the column of
 * its middle if no other op claims it; blocks wider than two cells show
 * their label. Idle time inside [0, makespan] is shaded (GS_IDLE). */
void tl_render(const Timeline *t, const TlView *v, Grid *g);

/* The time at the middle of grid column gx of a view (any column). */
double tl_time_at(const Timeline *t, const TlView *v, int gx);
/* The op drawn at grid cell (gx, gy) of a view, or -1. */
int tl_op_at(const Timeline *t, const TlView *v, int gx, int gy);

/* Zooms [*t0, *t1] by factor (< 1 zooms in) around time anchor, keeping the
 * window inside [0, max(limit, span)] and at least 1 µs wide. */
void tl_zoom(double *t0, double *t1, double factor, double anchor, double limit);
/* Shifts the window by dt µs, kept inside [0, limit] when it fits. */
void tl_pan(double *t0, double *t1, double dt, double limit);

/* The tick step (1, 2 or 5 times a power of ten µs) giving at least
 * min_cols columns between ticks for a window of span µs over width columns. */
double tl_tick_step(double span, int width, int min_cols);
/* A tick label for time us on a grid of step: "0", "250 µs", "1.5 ms",
 * "2 s"; the step picks the unit, the value as few decimals as it needs.
 * Returns the length in bytes. */
int tl_format_tick(char *buf, size_t cap, double us, double step);

#endif
