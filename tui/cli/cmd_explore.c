/* explore: the explorer's commands (explore, demo) and their two runners,
 * the input side of the controller: the interactive one reads the terminal
 * (term.c) and the headless one a key script (tests, screenshots; screen
 * dumps out). Both hand every key, click and tick to the controller (ctl.h)
 * and draw the same frames; only where input comes from and where frames
 * go differ. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "app_race.h"
#include "cli.h"
#include "data.h"
#include "ctl.h"
#include "record.h"
#include "slide.h"
#include "term.h"

/* --devices of explore and demo: a policy places at most POLICY_MAX_DEVICES. */
#define EXPLORE_OPT_DEVICES                                                                                            \
    {.name = "devices", .short_name = 'n', .arg = "N", .type = AGENT_OPT_INT, .min = 1, .max = POLICY_MAX_DEVICES,    \
     .help = "N default devices: /GPU:0.., the Placeto simulator's parameters", .note = "the policy's count, else 2"}

/* The terminal and headless options of explore and demo. */
#define SCREEN_OPTS                                                                                  \
    {.name = "ascii", .help = "ASCII glyphs only"},                                                         \
    {.name = "no-color", .help = "no colours (also with NO_COLOR set)"},                                    \
    {.name = "headless", .help = "no terminal: run --keys and dump the screen (tests, screenshots)"},       \
    {.name = "keys", .short_name = 'k', .arg = "SCRIPT", .help = "headless: keys separated by spaces (see placeto explore --help)"},      \
    {.name = "size", .arg = "WxH", .help = "headless: screen size", .def = "100x30"},                                    \
    {.name = "dump", .arg = "FILE", .help = "headless: write the last screen (- for stdout, the default)"},              \
    {.name = "frames", .arg = "FILE", .help = "headless: write every screen, one per key"},                              \
    {.name = "unicode", .help = "headless: dump with Unicode glyphs instead of ASCII"},                     \
    {.name = "present", .help = "start in the presentation layout: graph, tall timeline, legend (P toggles)"},\
    {.name = "slide", .arg = "FILE.svg", .help = "headless: write the last screen as an SVG image too"},                 \
    {.name = "slide-dir", .arg = "DIR", .help = "where F2 / Ctrl-P write slides", .note = "$PLACETO_SLIDE_DIR, else ."}

/* Recording a session (record.h). */
#define RECORD_OPTS                                                                                  \
    {.name = "record", .arg = "FILE", .help = "write the session as an asciinema v2 recording (FILE.cast)"},             \
    {.name = "record-step", .arg = "SECONDS", .type = AGENT_OPT_NUM, .min = 0.001, .max = 3600, .def = "1",                  \
     .help = "headless: the recording's time between key steps"}

static const CliOpt explore_opts[] = {
    {.name = "policy", .short_name = 'p', .arg = "POLICY", .help = "trained policy", .note = "the graph's bundled one, else the general one for the device count"},
    {.name = "resume", .short_name = 'r', .arg = "EPISODE", .help = "resume a saved episode (graph, cluster and policy come from it)"},
    {.name = "replay", .arg = "EPISODE", .help = "replay a saved episode forwards and backwards (for lectures)"},
    CLI_OPT_CLUSTER,
    EXPLORE_OPT_DEVICES,
    {.name = "groups", .short_name = 'g', .arg = "G", .type = AGENT_OPT_INT, .min = 1, .max = POLICY_MAX_GROUPS,
     .help = "target group count, or chains: HSDAG's coarsening", .note = "by graph size"},
    CLI_OPT_SEED("1"),
    {.name = "save", .short_name = 'o', .arg = "EPISODE", .help = "where s saves the episode", .note = "GRAPH.episode.json; with --resume, the resumed file"},
    {.name = "greedy", .help = "start in greedy mode (argmax) instead of sampling"},
    {.name = "race", .help = "open on the race: the learned placers, their untrained controls, anneal and ils, live (key R)"},
    {.name = "budget", .short_name = 'b', .arg = "N", .type = AGENT_OPT_INT, .min = 1, .max = 1L << 30, .note = "the baselines' budget",
     .help = "with --race: placements anneal, ils and a searching policy may simulate"},
    RECORD_OPTS,
    SCREEN_OPTS,
    {0},
};

static int run_explore(int argc, char **argv);
static int run_demo(int argc, char **argv);

