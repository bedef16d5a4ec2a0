/* app_race: the race of the placers in the explorer (app_race.h). */
#include "app_race.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chart.h"
#include "ctl.h"
#include "data.h"
#include "race.h"
#include "term.h"
#include "widgets.h"

/* The bundled policies (6 at most) and the baselines table's learned ones
 * (APP_LEARNED_MAX at most), each with its control, and the 2 searches. */
enum { RACE_MAX_POLICIES = 6 + APP_LEARNED_MAX, RACE_MAX_LANES = 2 * RACE_MAX_POLICIES + 2 };

typedef struct AppRace {
    Race *race;
    AgentPolicy pol[RACE_MAX_POLICIES];
    int n_pol;
    int64_t budget, slice, ticks;
    int64_t mark;                       /* the simulations every lane runs to: a slice more a tick, or on a
                                           terminal a step more once every lane is there */
    int64_t step;                       /* on a terminal: what one frame's time fits (1 to slice) */
    int behind;                         /* the last tick ran out of its time before every lane was at mark */
    uint64_t seed;
    int paused;
    int legend_first, legend_first_max; /* the legend scrolled (j/k) when it cannot list every lane */
    char *learned[APP_LEARNED_MAX];     /* the baselines' learned files it races (a new list: a new race) */
    int n_learned;
    char skipped[1024];                 /* the policies not raced, each with why */
} AppRace;

/* The policies to race on the App's graph: the graph's own Placeto, RNN
 * and GDP policies for its device count, the general Placeto policy, the
 * learned list scheduler and the learned local search (those bundled),
 * then every policy file of the baselines table's learned rows (the
 * explorer's policy, the tour's extra agents) not among them. */
static int race_policies(const App *a, char paths[][4096], int max)
{
    const char *g = a->data.pb.g->path;
    int nd = a->data.pb.c->n_devices, n = 0;
    char rel[64];
    static const char *const own[] = {"", "rnn_", "gdp_"};
    for (int k = 0; k < 3 && n < max; k++)
        if (g && data_own_policy(g, own[k], nd, paths[n], sizeof paths[n]))
            n++;
    const char *any[3][2] = {{"policies/general_%d.json", NULL}, {"policies/lsched_%d.json", NULL},
                             {"policies/lsearch.json", NULL}};
    for (int k = 0; k < 3 && n < max; k++) {
        snprintf(rel, sizeof rel, any[k][0], nd);
        if (data_bundled(rel, paths[n], sizeof paths[n]))
            n++;
    }
    for (int k = 0; k < a->base.n_learned_files && n < max; k++) {
        int dup = 0;
        for (int j = 0; j < n && !dup; j++)
            dup = util_same_file(paths[j], a->base.learned_files[k]);
        if (!dup)
            snprintf(paths[n++], sizeof paths[0], "%s", a->base.learned_files[k]);
    }
    return n;
}

/* 1 when the race was made for the baselines' learned files as they are. */
static int same_learned(const AppRace *r, const App *a)
{
    if (r->n_learned != a->base.n_learned_files)
        return 0;
    for (int k = 0; k < r->n_learned; k++)
        if (strcmp(r->learned[k], a->base.learned_files[k]) != 0)
            return 0;
    return 1;
}

static void race_free_all(AppRace *r)
{
    race_free(r->race);
    for (int k = 0; k < r->n_pol; k++)
        agent_policy_close(&r->pol[k]);
    for (int k = 0; k < r->n_learned; k++)
        free(r->learned[k]);
    free(r);
}

void app_race_close(App *a)
{
    if (!a->race)
        return;
    race_free_all(a->race);
    a->race = NULL;
    if (a->dialog.kind == DLG_RACE)
        app_dialog_close(a);
}

