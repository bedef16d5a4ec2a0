/* draw: the explorer's view. app_draw renders a const App onto a Grid —
 * the status line, the panes in a layout that adapts to the size, the
 * message line, the open dialog (its draw half in dialogs.c) and the tour's
 * caption — and returns where the graph and the timeline landed, for the
 * controller's mouse clicks. Drawing writes nothing into the App and runs
 * no policy and no simulation: what it shows was computed by the model
 * (AppCache). */
#ifndef PLACETO_DRAW_H
#define PLACETO_DRAW_H

#include "app.h"

/* The last frame's click geometry. */
typedef struct AppGeom {
    int have_dag;   /* the graph pane was drawn, with this view */
    DagView dag;    /* dst: the pane's inside; style and critical are NULL (they die with the frame) */
    int have_tl;    /* the timeline pane was drawn, with this view */
    TlView tl;      /* dst: the pane's inside */
    int dialog_scroll; /* the open dialog's last first row (0: it all fits) */
    GridRect map;   /* the minimap's inside (w = 0: none shown) */
    int canvas_w, canvas_h; /* the canvas the map shows */
} AppGeom;

/* Renders the whole screen of a onto g (g's size is the screen's) and fills
 * geom (may be NULL). */
void app_draw(const App *a, Grid *g, AppGeom *geom);
/* One pane in r, framed and titled (for the presentation layout, present.c). */
void app_draw_pane(const App *a, Grid *g, AppPane p, GridRect r, AppGeom *geom);
/* The tour's caption (draw_tour.c): the band it takes in area (the screen
 * between the status and the message lines), opposite the stage's
 * subject, with the rest of area in rest (h 0: no caption); and the
 * caption drawn in that band. */
GridRect draw_tour_band(const App *a, GridRect area, GridRect *rest);
void draw_tour_caption(const App *a, Grid *g, GridRect r);
/* The presentation layout of the panes in area (present.c). */
void present_draw(const App *a, Grid *g, GridRect area, AppGeom *geom);

#endif