static const CliOpt demo_opts[] = {
    {.name = "policy", .short_name = 'p', .arg = "POLICY", .help = "the trained policy", .note = "the graph's bundled one, else the general one"},
    EXPLORE_OPT_DEVICES,
    {.name = "auto", .arg = "[SECONDS]", .type = AGENT_OPT_NUM, .min = 0.5, .max = 3600, .def = "7",
     .help = "advance every SECONDS seconds instead of waiting for a key (r pauses; the race's "
             "stage waits for its race to end, then SECONDS)"},
    {.name = "loop", .help = "with --auto: after the last stage, start again at the first"},
    {.name = "stage", .arg = "N", .type = AGENT_OPT_INT, .min = 1, .max = APP_TOUR_STAGES, .def = "1",
     .help = "start at stage N (1 is the first; the tour's earlier steps are taken first)"},
    RECORD_OPTS,
    SCREEN_OPTS,
    {0},
};

const CliCmd cmd_demo = {
    .name = "demo",
    .brief = "a guided tour of Placeto in the explorer",
    .usage = "[GRAPH] [--policy P] [--devices N] [--auto [SECONDS]]",
    .summary =
        "A guided tour inside the explorer: the problem (a graph one device cannot hold), the groups,\n"
        "the simulator, the state, message passing, the sets the policy pools over, the probabilities,\n"
        "the reward, an override by hand, the baselines, the paper's own rules, generalization to a\n"
        "graph the policy never saw, every learned agent beside the baselines, the race of the placers\n"
        "(stage 14: the learned placers, each beside its untrained control, and anneal and ils, live;\n"
        "its caption says who is ahead and by how much once it ends), GDP, the RNN-based placer and\n"
        "HSDAG beside Placeto, and a recap with the tour's own numbers:\n"
        "18 stages. Keys in the tour: space or Right next; Left back (the stage as it was); a stage's\n"
        "number jumps to it (1 then 2: stage 12; 1 then Enter: stage 1); r plays / pauses it on a timer;\n"
        "i shows a cut caption whole; ? the keys; Esc closes a dialog; q leaves the tour (the explorer\n"
        "stays open) and D goes back to it; F2 or Ctrl-P writes the screen as a slide\n"
        "(placeto-slide-NNN.svg and .png); P: the presentation layout.\n"
        "Without GRAPH the tour runs on the bundled GNMT (graphs/nmt.json) with its policy on 2 devices,\n"
        "and opens the bundled graphs and policies its later stages need.",
    .details =
        "--auto takes the next argument as SECONDS only when it is a number.\n"
        "example: placeto demo\n"
        "example: placeto demo --stage 11\n"
        "example: placeto demo --auto 3 --loop\n"
        "example: placeto demo graphs/inception_v3.json --devices 4\n"
        "example: placeto demo --headless --keys 'space space' --record tour.cast",
    .opts = demo_opts,
    .run = run_demo,
};

const CliCmd cmd_explore = {
    .name = "explore",
    .brief = "the ncurses explorer (the default command)",
    .usage = "[GRAPH] [--policy P] [--resume EPISODE] [--devices N | --cluster F]",
    .summary =
        "Step through Placeto episodes: watch the policy place groups, inspect, override, undo,\n"
        "save and resume, compare with the baselines, train, and export DOT renders and traces.\n"
        "With an RNN placer's policy (train --agent rnn) its decoder places one group per step,\n"
        "in order from device 0, its attention shown as the why; with a GDP policy (train --agent\n"
        "gdp) one forward pass gives every group's distribution, applied one group per step in\n"
        "the same order, its attention (heads averaged) as the why; with an HSDAG policy (train\n"
        "--agent hsdag) one pass gives the learned clusters, each placed at its first group and\n"
        "followed by the rest, the cluster as the why (C colours the graph by it). w explains the\n"
        "step (each device's runtime and probability, the features, message passing); R (or --race)\n"
        "races the learned placers, their untrained controls, anneal and ils live. ? shows every key.\n"
        "F2 or Ctrl-P writes the screen as a slide (placeto-slide-NNN.svg, and .png with rsvg-convert,\n"
        "in --slide-dir, $PLACETO_SLIDE_DIR or .; never replacing a file); P is the presentation\n"
        "layout (graph, a tall timeline, a legend) for a projector.",
    .details =
        "Headless key scripts: single characters stand for themselves; names: space enter esc tab\n"
        "btab up down left right pgup pgdn bs home end f1 f2 ctrl-p; tick (a timer tick while\n"
        "running); wait (until background training and a shown race end); resize:WxH; click:X,Y;\n"
        "sigint (as Ctrl-C: autosave, say where on stderr, exit 130). Any other word is typed letter\n"
        "by letter. Headless, --race runs the race to its end (a frame per round) first.\n"
        "example: placeto explore graphs/inception_v3.json --policy graphs/policies/inception_v3_2.json\n"
        "example: placeto explore --replay inception_v3.episode.json\n"
        "example: placeto explore graphs/resnet18.json --race --budget 500\n"
        "example: placeto explore graphs/toy/crown.json --headless --keys 'space space 1 u' --size 80x24\n"
        "example: placeto explore graphs/toy/crown.json --record crown.cast   (asciinema v2; headless:\n"
        "         one --record-step per key, so the same script gives the same file)\n"
        "example: placeto explore graphs/toy/crown.json --headless --keys 'space P' --slide crown.svg",
    .opts = explore_opts,
    .run = run_explore,
};