int app_race_open(App *a, int64_t budget)
{
    uint64_t seed = a->data.ep->seed;
    if (a->race && !same_learned(a->race, a)) /* the baselines list other learned policies: race them */
        app_race_close(a);
    if (budget < 0 && a->race && a->race->seed == seed) { /* R: the race there, whatever its budget */
        app_dialog_open(a, DLG_RACE, NULL);
        return 0;
    }
    if (budget <= 0)
        budget = app_search_budget(a);
    if (a->race && a->race->budget == budget && a->race->seed == seed) {
        app_dialog_open(a, DLG_RACE, NULL);
        return 0;
    }
    app_race_close(a);
    const Problem *pb = &a->data.pb;
    AppRace *r = xcalloc(1, sizeof *r);
    r->budget = budget;
    r->seed = seed;
    r->race = race_new(pb, seed, budget, 1);
    char paths[RACE_MAX_POLICIES][4096];
    int n = race_policies(a, paths, RACE_MAX_POLICIES);
    for (int k = 0; k < a->base.n_learned_files; k++)
        r->learned[r->n_learned++] = xstrdup(a->base.learned_files[k]);
    size_t sk = 0;
    for (int k = 0; k < n; k++) {
        Err e = {{0}};
        AgentPolicy *p = &r->pol[r->n_pol];
        char why[300] = "";
        int opened = agent_policy_open(paths[k], p, NULL, &e) == 0;
        if (!opened)
            snprintf(why, sizeof why, "it does not load (%.200s)", e.msg);
        else if (p->info.n_devices != pb->c->n_devices && !p->info.any_devices)
            snprintf(why, sizeof why, "its network places on %d devices, this cluster has %d", p->info.n_devices,
                     pb->c->n_devices);
        else if (p->info.n_groups != 0 && p->n_trained <= 1 && p->info.n_groups != pb->gr->n_groups)
            snprintf(why, sizeof why, "its network reads one graph's %d groups, this grouping has %d",
                     p->info.n_groups, pb->gr->n_groups); /* a family's policy reads any grouping (cli_policy_shape) */
        if (why[0]) { /* named below the chart, with why */
            const char *base = strrchr(paths[k], '/');
            base = base ? base + 1 : paths[k];
            int len = (int)strlen(base);
            if (len > 5 && strcmp(base + len - 5, ".json") == 0)
                len -= 5;
            if (sk < sizeof r->skipped - 1)
                sk += (size_t)snprintf(r->skipped + sk, sizeof r->skipped - sk, "%s%.*s: %s", sk ? "; " : "", len,
                                       base, why);
            if (sk >= sizeof r->skipped)
                sk = sizeof r->skipped - 1;
            if (opened)
                agent_policy_close(p);
            continue;
        }
        race_add_policy(r->race, p, p->kind->file.untrained != NULL);
        r->n_pol++;
    }
    race_add_search(r->race, place_find("anneal"));
    race_add_search(r->race, place_find("ils"));
    r->slice = (budget + APP_RACE_TICKS - 1) / APP_RACE_TICKS;
    r->step = 1;
    a->race = r;
    app_dialog_open(a, DLG_RACE, NULL);
    app_msg(a, GS_GOOD, "race: %d methods, %lld placements for the searches, seed %llu",
            race_lanes(r->race), (long long)budget, (unsigned long long)seed);
    return 0;
}

int app_race_running(const App *a)
{
    return a->race && a->dialog.kind == DLG_RACE && !a->race->paused && !race_done(a->race->race);
}

int app_race_tick(App *a, double frame_s)
{
    if (!app_race_running(a))
        return 0;
    AppRace *r = a->race;
    if (frame_s <= 0) { /* counted: a slice a tick, however long it takes */
        r->mark += r->slice;
        race_run(r->race, r->mark, 0);
    } else { /* timed: the same placements, as many a tick as frame_s fits */
        if (!r->behind)
            r->mark += r->step;
        double t0 = util_now();
        r->behind = race_run(r->race, r->mark, t0 + frame_s) > 0;
        if (r->behind) /* a mark every lane reaches within a frame or so: the lanes stay together */
            r->step = r->step > 1 ? r->step / 2 : 1;
        else if (util_now() - t0 < frame_s / 2)
            r->step = r->step < r->slice / 2 ? 2 * r->step : r->slice;
    }
    a->race->ticks++;
    if (race_done(a->race->race))
        app_msg(a, GS_GOOD, "race finished: the final numbers are compare's at budget %lld, seed %llu",
                (long long)a->race->budget, (unsigned long long)a->race->seed);
    return 1;
}

int app_race_wait_ms(const App *a)
{
    if (!app_race_running(a))
        return -1;
    const AppRace *r = a->race; /* a slice a tick when it fits, else as many ticks as the time allows */
    return r->behind || r->step < r->slice ? APP_RACE_BUSY_MS : APP_RACE_TICK_MS;
}

const Race *app_race_state(const App *a, int64_t *budget, int *paused)
{
    const AppRace *r = a->race;
    if (budget)
        *budget = r ? r->budget : 0;
    if (paused)
        *paused = r ? r->paused : 0;
    return r ? r->race : NULL;
}

void app_race_lane_name(const RaceLane *l, char *buf, size_t n)
{
    if (l->policy) { /* the policy file too: two Placeto policies give two "placeto" rows */
        const char *base = strrchr(l->policy->path, '/');
        base = base ? base + 1 : l->policy->path;
        int len = (int)strlen(base);
        if (len > 5 && strcmp(base + len - 5, ".json") == 0)
            len -= 5;
        snprintf(buf, n, "%s (%.*s)", l->name, len, base);
    } else {
        snprintf(buf, n, "%s", l->name);
    }
}

int app_race_key(App *a, int key)
{
    AppRace *r = a->race;
    if (key == ' ' && r) {
        r->paused = !r->paused;
        app_msg(a, GS_DIM, "race %s", r->paused ? "paused (space goes on)" : "running");
    } else if (key == 'r' && r) {
        int64_t budget = r->budget;
        app_race_close(a);
        app_race_open(a, budget);
    } else if ((key == 'j' || key == TERM_KEY_DOWN) && r) { /* the legend's next lane, when it is cut */
        if (r->legend_first < r->legend_first_max)
            r->legend_first++;
    } else if ((key == 'k' || key == TERM_KEY_UP) && r) {
        if (r->legend_first > 0)
            r->legend_first--;
    } else if (key == TERM_KEY_ESC || key == 'q' || key == 'R') {
        app_dialog_close(a);
    }
    return CTL_REDRAW;
}

