/* ctl: the explorer's controller. It maps input — keys, mouse clicks, timer
 * ticks — to calls of the model (app.h) and says what must happen next
 * (CTL_* flags); it never draws. Keys go, in this order, to the global keys
 * (Ctrl-L), the tour's keys while touring, replay's keys while replaying,
 * the open dialog's handler (dialogs.c), and the key table; every binding
 * of the tables carries the argument its action gets, so no action looks at
 * which key was pressed. The interactive and the headless runners
 * (cmd_explore.c) and the benchmark drive the explorer through these. */
#ifndef PLACETO_CTL_H
#define PLACETO_CTL_H

#include "app.h"
#include "draw.h"

/* What must happen after an input. */
enum {
    CTL_NOTHING = 0,
    CTL_REDRAW = 1,  /* draw a new frame */
    CTL_QUIT = 2,    /* leave the explorer */
    CTL_REPAINT = 4, /* repaint the whole terminal, not only what changed */
    CTL_RELOAD = 8,  /* replace the App by one opened with a->tour.next */
    CTL_SLIDE = 16   /* write the frame shown as a slide (slide.h; the runner has the frame) */
};

/* One key: a code point or a TERM_KEY_* value (term.h). */
int ctl_key(App *a, int key);
/* A mouse click on grid cell (x, y) with button (1 left, 4/5 wheel), on the
 * frame whose geometry is geom. */
int ctl_click(App *a, const AppGeom *geom, int x, int y, int button);
/* A timer tick (now in seconds): steps while running, plays a replay,
 * advances the tour, advances the race (frame_s: app_race_tick's; 0 on
 * the headless side, APP_RACE_FRAME_S on a terminal), polls background
 * training, autosaves once a minute. */
int ctl_tick(App *a, double now, double frame_s);
/* How long the main loop may wait for input before ctl_tick is due, in ms;
 * -1 when nothing runs (block until a key). */
int ctl_timeout_ms(const App *a);
/* Draws a frame (app_draw) and reports the graph's viewport to the model
 * (app_graph_shown). */
void ctl_frame(App *a, Grid *g, AppGeom *geom);

/* The key table's documentation, every command once in table order: the
 * help dialog is made from it. section: 0 episode (replay's keys when
 * replay is set), 1 view, 2 files, 3 other. */
typedef struct CtlKeyDoc {
    const char *keys; /* as shown in help, e.g. "space", "u", "0-9" */
    const char *help;
    int section;
} CtlKeyDoc;
const CtlKeyDoc *ctl_keys(int replay, int *count);
/* The title of key section s (0..CTL_KEY_SECTIONS-1), replay's own in
 * place of the episode's when replay. */
enum { CTL_KEY_SECTIONS = 4 };
/* The mouse's line of the help. */
#define CTL_MOUSE_HELP "Mouse: click a group or an op to select it; the wheel scrolls the graph."
const char *ctl_key_section(int s, int replay);
/* The tour's keys (help lists them first while touring; R once it was
 * left), as ctl_keys. */
const CtlKeyDoc *ctl_tour_keys(int *count);
/* Computes what a key or tick left pending (a slow tour stage, after a
 * frame with its busy sign); CTL_REDRAW when it did. */
int ctl_settle(App *a);

#endif