/* ------------------------------------------------------------------ */
/* Headless                                                            */

static int token_key(const char *t, int *key)
{
    static const struct { const char *name; int key; } names[] = {
        {"space", ' '}, {"enter", TERM_KEY_ENTER}, {"esc", TERM_KEY_ESC}, {"tab", TERM_KEY_TAB},
        {"btab", TERM_KEY_BTAB}, {"up", TERM_KEY_UP}, {"down", TERM_KEY_DOWN}, {"left", TERM_KEY_LEFT},
        {"right", TERM_KEY_RIGHT}, {"pgup", TERM_KEY_PGUP}, {"pgdn", TERM_KEY_PGDN}, {"bs", TERM_KEY_BACKSPACE},
        {"f1", TERM_KEY_F1}, {"home", TERM_KEY_HOME}, {"end", TERM_KEY_END}, {"f2", TERM_KEY_F1 + 1},
        {"ctrl-p", 0x10},
    };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(t, names[k].name) == 0) {
            *key = names[k].key;
            return 1;
        }
    if (t[0] && !t[1]) {
        *key = (unsigned char)t[0];
        return 1;
    }
    return 0;
}

static void dump(FILE *f, const Grid *g, GridGlyphs glyphs)
{
    char *text = grid_to_text(g, glyphs);
    fputs(text, f);
    free(text);
}

/* Opens --record's file for a w x h screen: in a headless run (interactive
 * 0) in 256 colours (none with --no-color or NO_COLOR), Unicode unless
 * --ascii, dated SOURCE_DATE_EPOCH (else 0) so that the file depends on the
 * key script alone; on a terminal as the terminal draws, dated now. */
static Recorder *open_recording(const CliCmd *cmd, const CliArgs *args, const char *path, int w, int h,
                                const Term *t, GridGlyphs glyphs, Err *e)
{
    RecordInfo info = {0};
    char title[64];
    snprintf(title, sizeof title, "placeto %s", cmd->name);
    info.width = w;
    info.height = h;
    info.title = title;
    if (t) {
        info.colors = term_colors(t);
        info.glyphs = term_glyphs(t);
        info.timestamp = (long long)time(NULL);
        info.term = getenv("TERM");
        info.shell = getenv("SHELL");
    } else {
        const char *nc = getenv("NO_COLOR"), *epoch = getenv("SOURCE_DATE_EPOCH");
        info.colors = cli_get(cmd, args, "no-color") || (nc && nc[0]) ? 0 : 256;
        info.glyphs = cli_get(cmd, args, "ascii") ? GRID_ASCII : glyphs;
        info.timestamp = epoch ? strtoll(epoch, NULL, 10) : 0;
    }
    Recorder *r = record_open(path, &info, e);
    if (!r)
        err_prefix(e, "--record");
    return r;
}

/* CTL_SLIDE: writes the frame g shows as the next slide (slide.h) and
 * says so on the message line. */