int app_race_draw(const App *a, Grid *g)
{
    AppRace *ar = a->race; /* its legend's scroll is clamped to what fits */
    if (!ar)
        return 0;
    const Race *r = ar->race;
    int top = 1;
    GridRect box = {0, top, g->w, g->h - top - 1};
    grid_fill(g, box, ' ', GS_NONE);
    grid_box(g, box, GS_BORDER);
    char t[512], b1[32];
    snprintf(t, sizeof t, " Race on %s, %d devices: best runtime against simulations%s ", a->data.pb.g->name,
             a->data.pb.c->n_devices, race_done(r) ? " (finished)" : ar->paused ? " (paused)" : "");
    grid_text_fit(g, box.x + 2, box.y, t, box.w - 4, GS_TITLE);
    GridRect in = {box.x + 2, box.y + 1, box.w - 4, box.h - 2};
    snprintf(t, sizeof t, "budget %lld placements (anneal, ils and the learned search), seed %llu, lower bound %s",
             (long long)ar->budget, (unsigned long long)ar->seed, util_fmt_time(b1, a->data.lower_bound_us));
    grid_text_fit(g, in.x, in.y, t, in.w, GS_DIM);
    int n = race_lanes(r);
    if (n > RACE_MAX_LANES)
        n = RACE_MAX_LANES;
    /* every lane its own mark (what tells them apart without colour) and
     * its own colour (GS_SERIES: 16 of them) */
    static const char glyphs[] = "*+ox#@%&=~^$?!<>ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    ChartSeries s[RACE_MAX_LANES];
    char notes[RACE_MAX_LANES][320], names[RACE_MAX_LANES][128];
    for (int k = 0; k < n; k++) {
        const RaceLane *l = race_lane(r, k);
        app_race_lane_name(l, names[k], sizeof names[k]);
        s[k] = (ChartSeries){.name = names[k], .note = notes[k], .y = l->step_best, .n = l->n, .done = l->done,
                             .glyph = (uint32_t)glyphs[k % (int)(sizeof glyphs - 1)], .pen = GRID_PEN(GS_SERIES, k),
                             .x = l->step_at, .m = l->n_steps};
        if (l->failed)
            snprintf(notes[k], sizeof notes[k], "failed: %s", l->err);
        else if (l->done)
            snprintf(notes[k], sizeof notes[k], "final %s, %lld placement%s (%lld simulations)%s",
                     util_fmt_time(b1, l->row.runtime_us), (long long)l->row.placements, l->row.placements == 1 ? "" : "s", (long long)l->n,
                     l->row.oom ? ", out of memory" : "");
        else if (l->n > 0)
            snprintf(notes[k], sizeof notes[k], "best %s after %lld simulations", util_fmt_time(b1, race_lane_best(l, l->n - 1)),
                     (long long)l->n);
        else
            snprintf(notes[k], sizeof notes[k], "waiting");
    }
    double lo, hi;
    race_range(r, &lo, &hi);
    if (hi > 2 * lo)
        hi = 2 * lo; /* a far start (everything on one device, out of memory) would flatten the rest */
    if (!(hi > lo))
        hi = lo * 1.05 + 1;
    int64_t xm = race_max_n(r);
    if (xm < ar->budget && !race_done(r)) /* the axis of the budget while it runs, of what was used after */
        xm = ar->budget;
    /* below the chart: the policies not raced and why, every line of it */
    char sk[sizeof ar->skipped + 32] = "";
    int foot = 0;
    if (ar->skipped[0]) {
        snprintf(sk, sizeof sk, "not raced: %s", ar->skipped);
        foot = widget_wrap(sk, in.w, NULL, NULL, 0);
        if (foot > in.h - 8)
            foot = in.h - 8 > 1 ? in.h - 8 : 1;
    }
    ChartOpts co = {1, ar->legend_first, "j/Down, k/Up scroll", "lanes"};
    ChartFit fit;
    chart_draw(g, (GridRect){in.x, in.y + 1, in.w, in.h - 1 - foot}, s, n, xm, lo, hi, "placements (log)", &co, &fit);
    ar->legend_first = fit.legend_first;
    ar->legend_first_max = fit.legend_first_max;
    if (foot) {
        int need = widget_text_wrapped(g, (GridRect){in.x, in.y + in.h - foot, in.w, foot}, sk, 0, GS_DIM);
        if (need > foot) /* cut: said, never hidden silently */
            grid_text_fit(g, in.x, in.y + in.h - 1, "... (more not raced: a taller window lists them)", in.w, GS_WARN);
    }
    grid_text_fit(g, box.x + 2, box.y + box.h - 1, a->tour.active ? " Esc: close; the tour's keys are on the caption's frame "
                  : " space: pause  r: again  Esc: close ", box.w - 4, GS_KEY);
    return 0;
}
