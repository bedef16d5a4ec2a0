/* The explorer's "why this device" panel, its App driven headless through
 * the controller (ctl.h) as the runners and the benchmark drive it, the
 * simulations counted with the simulator's observer: the panel's runtimes
 * per device are simulated when the step changes (the panel opened, an
 * undo, a step), once per device, and never by drawing: repaints (Ctrl-L),
 * resizes, the rounds of message passing and the tour's caption redraw
 * what the model computed. */
#include <stdint.h>
#include <stdlib.h>

#include "ctl.h"
#include "sim.h"
#include "term.h"
#include "test.h"
#include "testutil.h"

enum { KEY_CTRL_L = 0x0c, CROWN_DEVICES = 2 };

static void count_fn(void *ud, double makespan_us, const SimResult *r)
{
    (void)makespan_us;
    (void)r;
    ++*(int64_t *)ud;
}

/* The crown with the bundled general policy on 2 devices; with tour_stage
 * >= 0, the tour at that stage on it. Its episode file in t. */
static App *open_crown(const TmpDir *t, int tour_stage)
{
    static char path[256];
    tmp_file(path, sizeof path, t, "crown.episode.json");
    AppOptions o = {0};
    o.graph_path = "graphs/toy/crown.json";
    o.policy_path = "graphs/policies/general_2.json";
    o.n_devices = CROWN_DEVICES;
    o.seed = 1;
    o.episode_path = path;
    if (tour_stage >= 0) {
        o.demo = 1;
        o.demo_own_graph = 1;
        o.demo_stage = tour_stage;
    }
    Err e = {{0}};
    App *a = app_new(&o, &e);
    CHECK_MSG(a != NULL, "%s", e.msg);
    return a;
}

/* The simulations of n keys, each followed by a frame (key 0: none, a
 * frame alone). */
static int64_t sims_of(App *a, Grid *g, const int *keys, int n)
{
    int64_t count = 0;
    AppGeom geom;
    sim_observe(count_fn, &count);
    for (int k = 0; k < n; k++) {
        if (keys[k])
            ctl_key(a, keys[k]);
        ctl_frame(a, g, &geom);
    }
    sim_observe(NULL, NULL);
    return count;
}

/* Redraws without a change of step: ten repaints, three resizes (back to
 * the first size), rounds of message passing forwards and back: the
 * simulations they made; the screen after them in *after (the caller frees). */
static int64_t redraw_sims(App *a, Grid *g, int j_key, int k_key, char **after)
{
    int repaint[10], rounds[4] = {j_key, j_key, k_key, k_key}, w = g->w, h = g->h;
    for (int k = 0; k < 10; k++)
        repaint[k] = KEY_CTRL_L;
    int64_t n = sims_of(a, g, repaint, 10);
    const int sizes[3][2] = {{100, 30}, {80, 24}, {w, h}};
    for (int k = 0; k < 3; k++) {
        grid_resize(g, sizes[k][0], sizes[k][1]);
        n += sims_of(a, g, (int[]){0}, 1);
    }
    n += sims_of(a, g, rounds, 4);
    *after = grid_to_text(g, GRID_ASCII);
    return n;
}

TEST(why_panel_simulates_per_step_not_per_frame)
{
    TmpDir t;
    REQUIRE(tmp_open(&t, "placeto_why"));
    App *a = open_crown(&t, -1);
    if (!a) {
        tmp_close(&t);
        return;
    }
    Grid *g = grid_new(130, 40);
    AppGeom geom;
    ctl_frame(a, g, &geom);
    /* two policy steps, then the panel: one simulation per device */
    sims_of(a, g, (int[]){' ', ' '}, 2);
    int64_t open = sims_of(a, g, (int[]){'w'}, 1);
    CHECK_INT(open, CROWN_DEVICES);
    char *first = grid_to_text(g, GRID_ASCII), *after;
    CHECK(strstr(first, "Why this device: b1.relu") != NULL);
    CHECK(strstr(first, "if here:") != NULL);
    /* redraws of the same step simulate nothing and draw the same screen */
    CHECK_INT(redraw_sims(a, g, ' ', ',', &after), 0);
    CHECK(strcmp(first, after) == 0);
    free(after);
    /* the step before (Left undoes): its devices once, then redraws nothing */
    int64_t back = sims_of(a, g, (int[]){TERM_KEY_LEFT}, 1);
    CHECK_INT(back, 1 + CROWN_DEVICES); /* the episode's own simulation of the undone placement, and the panel's */
    char *prev = grid_to_text(g, GRID_ASCII);
    CHECK(strstr(prev, "Why this device: b1.conv") != NULL);
    CHECK_INT(redraw_sims(a, g, ' ', ',', &after), 0);
    CHECK(strcmp(prev, after) == 0);
    free(after);
    free(prev);
    /* closed and opened again on the same step: the runtimes are the cached ones */
    CHECK_INT(sims_of(a, g, (int[]){TERM_KEY_ESC, 'w'}, 2), 0);
    free(first);
    grid_free(g);
    app_free(a);
    tmp_close(&t);
}

TEST(why_panel_in_the_tour_redraws_without_simulating)
{
    TmpDir t;
    REQUIRE(tmp_open(&t, "placeto_why"));
    int n_stages, stage = -1;
    app_tour_stage(0, &n_stages);
    for (int k = 0; k < n_stages && stage < 0; k++)
        if (app_tour_stage(k, &n_stages)->extra == TOUR_ROUNDS)
            stage = k;
    REQUIRE(stage >= 0);
    App *a = open_crown(&t, stage);
    if (!a) {
        tmp_close(&t);
        return;
    }
    ctl_settle(a);
    Grid *g = grid_new(120, 40);
    CHECK(sims_of(a, g, (int[]){0}, 1) == 0); /* the tour set the stage up: the panel computed then */
    char *first = grid_to_text(g, GRID_ASCII), *after;
    CHECK(strstr(first, "Why this device") != NULL);
    CHECK_INT(redraw_sims(a, g, 'j', 'k', &after), 0);
    CHECK(strcmp(first, after) == 0);
    free(after);
    free(first);
    grid_free(g);
    app_free(a);
    tmp_close(&t);
}