static void take_slide(App *a, const Grid *g, int colors, GridGlyphs glyphs, const char *dir)
{
    char msg[sizeof a->msg.text];
    int rc = slide_save(g, colors, glyphs, dir, msg, sizeof msg);
    app_msg(a, rc == 0 ? GS_GOOD : rc > 0 ? GS_WARN : GS_ERROR, "%s", msg);
}

/* CTL_RELOAD: the App is replaced by another (the tour opening a new graph).
 * Returns 0, or -1 with e set (the old App is gone either way). */
static int reload(App **ap, Err *e)
{
    App *a = *ap;
    AppOptions o = a->tour.next;
    int present = a->view.present; /* the layout stays */
    char graph[4096], policy[4096], cluster[4096]; /* o's paths live in the App freed below */
    snprintf(graph, sizeof graph, "%s", o.graph_path ? o.graph_path : "");
    snprintf(policy, sizeof policy, "%s", o.policy_path ? o.policy_path : "");
    snprintf(cluster, sizeof cluster, "%s", o.cluster_path ? o.cluster_path : "");
    o.graph_path = graph;
    o.policy_path = o.policy_path ? policy : NULL;
    o.cluster_path = o.cluster_path ? cluster : NULL;
    double facts[TOUR_FACT_COUNT];
    if (o.demo_facts) {
        memcpy(facts, o.demo_facts, sizeof facts);
        o.demo_facts = facts;
    }
    app_free(a);
    *ap = app_new(&o, e);
    if (*ap)
        (*ap)->view.present = present;
    return *ap ? 0 : -1;
}

/* A SIGINT, SIGTERM or SIGHUP: the episode is autosaved when it has unsaved
 * changes; returns whether it had. */
static int signal_autosave(App *a)
{
    int dirty = a->run.dirty;
    app_autosave(a);
    return dirty;
}

/* After a signal, the terminal restored: says on stderr where the episode
 * went and returns the shell's status for the signal (130 for SIGINT). */
static int signal_report(const App *a, int sig, int had_changes)
{
    const char *name = sig == SIGINT ? "SIGINT (Ctrl-C)" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal";
    if (!had_changes)
        fprintf(stderr, "placeto: interrupted by %s; nothing unsaved, no autosave\n", name);
    else if (a->msg.style == GS_ERROR)
        fprintf(stderr, "placeto: interrupted by %s; %s\n", name, a->msg.text);
    else
        fprintf(stderr, "placeto: interrupted by %s; the episode was autosaved to %s (explore --resume %s goes on)\n",
                name, a->files.autosave, a->files.autosave);
    return 128 + sig;
}

