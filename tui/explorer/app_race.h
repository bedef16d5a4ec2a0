/* app_race: the race of the placers in the explorer (the dialog DLG_RACE):
 * on the App's graph and cluster, every learned placer with a bundled
 * policy usable there (the graph's own Placeto, RNN and GDP policies, the
 * general Placeto policy, the learned list scheduler and the learned local
 * search) and every policy file of the baselines table's learned rows
 * (app_add_learned), each beside its untrained control, and the local
 * searches anneal and ils, run by the race (race.h) one slice of
 * simulations each per tick (on a terminal, as many as a frame's 20 ms
 * fit: app_race_tick) and drawn as a chart of the best runtime
 * against the placements simulated on a logarithmic axis, one line, glyph
 * and colour per method; a policy left out is named below it with why.
 * The legend scrolls (j/k, Down/Up) when it cannot list every lane, its
 * last row saying how many are cut. The final numbers are compare's rows
 * at the same budget and seed. `explore GRAPH --race [--budget N]`, the
 * key R, and the tour (app_race_open) open it. */
#ifndef PLACETO_APP_RACE_H
#define PLACETO_APP_RACE_H

#include "app.h"
#include "grid.h"
#include "race.h"

/* Ticks a race takes about, so that it shows as it advances. */
#define APP_RACE_TICKS 60
/* On a terminal: the time a tick's simulations may take (every lane's
 * together), and the wait for input between ticks, shorter while a tick
 * cannot fit a slice. */
#define APP_RACE_FRAME_S 0.02
#define APP_RACE_TICK_MS 50
#define APP_RACE_BUSY_MS 10

/* Opens the race with budget placements for each search (0: the
 * explorer's app_search_budget; < 0: the race already there, whatever its
 * budget, else the default) and shows it: a race already there with the
 * same budget and seed, made for the baselines' learned files as they
 * are, is shown again, else a new one starts. The tour
 * shows it as a stage by calling this when the stage is entered (the
 * race then advances on the timer's ticks, one slice per tick, while its
 * dialog is open) and app_dialog_close (or app_race_close) when it is
 * left. 0, or -1 with the message set. */
int app_race_open(App *a, int64_t budget);
/* Frees the race (the dialog closes). */
void app_race_close(App *a);
/* 1 while a race is shown and has lanes still running (not paused). */
int app_race_running(const App *a);
/* One tick. frame_s 0 (headless, tests): every running lane simulates one
 * more slice (budget / APP_RACE_TICKS), however long that takes, so the
 * frames are the same every run. frame_s > 0 (a terminal): the lanes go
 * on to a mark that grows by a step, for frame_s seconds at most (every
 * lane's time together, and one simulation of each at least), the step
 * halved when a tick ran out of time and doubled (up to a slice) when it
 * took under half of it; the key or signal waiting is read after at most
 * that. The lanes compute the same placements either way (race_run): only
 * how many of them a frame shows depends on the time. 1 when it changed
 * what is shown. */
int app_race_tick(App *a, double frame_s);
/* How long the main loop may wait for input before the race's next tick
 * (ms; -1: no race running): APP_RACE_TICK_MS while a tick does a slice,
 * APP_RACE_BUSY_MS while it cannot. */
int app_race_wait_ms(const App *a);
/* The race shown or last shown (NULL: none), with its budget and whether
 * it is paused (either pointer may be NULL). */
const Race *app_race_state(const App *a, int64_t *budget, int *paused);
/* A lane's name as the chart's legend gives it: the method, and for a
 * learned placer its policy file's name ("placeto (general_2)"). */
void app_race_lane_name(const RaceLane *l, char *buf, size_t n);
/* The dialog's halves (dialogs.c's table). */
int app_race_key(App *a, int key);
int app_race_draw(const App *a, Grid *g);

#endif
