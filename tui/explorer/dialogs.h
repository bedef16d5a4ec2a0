/* dialogs: the explorer's dialogs, one {key handler, draw} pair each: the
 * key half is controller (it maps a key to model calls and says what must
 * happen next, CTL_*), the draw half is view (it renders a const App). The
 * controller sends every key to the open dialog's handler; the view draws
 * the open dialog over the screen. */
#ifndef PLACETO_DIALOGS_H
#define PLACETO_DIALOGS_H

#include "app.h"
#include "grid.h"

typedef struct DialogDef {
    int (*key)(App *a, int key);            /* -> CTL_* flags */
    int (*draw)(const App *a, Grid *g);     /* over the screen drawn so far; returns the last
                                               first row it can scroll to (0: it all fits) */
} DialogDef;

/* The open dialog d's pair, or NULL for DLG_NONE. */
const DialogDef *dialog_def(AppDialog d);

#endif