static int headless(App **ap, const CliCmd *cmd, const CliArgs *args, const char *rc_path, double rc_step, Err *e)
{
    App *a = *ap;
    int w = 100, h = 30;
    const char *size = cli_get(cmd, args, "size");
    if (size && (sscanf(size, "%dx%d", &w, &h) != 2 || w < 1 || h < 1 || w > 1000 || h > 500))
        return cli_usage_error(cmd, "--size: expected WxH such as 100x30, got '%s'", size);
    const char *keys = cli_get(cmd, args, "keys");
    for (const char *p = keys ? strstr(keys, "resize:") : NULL; p; p = strstr(p + 7, "resize:")) {
        int rw, rh, used = 0;
        if (p != keys && p[-1] != ' ') /* inside a word: typed letter by letter */
            continue;
        if (sscanf(p + 7, "%dx%d%n", &rw, &rh, &used) != 2 ||
            (p[7 + used] && p[7 + used] != ' ') || rw < 1 || rh < 1 || rw > 1000 || rh > 500)
            return cli_usage_error(cmd, "--keys: resize:WxH expects a size from 1x1 to 1000x500 (as --size), got '%.*s'",
                                   (int)strcspn(p, " "), p);
    }
    GridGlyphs glyphs = cli_get(cmd, args, "unicode") ? GRID_UNICODE : GRID_ASCII;
    const char *frames_path = cli_get(cmd, args, "frames"), *dump_path = cli_get(cmd, args, "dump");
    FILE *frames = NULL;
    if (frames_path && !(frames = fopen(frames_path, "w"))) {
        err_set(e, "%s: cannot write the frames", frames_path);
        return EXIT_FAIL;
    }
    Recorder *rec = NULL;
    if (rc_path && !(rec = open_recording(cmd, args, rc_path, w, h, 0, GRID_UNICODE, e))) {
        if (frames)
            fclose(frames);
        return EXIT_FAIL;
    }
    /* slides as recordings: 256 colours unless --no-color or NO_COLOR, Unicode unless --ascii */
    const char *nc = getenv("NO_COLOR");
    int slide_colors = cli_get(cmd, args, "no-color") || (nc && nc[0]) ? 0 : 256;
    GridGlyphs slide_glyphs = cli_get(cmd, args, "ascii") ? GRID_ASCII : GRID_UNICODE;
    const char *slide_dir = cli_get(cmd, args, "slide-dir");
    Grid *g = grid_new(w, h);
    AppGeom geom;
    ctl_settle(a); /* a tour started at a slow stage */
    ctl_frame(a, g, &geom);
    record_frame(rec, g, 0);
    int n_frame = 0, n_step = 0, quit = 0, sig = 0, sig_dirty = 0;
    while (app_race_running(a)) { /* --race: every round a frame, as on a terminal */
        ctl_tick(a, util_now(), 0);
        ctl_frame(a, g, &geom);
        record_frame(rec, g, ++n_step * rc_step);
        if (frames) {
            fprintf(frames, "--- frame %d: race ---\n", ++n_frame);
            dump(frames, g, glyphs);
        }
    }
    char *script = xstrdup(cli_get(cmd, args, "keys") ? cli_get(cmd, args, "keys") : "");
    char *save = NULL;
    for (char *tok = strtok_r(script, " ", &save); tok && !quit; tok = strtok_r(NULL, " ", &save)) {
        int r = CTL_NOTHING, key, x, y;
        if (strncmp(tok, "resize:", 7) == 0 && sscanf(tok + 7, "%dx%d", &x, &y) == 2 && x > 0 && y > 0) {
            grid_resize(g, x, y);
            r = CTL_REDRAW;
        } else if (strncmp(tok, "click:", 6) == 0 && sscanf(tok + 6, "%d,%d", &x, &y) == 2) {
            r = ctl_click(a, &geom, x, y, 1);
        } else if (strcmp(tok, "sigint") == 0) { /* as a Ctrl-C on a terminal */
            sig = SIGINT;
            sig_dirty = signal_autosave(a);
            r = CTL_QUIT;
        } else if (strcmp(tok, "tick") == 0) {
            r = ctl_tick(a, util_now(), 0);
        } else if (strcmp(tok, "wait") == 0) {
            while (a->train.running || app_race_running(a)) {
                if (a->train.running) /* a race's ticks need no pause: its slices are counted, not timed */
                    usleep(20000);
                r |= ctl_tick(a, util_now(), 0);
            }
        } else if (token_key(tok, &key)) {
            r = ctl_key(a, key);
        } else {
            for (const char *p = tok; *p && !(r & CTL_QUIT); p++)
                r |= ctl_key(a, (unsigned char)*p);
        }
        quit = r & CTL_QUIT;
        if (r & CTL_SLIDE)
            take_slide(a, g, slide_colors, slide_glyphs, slide_dir);
        if ((r & CTL_RELOAD) && reload(ap, e) != 0) {
            free(script);
            grid_free(g);
            if (frames)
                fclose(frames);
            record_abort(rec);
            return EXIT_FAIL;
        }
        a = *ap;
        if (a->tour.pending >= 0) { /* a slow stage: its busy sign is a frame of its own */
            ctl_frame(a, g, &geom);
            record_frame(rec, g, ++n_step * rc_step);
            if (frames) {
                fprintf(frames, "--- frame %d: %s (computing) ---\n", ++n_frame, tok);
                dump(frames, g, glyphs);
            }
            ctl_settle(a);
        }
        ctl_frame(a, g, &geom);
        if (r & CTL_REPAINT)
            record_invalidate(rec);
        record_frame(rec, g, ++n_step * rc_step); /* synthetic time: one step per key */
        if (frames) {
            fprintf(frames, "--- frame %d: %s ---\n", ++n_frame, tok);
            dump(frames, g, glyphs);
        }
    }
    free(script);
    int rc = EXIT_OK;
    const char *slide_path = cli_get(cmd, args, "slide");
    if (slide_path && slide_write(slide_path, g, slide_colors, slide_glyphs, e) != 0)
        rc = EXIT_FAIL;
    if (rec && record_close(rec, n_step * rc_step, e) != 0)
        rc = EXIT_FAIL;
    if (frames && (ferror(frames) | (fclose(frames) != 0))) {
        err_set(e, "%s: cannot write the frames", frames_path);
        rc = EXIT_FAIL;
    }
    if (!dump_path || strcmp(dump_path, "-") == 0) {
        dump(stdout, g, glyphs);
    } else {
        FILE *f = fopen(dump_path, "w");
        if (!f) {
            err_set(e, "%s: cannot write the screen dump", dump_path);
            rc = EXIT_FAIL;
        } else {
            dump(f, g, glyphs);
            if (fclose(f) != 0) {
                err_set(e, "%s: cannot write the screen dump", dump_path);
                rc = EXIT_FAIL;
            }
        }
    }
    grid_free(g);
    if (sig && rc == EXIT_OK)
        return signal_report(a, sig, sig_dirty);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Interactive                                                         */

static int interactive(App **ap, const CliCmd *cmd, const CliArgs *args, const char *rc_path, Err *e)
{
    App *a = *ap;
    TermOptions o = {0};
    o.ascii = cli_get(cmd, args, "ascii") != NULL;
    o.no_color = cli_get(cmd, args, "no-color") != NULL;
    o.mouse = 1;
    Term *t = term_open(&o, e);
    if (!t)
        return EXIT_FAIL;
    int w, h;
    term_size(t, &w, &h);
    Recorder *rec = NULL;
    if (rc_path && !(rec = open_recording(cmd, args, rc_path, w, h, t, GRID_UNICODE, e))) {
        term_close(t);
        return EXIT_FAIL;
    }
    double t0 = util_now();
    Grid *g = grid_new(w, h);
    AppGeom geom;
    int redraw = 1, sig = 0, sig_dirty = 0;
    for (;;) {
        if (redraw) {
            ctl_frame(a, g, &geom);
            term_draw(t, g);
            record_frame(rec, g, util_now() - t0);
            redraw = 0;
        }
        TermEvent ev;
        int r = CTL_NOTHING;
        switch (term_next(t, ctl_timeout_ms(a), &ev)) {
        case TERM_KEY:
            r = ctl_key(a, ev.key);
            break;
        case TERM_MOUSE:
            r = ctl_click(a, &geom, ev.x, ev.y, ev.button);
            break;
        case TERM_RESIZE:
            term_size(t, &w, &h);
            grid_resize(g, w, h);
            r = CTL_REDRAW;
            break;
        case TERM_SIGNAL:
            sig = ev.signal;
            sig_dirty = signal_autosave(a);
            r = CTL_QUIT;
            break;
        case TERM_TIMEOUT:
        default:
            r = ctl_tick(a, util_now(), APP_RACE_FRAME_S);
            break;
        }
        if (r & CTL_QUIT)
            break;
        if (r & CTL_SLIDE)
            take_slide(a, g, term_colors(t), term_glyphs(t), cli_get(cmd, args, "slide-dir"));
        if ((r & CTL_RELOAD) && reload(ap, e) != 0) {
            term_close(t);
            grid_free(g);
            record_abort(rec);
            return EXIT_FAIL;
        }
        a = *ap;
        if (r & CTL_REPAINT) {
            term_invalidate(t);
            record_invalidate(rec);
        }
        redraw |= r & CTL_REDRAW;
    }
    term_close(t);
    grid_free(g);
    if (a->msg.text[0] && a->msg.style == GS_ERROR && !sig)
        fprintf(stderr, "placeto: %s\n", a->msg.text);
    if (rec && record_close(rec, util_now() - t0, e) != 0)
        return EXIT_FAIL;
    return sig ? signal_report(a, sig, sig_dirty) : EXIT_OK;
}

/* One path, one role for the graph and the policy explore or demo opens
 * unasked (no GRAPH, no --policy): no output of the command line replaces
 * them. Returns 0 or EXIT_USAGE. */
static int check_defaults(const CliCmd *cmd, const CliArgs *args, const AppOptions *o)
{
    if (o->resume_path || o->replay_path) /* the episode's files: checked by cli_parse */
        return 0;
    char g[4200], p[4200];
    snprintf(g, sizeof g, "the graph %s that %s opens without GRAPH", o->graph_path, cmd->name);
    snprintf(p, sizeof p, "the policy %s that %s picks without --policy", o->policy_path ? o->policy_path : "",
             cmd->name);
    const char *paths[2] = {args->n_pos ? NULL : o->graph_path, cli_get(cmd, args, "policy") ? NULL : o->policy_path};
    const char *what[2] = {g, p};
    return cli_check_picked(cmd, args, paths, what, 2);
}

/* Opens the App and runs it headless or on the terminal. */
static int run_app(const CliCmd *cmd, const CliArgs *args, const AppOptions *o)
{
    if (check_defaults(cmd, args, o))
        return EXIT_USAGE;
    const char *rc_path = cli_get(cmd, args, "record");
    int is_headless = cli_get(cmd, args, "headless") != NULL;
    double rc_step;
    if (cli_num(cmd, args, "record-step", &rc_step))
        return EXIT_USAGE;
    if (cli_get(cmd, args, "record-step") && (!rc_path || !is_headless))
        return cli_usage_error(cmd, "--record-step goes with --record and --headless (a terminal session is timed as it runs)");
    if (rc_path && !rc_path[0])
        return cli_usage_error(cmd, "--record: expected a file name");
    const char *slide_path = cli_get(cmd, args, "slide");
    if (slide_path && !is_headless)
        return cli_usage_error(cmd, "--slide goes with --headless (on a terminal F2 or Ctrl-P writes slides)");
    if (slide_path && !slide_path[0])
        return cli_usage_error(cmd, "--slide: expected a file name");
    long budget = 0;
    if (cmd == &cmd_explore && cli_int_or(cmd, args, "budget", 0, &budget))
        return EXIT_USAGE;
    if (cmd == &cmd_explore && cli_get(cmd, args, "budget") && !cli_get(cmd, args, "race"))
        return cli_usage_error(cmd, "--budget goes with --race (the race's budget)");
    Err e = {{0}};
    /* the policy's training cluster, kept before the App takes the policy out of the cache */
    const Cluster *tc = cmd == &cmd_explore && !o->resume_path && !o->replay_path
                            ? cli_policy_trained_cluster(o->policy_path) : NULL;
    Cluster *trained = tc ? cluster_clone(tc) : NULL;
    App *a = app_new(o, &e);
    if (!a) {
        cluster_free(trained);
        return cli_fail(&e);
    }
    char note[4096];
    if (cli_policy_cluster_note(cmd, args, o->policy_path, trained, a->data.pb.c, note, sizeof note))
        app_msg(a, GS_WARN, "%s", note); /* an explicit --cluster or --devices is honoured, and said */
    cluster_free(trained);
    a->view.present = cli_get(cmd, args, "present") != NULL;
    if (cmd == &cmd_explore && cli_get(cmd, args, "race"))
        app_race_open(a, budget);
    int rc = is_headless ? headless(&a, cmd, args, rc_path, rc_step, &e) : interactive(&a, cmd, args, rc_path, &e);
    app_free(a);
    return rc == EXIT_FAIL ? cli_fail(&e) : rc;
}

static int run_explore(int argc, char **argv)
{
    const CliCmd *cmd = &cmd_explore;
    CliArgs args;
    int stop, rc = cli_parse_graphs(cmd, argc, argv, &args, 0, 1, NULL, &stop);
    if (stop)
        return rc;
    ProblemSpec spec;
    AppOptions o = {0};
    long devices;
    if (cli_problem(cmd, &args, NULL, POLICY_MAX_GROUPS, &spec, &o.seed) ||
        cli_int_or(cmd, &args, "devices", 0, &devices)) /* the policy's limit */
        return EXIT_USAGE;
    char graph_buf[4096], policy_buf[4096];
    o.resume_path = cli_get(cmd, &args, "resume");
    o.replay_path = cli_get(cmd, &args, "replay");
    if ((o.resume_path || o.replay_path) && args.n_pos)
        return cli_usage_error(cmd, "--resume and --replay take the graph from the episode file; give no GRAPH");
    if (o.resume_path && o.replay_path)
        return cli_usage_error(cmd, "give --resume or --replay, not both");
    if (o.resume_path || o.replay_path) /* the episode file fixes these: giving them would be ignored */
        for (const char *const *k = (const char *const[]){"devices", "cluster", "groups", "seed", "save", NULL}; *k; k++)
            if (cli_get(cmd, &args, *k) && !(strcmp(*k, "save") == 0 && o.resume_path))
                return cli_usage_error(cmd, "--%s cannot be used with --%s: the episode file fixes it", *k,
                                       o.resume_path ? "resume" : "replay");
    o.graph_path = args.n_pos ? args.pos[0] : data_path(graph_buf, sizeof graph_buf, "resnet18.json");
    o.policy_path = cli_get(cmd, &args, "policy");
    o.cluster_path = spec.cluster_path;
    o.episode_path = cli_get(cmd, &args, "save");
    o.n_devices = spec.n_devices;
    o.groups = spec.groups;
    o.greedy = cli_get(cmd, &args, "greedy") != NULL;
    if (!o.resume_path && !o.replay_path) {
        int policy_devices, rnn_groups; /* a policy fixes the device count when --devices and --cluster do not */
        Err e = {{0}};
        if (cli_policy_shape(cmd, &args, o.policy_path, &policy_devices, &rnn_groups, &e))
            return cli_fail(&e);
        if (policy_devices)
            o.n_devices = policy_devices;
        if (rnn_groups && !cli_get(cmd, &args, "groups")) /* an rnn network reads the grouping it was trained on */
            o.groups = rnn_groups;
        if (!o.policy_path && !o.cluster_path) {
            int nd = o.n_devices ? o.n_devices : 2;
            o.policy_path = data_auto_policy(o.graph_path, nd, policy_buf, sizeof policy_buf);
            /* the general policy on one's own graph starts where place --policy auto does: from the best
               heuristic's placement */
            o.start_heuristic = o.policy_path && !data_has_own_policy(o.graph_path, nd);
        }
        o.cluster = cli_policy_cluster(cmd, &args, o.policy_path); /* the one it was trained on, when it says */
    }
    if (!o.n_devices)
        o.n_devices = 2;
    return run_app(cmd, &args, &o);
}

static int run_demo(int argc, char **argv)
{
    const CliCmd *cmd = &cmd_demo;
    CliArgs args;
    int stop, rc = cli_parse_graphs(cmd, argc, argv, &args, 0, 1, NULL, &stop);
    if (stop)
        return rc;
    AppOptions o = {0};
    long devices, stage;
    double seconds = 0;
    const char *secs = cli_get(cmd, &args, "auto");
    if (cli_int_or(cmd, &args, "devices", 0, &devices) ||
        cli_int(cmd, &args, "stage", &stage) ||
        (secs && secs[0] && cli_num(cmd, &args, "auto", &seconds)))
        return EXIT_USAGE;
    if (cli_get(cmd, &args, "loop") && !secs)
        return cli_usage_error(cmd, "--loop goes with --auto (the tour then starts again after its last stage)");
    char graph_buf[4096], policy_buf[4096];
    o.demo_own_graph = args.n_pos > 0; /* the tour stays on the user's graph */
    o.graph_path = args.n_pos ? args.pos[0] : data_path(graph_buf, sizeof graph_buf, "resnet18.json");
    o.policy_path = cli_get(cmd, &args, "policy");
    o.n_devices = (int)devices;
    int policy_devices, rnn_groups;
    Err e = {{0}};
    if (cli_policy_shape(cmd, &args, o.policy_path, &policy_devices, &rnn_groups, &e))
        return cli_fail(&e);
    if (policy_devices)
        o.n_devices = policy_devices;
    o.groups = rnn_groups; /* 0: the default grouping */
    if (!o.n_devices)
        o.n_devices = 2;
    if (!o.policy_path)
        o.policy_path = data_auto_policy(o.graph_path, o.n_devices, policy_buf, sizeof policy_buf);
    o.cluster = cli_policy_cluster(cmd, &args, o.policy_path); /* the one it was trained on, without --devices */
    char stage_paths[3][4096];
    if (!o.demo_own_graph && !cli_get(cmd, &args, "policy") && !cli_get(cmd, &args, "devices"))
        app_tour_options((int)stage - 1, &o, stage_paths); /* the default tour: the stage's graph and policy */
    o.seed = 1;
    o.demo = secs ? 2 : 1;
    o.demo_seconds = seconds; /* 0: the default (7 s) */
    o.demo_loop = cli_get(cmd, &args, "loop") != NULL;
    o.demo_stage = (int)stage - 1;
    return run_app(cmd, &args, &o);
}
