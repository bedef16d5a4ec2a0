/* train: REINFORCE training of the Placeto policy on one graph or a family,
 * with a progress bar (plain lines when stderr is not a terminal), a
 * learning-curve CSV and checkpoints that resume bit-exactly. */
#include <errno.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_train.h"
#include "agent.h"
#include "dist.h"
#include "jwrite.h"
#include "place.h"
#include "policy_file.h"
#include "policy_graph.h"

/* The options of `train`: the shared ones, then every registered agent's
 * own (agent.h, AgentTrainOps.opts), each name once (train_cli_init). */
static const CliOpt shared_opts[] = {
    {.name = "agent", .arg = "A"}, /* the help lists the registry (train_cli_init) */
    {.name = "episodes", .short_name = 'e', .arg = "K", .type = AGENT_OPT_INT, .min = 1, .max = 100000000, .def = "200",
     .help = "episodes to run (updates for rnn, gdp and hsdag)"},
    {.name = "output", .short_name = 'o', .arg = "POLICY", .help = "policy file to write", .note = "the --resume file, else policy.json"},
    {.name = "resume", .short_name = 'r', .arg = "POLICY", .help = "continue from a policy file and its training state"},
    CLI_OPT_CLUSTER,
    CLI_OPT_DEVICES,
    {.name = "groups", .short_name = 'g', .arg = "G", .type = AGENT_OPT_INT, .min = 1, .max = POLICY_MAX_GROUPS,
     .help = "target group count, or chains: HSDAG's coarsening", .note = "by graph size; --agent gdp up to 2^22"},
    CLI_OPT_SEED("1"),
    {.name = "curve", .arg = "CSV", .help = "write the learning curve, one row per episode"},
    {.name = "checkpoint-every", .arg = "K", .type = AGENT_OPT_INT, .min = 1, .max = 1L << 40, .def = "50",
     .help = "write the policy every K episodes"},
    {.name = "json", .help = "JSON lines on stdout: progress reports and a final summary (not with -o - or --curve -)"},
    {0},
};
static CliOpt train_opts[CLI_MAX_OPTS + 1];
static char agent_help[512], agent_choices[512];
/* `train --help`'s text after the options: Placeto's paragraph, then each
 * other agent's (its descriptor's train.help). */
static const char placeto_details[] =
        "The progress line shows episode, best runtime, the mean total reward of an episode and the\n"
        "policy's mean entropy (last 10 episodes), the entropy weight beta, episodes per second and\n"
        "the time left. Ctrl-C stops after the current round and saves.\n"
        "example: placeto train graphs/inception_v3.json --devices 2 --episodes 300 -o p.json\n"
        "example: placeto train graphs/families/nmt --episodes 2000 --threads 2 -o nmt.json";
static char train_details[8192];

static int n_shared(void)
{
    int n = 0;
    while (shared_opts[n].name)
        n++;
    return n;
}

static int has_opt(const CliOpt *opts, int n, const char *name)
{
    for (int k = 0; k < n; k++)
        if (strcmp(opts[k].name, name) == 0)
            return 1;
    return 0;
}

void train_cli_init(void)
{
    if (train_opts[0].name)
        return;
    int n = n_shared();
    memcpy(train_opts, shared_opts, (size_t)n * sizeof *train_opts);
    size_t at = (size_t)snprintf(agent_help, sizeof agent_help, "the learned placer to train:"), cat = 0;
    for (int i = 0; i < agent_count(); i++) {
        const AgentKind *k = agent_at(i);
        at += (size_t)snprintf(agent_help + at, at < sizeof agent_help ? sizeof agent_help - at : 0, " %s%s", k->name,
                               i + 1 < agent_count() ? "," : "");
        cat += (size_t)snprintf(agent_choices + cat, cat < sizeof agent_choices ? sizeof agent_choices - cat : 0, "%s%s",
                                i ? " " : "", k->name);
        for (const AgentOpt *o = k->train.opts; o && o->name; o++)
            if (!has_opt(train_opts, n, o->name)) {
                if (n >= CLI_MAX_OPTS)
                    util_die("train: more than %d options", CLI_MAX_OPTS);
                train_opts[n++] = *o;
            }
    }
    if (at < sizeof agent_help)
        at += (size_t)snprintf(agent_help + at, sizeof agent_help - at, "; `train --agent A --help` lists A's options");
    if (at >= sizeof agent_help || cat >= sizeof agent_choices)
        util_die("train: the registry's names are longer than the --agent row holds");
    train_opts[0].help = agent_help; /* a word: the registry's names, the first the default */
    train_opts[0].type = AGENT_OPT_WORD;
    train_opts[0].choices = agent_choices;
    train_opts[0].def = agent_at(0)->name;
    train_opts[n] = (CliOpt){0};
    at = (size_t)snprintf(train_details, sizeof train_details, "%s", placeto_details);
    for (int i = 0; i < agent_count(); i++)
        if (agent_at(i)->train.help && at < sizeof train_details)
            at += (size_t)snprintf(train_details + at, sizeof train_details - at, "\n%s", agent_at(i)->train.help);
    if (at >= sizeof train_details)
        util_die("train: the agents' help is longer than %zu bytes", sizeof train_details);
}

/* The options of agent k alone: the shared ones and its table. */
static void agent_opts(const AgentKind *k, CliOpt *out)
{
    int n = n_shared();
    memcpy(out, train_opts, (size_t)n * sizeof *out);
    for (const AgentOpt *o = k->train.opts; o && o->name && n < CLI_MAX_OPTS; o++)
        out[n++] = *o;
    out[n] = (CliOpt){0};
}

static int agent_has(const AgentKind *k, const char *name)
{
    for (const AgentOpt *o = k->train.opts; o && o->name; o++)
        if (strcmp(o->name, name) == 0)
            return 1;
    return 0;
}

const char *train_cli_refused(const CliCmd *cmd, const CliArgs *a, const AgentKind *k)
{
    for (int j = n_shared(); train_opts[j].name; j++)
        if (cli_get(cmd, a, train_opts[j].name) && !agent_has(k, train_opts[j].name))
            return train_opts[j].name;
    return NULL;
}

/* "--agent rnn, gdp or hsdag": the agents whose trainers take option name. */
void train_cli_whose(const char *name, char *buf, size_t n)
{
    int count = 0, total = 0;
    for (int i = 0; i < agent_count(); i++)
        total += agent_has(agent_at(i), name);
    size_t at = (size_t)snprintf(buf, n, "--agent");
    for (int i = 0; i < agent_count() && at < n; i++)
        if (agent_has(agent_at(i), name)) {
            count++;
            at += (size_t)snprintf(buf + at, n - at, "%s%s", count == 1 ? " " : count == total ? " or " : ", ",
                                   agent_at(i)->name);
        }
}

static int run_train(int argc, char **argv);

const CliCmd cmd_train = {
    .name = "train",
    .brief = "train a placer's policy (one graph or a family)",
    .usage = "GRAPH... [--episodes K] [-o POLICY] [--resume POLICY] [--devices N | --cluster F]",
    .summary =
        "Train a learned placer (Placeto by default, --agent for the others) on one graph, or on a\n"
        "family: several graphs or a directory of them. Writes the policy with its training state.",
    .details = train_details, /* the command's paragraph, then each agent's (train_cli_init) */
    .opts = train_opts,
    .run = run_train,
};

static volatile sig_atomic_t got_signal;
volatile int train_cli_stop;

static const char *volatile curve_tmp_path; /* removed when a second signal ends the run */

/* The first signal asks training to stop after its episode and save; a
 * second one ends the program at once (an episode on a large graph takes a
 * minute): the policy file holds the last checkpoint, written whole.
 * SIGUSR1 does the same: under mpirun it is the graceful stop, since mpirun
 * forwards it to every rank, whereas on SIGINT or SIGTERM it kills the ranks
 * a few seconds later, whether or not they have saved. */
static void on_signal(int sig)
{
    if (got_signal) {
        static const char msg[] = "\nplaceto: interrupted again: stopped now; the policy file holds the last checkpoint\n";
        ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)w;
        if (curve_tmp_path)
            unlink(curve_tmp_path);
        _exit(130);
    }
    got_signal = sig;
    train_cli_stop = 1;
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Expands directories into their .json files, sorted. */
char **train_cli_paths(const CliArgs *a, int *count, Err *e)
{
    char **out = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < a->n_pos; i++) {
        struct stat st;
        if (stat(a->pos[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            DIR *d = opendir(a->pos[i]);
            if (!d) {
                err_set(e, "%s: cannot read the directory", a->pos[i]);
                goto fail;
            }
            size_t first = n;
            struct dirent *de;
            while ((de = readdir(d))) {
                size_t len = strlen(de->d_name);
                if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0)
                    continue;
                xgrow((void **)&out, &cap, n + 1, sizeof *out);
                size_t sz = strlen(a->pos[i]) + len + 2;
                out[n] = xmalloc(sz);
                snprintf(out[n++], sz, "%s/%s", a->pos[i], de->d_name);
            }
            closedir(d);
            if (n == first) {
                err_set(e, "%s: no .json graphs in the directory", a->pos[i]);
                goto fail;
            }
            qsort(out + first, n - first, sizeof *out, cmp_str);
        } else {
            xgrow((void **)&out, &cap, n + 1, sizeof *out);
            out[n++] = xstrdup(a->pos[i]);
        }
    }
    *count = (int)n;
    return out;
fail:
    for (size_t k = 0; k < n; k++)
        free(out[k]);
    free(out);
    return NULL;
}


static void fmt_eta(char *buf, size_t n, double s)
{
    if (!(s >= 0) || s > 1e7)
        snprintf(buf, n, "--");
    else if (s >= 3600)
        snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
    else if (s >= 60)
        snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else
        snprintf(buf, n, "%.0fs", s);
}

/* A CSV field (RFC 4180): quoted, with quotes doubled, when it holds a
 * comma, a quote or a line break. */
static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void train_cli_on_episode(const TrainReport *r, void *ud)
{
    Progress *p = ud;
    if (p->quiet)
        return;
    p->recent[p->n_recent % TRAIN_BASELINE_WINDOW] = r->ret;
    p->recent_ent[p->n_recent % TRAIN_BASELINE_WINDOW] = r->entropy;
    p->n_recent++;
    int m = p->n_recent < TRAIN_BASELINE_WINDOW ? p->n_recent : TRAIN_BASELINE_WINDOW;
    double mean = 0, ment = 0;
    for (int k = 0; k < m; k++) {
        mean += p->recent[k];
        ment += p->recent_ent[k];
    }
    mean /= m;
    ment /= m; /* NAN when the agent does not measure its entropy */
    char b1[32], b2[32], b3[32], ent[32];
    if (isfinite(ment))
        snprintf(ent, sizeof ent, "  entropy %.3f", ment);
    else
        ent[0] = '\0';
    if (p->curve) {
        fprintf(p->curve, "%lld,", (long long)r->episode);
        csv_field(p->curve, p->graphs[r->graph].g->name);
        fprintf(p->curve, ",%s,%s,%.9g,%.9g,", util_fmt_double(b1, r->runtime_us),
                util_fmt_double(b2, r->best_runtime_us), r->ret, r->loss);
        if (isfinite(r->entropy)) /* empty: not measured */
            fprintf(p->curve, "%.6g", r->entropy);
        fprintf(p->curve, ",%.6g,%lld\n", r->beta, (long long)r->simulations);
    }
    int64_t done = r->episode - p->first;
    double el = util_now() - p->t0, rate = el > 0 ? (double)done / el : 0;
    double eta = rate > 0 ? (double)(p->total - done) / rate : -1;
    int last = done >= p->total;
    const char *gname = p->graphs[r->graph].g->name;
    if (p->json) {
        if (done % p->every == 0 || last) {
            JWriter w;
            jw_init(&w, stdout);
            jw_object(&w);
            jw_key(&w, "episode");
            jw_int(&w, r->episode);
            jw_key(&w, "graph");
            jw_string(&w, gname);
            jw_key(&w, "runtime_us");
            jw_number(&w, r->runtime_us);
            jw_key(&w, "best_runtime_us");
            jw_number(&w, r->best_runtime_us);
            jw_key(&w, "mean_return"); /* the episodes' total rewards */
            jw_number(&w, mean);
            if (isfinite(ment)) {
                jw_key(&w, "mean_entropy");
                jw_number(&w, ment);
            }
            jw_key(&w, "beta");
            jw_number(&w, r->beta);
            jw_key(&w, "placements_simulated");
            jw_int(&w, r->simulations);
            jw_key(&w, "episodes_per_second");
            jw_number(&w, rate);
            jw_finish(&w);
        }
        return;
    }
    fmt_eta(b3, sizeof b3, eta);
    if (p->tty) {
        double now = util_now();
        if (!last && now - p->last_draw < 0.1)
            return;
        p->last_draw = now;
        int width = 24, fill = (int)((double)width * (double)done / (double)(p->total ? p->total : 1));
        char bar[64];
        for (int k = 0; k < width; k++)
            bar[k] = k < fill ? '#' : '.';
        bar[width] = '\0';
        fprintf(stderr, "\r[%s] ep %lld/%lld  %s best %s  reward %+.4g%s  beta %.3g  %.2f ep/s  ETA %s \033[K",
                bar, (long long)r->episode, (long long)(p->first + p->total), p->n_graphs > 1 ? gname : "",
                util_fmt_time(b1, r->best_runtime_us), mean, ent, r->beta, rate, b3);
        if (last)
            fputc('\n', stderr);
    } else if (done % p->every == 0 || last) {
        fprintf(stderr, "episode %lld/%lld  %s  best %s  reward %+.4g%s  beta %.3g  %.2f ep/s  ETA %s\n",
                (long long)r->episode, (long long)(p->first + p->total), gname,
                util_fmt_time(b1, r->best_runtime_us), mean, ent, r->beta, rate, b3);
    }
}

static void json_number_or_null(JWriter *w, double x)
{
    if (isfinite(x))
        jw_number(w, x);
    else
        jw_null(w);
}

/* The closing JSON line or text lines. */
static void print_summary(const Progress *pr, const TrainState *ts, const char *out)
{
    char b1[32];
    TrainClosing cl[TRAIN_CLOSING_GRAPHS];
    int ncl = train_cli_closing(pr, out, cl);
    if (pr->json) {
        JWriter w;
        jw_init(&w, stdout);
        jw_object(&w);
        jw_key(&w, "episodes");
        jw_int(&w, ts->episodes);
        jw_key(&w, "best_runtime_us");
        jw_number(&w, ts->best[0].runtime_us);
        jw_key(&w, "placements_simulated");
        jw_int(&w, ts->simulations);
        jw_key(&w, "seconds");
        jw_number(&w, util_now() - pr->t0);
        jw_key(&w, "graphs");
        jw_array(&w);
        for (int i = 0; i < ts->n_best; i++) {
            jw_object(&w);
            jw_key(&w, "graph");
            jw_string(&w, ts->best[i].graph);
            jw_key(&w, "best_runtime_us");
            jw_number(&w, ts->best[i].runtime_us);
            jw_key(&w, "found_after");
            jw_int(&w, ts->best[i].found_after);
            jw_end(&w);
        }
        jw_end(&w);
        if (ts->kept_episode >= 0) {
            jw_key(&w, "kept_episode"); /* --keep best: the episode whose weights the file holds */
            jw_int(&w, ts->kept_episode);
        }
        jw_key(&w, "closing"); /* per training graph (up to 4): what `place --policy OUT` gives, and the others */
        jw_array(&w);
        for (int i = 0; i < ncl; i++) {
            jw_object(&w);
            jw_key(&w, "graph");
            jw_string(&w, pr->problems[i].g->name);
            jw_key(&w, "policy_row");
            jw_string(&w, cl[i].row);
            jw_key(&w, "policy_us");
            json_number_or_null(&w, cl[i].policy_us);
            jw_key(&w, "untrained_us");
            json_number_or_null(&w, cl[i].untrained_us);
            jw_key(&w, "heuristic");
            jw_string(&w, cl[i].heuristic);
            jw_key(&w, "heuristic_us");
            json_number_or_null(&w, cl[i].heuristic_us);
            jw_key(&w, "best_seen_us");
            json_number_or_null(&w, cl[i].seen_us);
            jw_end(&w);
        }
        jw_finish(&w);
    } else {
        for (int i = 0; i < ts->n_best; i++)
            fprintf(stderr, "%s: best %s after %lld placements\n", ts->best[i].graph,
                    util_fmt_time(b1, ts->best[i].runtime_us), (long long)ts->best[i].found_after);
        for (int i = 0; i < ncl; i++) {
            char b2[32], b3[32], b4[32], kept[64] = "";
            if (ts->kept_episode >= 0)
                snprintf(kept, sizeof kept, ", the weights of episode %lld", (long long)ts->kept_episode);
            fprintf(stderr, "%s: the policy's own placement %s (%s%s), its untrained control %s, best heuristic %s "
                    "(%s), best seen in training %s\n", pr->problems[i].g->name, util_fmt_time(b1, cl[i].policy_us),
                    cl[i].row, kept, util_fmt_time(b2, cl[i].untrained_us), util_fmt_time(b3, cl[i].heuristic_us),
                    cl[i].heuristic, util_fmt_time(b4, cl[i].seen_us));
        }
        if (ncl > 0)
            fprintf(stderr, "placeto: `place --policy %s` gives the policy's own placement; `compare --policy %s` "
                    "shows the best seen in training too\n", out, out);
        fprintf(stderr, "placeto: %lld episodes in %.1f s; wrote %s\n", (long long)(ts->episodes - pr->first),
                util_now() - pr->t0, out);
    }
}

/* Ctrl-C, SIGTERM and SIGUSR1 stop training after its episode (on_signal);
 * with usr1_only, SIGUSR1 alone: from the start of the command, so that a
 * SIGUSR1 forwarded by mpirun while the ranks load their graphs stops them
 * after the first update instead of killing them, while Ctrl-C during the
 * set-up still ends the program at once. */
static void catch_signals(const char *curve_tmp, int usr1_only)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    curve_tmp_path = curve_tmp;
    sigaction(SIGUSR1, &sa, NULL);
    if (usr1_only)
        return;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}


int train_cli_abort(Err *e)
{
    dist_agree(1, e);
    return cli_fail(e);
}

int train_cli_begin(int failed, const Problem *pb, int n, const TrainState *ts, Err *e)
{
    if (dist_agree(failed, e) != 0)
        return -1;
    /* the same files and state on every rank (a host with other files at
     * the same paths would train something else): their checksums hashed */
    uint64_t h = 1469598103934665603ULL;
    uint64_t words[] = {(uint64_t)n, (uint64_t)ts->episodes, (uint64_t)ts->adam.step, (uint64_t)ts->simulations};
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
        h = (h ^ words[k]) * 1099511628211ULL;
    for (int i = 0; i < n; i++)
        h = (h ^ pb[i].g->checksum) * 1099511628211ULL;
    if (dist_same(h) != 0)
        return err_set(e, "the ranks disagree on the graph files or the resumed policy: every host needs the same "
                          "files at the same paths");
    return 0;
}

int train_cli_loop(const TrainLoop *l, Progress *pr, TrainState *ts, int64_t every, const char *out,
                      const char *curve_path, Err *e)
{
    AtomicFile af = {0};
    pr->quiet = dist_rank() > 0; /* rank 0 alone prints and writes */
    if (pr->quiet)
        curve_path = NULL;
    int failed = 0;
    if (curve_path) {
        if (util_atomic_open(&af, curve_path, e) != 0) { /* the same temporaries as every save */
            err_prefix(e, "cannot write the learning curve");
            failed = 1;
        } else {
            pr->curve = af.f;
            fputs("episode,graph,runtime_us,best_runtime_us,return,loss,entropy,beta,placements_simulated\n", pr->curve);
        }
    }
    if (dist_agree(failed, e) != 0) {
        if (pr->curve)
            util_atomic_abort(&af);
        return -1;
    }
    pr->tty = isatty(2);
    pr->every = pr->total >= 20 ? pr->total / 20 : 1;
    pr->t0 = util_now();
    catch_signals(curve_path ? af.tmp : NULL, 0);
    int64_t ran = 0;
    int rc = 0, stopped = 0;
    while (ran < pr->total && !stopped && rc == 0) {
        int64_t chunk = every - (ts->episodes % every);
        if (chunk > pr->total - ran)
            chunk = pr->total - ran;
        double t0 = util_now();
        ran += l->run(l->trainer, chunk, train_cli_on_episode, pr, &train_cli_stop);
        ts->seconds += util_now() - t0;
        rc = pr->quiet ? 0 : l->save(l->policy, ts, out, e);
        rc = dist_agree(rc != 0, e); /* a failed save stops every rank */
        /* agreed: a rank whose signal came after the run's last check
         * stops here with the others, not one chunk later */
        stopped = dist_any(train_cli_stop);
    }
    curve_tmp_path = NULL;
    if (rc != 0) {
        if (curve_path)
            util_atomic_abort(&af);
        return -1;
    }
    if (pr->quiet)
        return 0;
    if (stopped)
        fprintf(stderr, "\nplaceto: %s after %s %lld; saved %s\n",
                got_signal == SIGUSR1 ? "stopped (SIGUSR1)" : got_signal == SIGTERM ? "stopped (SIGTERM)"
                : got_signal ? "interrupted" : "stopped with the other ranks",
                l->unit, (long long)ts->episodes, out);
    if (curve_path && util_atomic_commit(&af, e) != 0) {
        err_prefix(e, "cannot write the learning curve");
        return -1; /* the policy is saved; the command still fails */
    }
    print_summary(pr, ts, out);
    return 0;
}


void train_cli_fresh_optimizer(const char *resume, TrainState *fresh, TrainState *ts)
{
    if (ts->episodes > 0 && dist_rank() == 0) {
        char ck[4200];
        policy_file_checkpoint_path(ck, sizeof ck, resume);
        if (!policy_file_keeps_checkpoint(resume))
            snprintf(ck, sizeof ck, "not a regular file: none is kept beside it");
        fprintf(stderr, "placeto: %s has no checkpoint (%s): training goes on from its weights with a fresh "
                        "optimizer state\n", resume, ck);
    }
    train_state_keep_progress(fresh, ts);
}

void train_cli_free_graphs(Problem *pb, TrainGraph *tg, int n)
{
    for (int i = 0; i < n; i++) {
        policy_graph_free(tg[i].pg);
        problem_free(&pb[i]);
    }
    free(tg);
    free(pb);
}


/* Loads the training graphs onto the one cluster of spec (with each one's
 * policy graph when policy_graphs): distinct names, since the policy file
 * keeps each graph's best placement by name. */
int train_cli_load_graphs(ProblemSpec *spec, char **paths, int n, Problem *pb, TrainGraph *tg, int policy_graphs,
                       Err *e)
{
    for (int i = 0; i < n; i++) {
        spec->graph_path = paths[i];
        if (problem_load(&pb[i], spec, e) != 0)
            return -1;
        tg[i] = (TrainGraph){pb[i].g, pb[i].gr, NULL};
        if (policy_graphs && !(tg[i].pg = policy_graph_new(tg[i].gr, e))) {
            err_prefix(e, paths[i]);
            return -1;
        }
        for (int j = 0; j < i; j++)
            if (strcmp(pb[j].g->name, pb[i].g->name) == 0)
                return err_set(e, "%s: graph \"%s\" has the name of %s; the policy keeps each graph's best placement "
                               "by name, so training graphs need different names", paths[i], pb[i].g->name, paths[j]);
    }
    return 0;
}

/* ---- The ranks' configurations (placeto-mpi) ------------------------------
 * Before anything else every rank's arguments as parsed and a digest of
 * every input file are gathered to rank 0 and compared: ranks that would
 * train something else (other options, other files at the same paths) or
 * that met a usage error alone would otherwise deadlock, abort or write a
 * policy that matches neither. A record is a list of fields, key NUL value
 * NUL; a value is compared up to a tab (a digest, then its file's name). */

#define UNSET "\x01" /* an option not given */
#define UNKNOWN "\x02" /* a file this rank cannot read: its loader says so */

typedef struct Rec {
    char *p;
    size_t n, cap;
} Rec;

static void rec_add(Rec *r, const char *key, const char *val)
{
    size_t k = strlen(key) + 1, v = strlen(val) + 1;
    xgrow((void **)&r->p, &r->cap, r->n + k + v, 1);
    memcpy(r->p + r->n, key, k);
    memcpy(r->p + r->n + k, val, v);
    r->n += k + v;
}

/* "HEX\tPATH" for a readable file, else UNKNOWN (standard input, which
 * rank 0 alone has, is not read here). */
static void rec_file(Rec *r, const char *key, const char *path)
{
    FILE *f = strcmp(path, "-") == 0 ? NULL : fopen(path, "rb");
    struct stat st;
    if (f && (fstat(fileno(f), &st) != 0 || S_ISDIR(st.st_mode))) {
        fclose(f);
        f = NULL;
    }
    if (!f) {
        rec_add(r, key, UNKNOWN);
        return;
    }
    unsigned char buf[65536];
    uint64_t h = 0;
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        h = util_hash64(buf, got, h ^ 1469598103934665603ULL);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        rec_add(r, key, UNKNOWN);
        return;
    }
    char val[4200];
    snprintf(val, sizeof val, "%016llx\t%s", (unsigned long long)h, path);
    rec_add(r, key, val);
}

/* The value of key in a record of n bytes, or NULL. */
static const char *rec_find(const char *p, size_t n, const char *key)
{
    for (size_t at = 0; at < n;) {
        const char *k = p + at, *v = k + strlen(k) + 1;
        if (strcmp(k, key) == 0)
            return v;
        at = (size_t)(v + strlen(v) + 1 - p);
    }
    return NULL;
}

static int same_value(const char *x, const char *y)
{
    size_t nx = strcspn(x, "\t"), ny = strcspn(y, "\t");
    return nx == ny && memcmp(x, y, nx) == 0;
}

static void show_value(FILE *f, int rank, const char *key, const char *v)
{
    const char *tab = v ? strchr(v, '\t') : NULL;
    if (!v || strcmp(v, UNSET) == 0)
        fprintf(f, "rank %d has no %s", rank, strncmp(key, "--", 2) == 0 ? key : "value");
    else if (tab)
        fprintf(f, "rank %d has %s (digest %.*s)", rank, tab + 1, (int)(tab - v), v);
    else
        fprintf(f, "rank %d has %s", rank, v);
}

/* An option's value as the ranks compare it: a number in one spelling (0.01
 * and 1e-2 agree) and, for an option left out, the numeric default of its
 * row, so that --seed 1 agrees with no --seed. Not under
 * --preset, which sets other defaults: there an option left out is compared
 * as left out. */
static const char *option_value(const CliOpt *o, const char *v, int defaults, char *buf, size_t n)
{
    if (!o->arg)
        return v ? "given" : UNSET;
    if (!v) {
        const char *d = defaults ? o->def : NULL; /* the row's default */
        if (!d)
            return UNSET;
        char *end;
        (void)strtod(d, &end);
        if (end == d || *end != '\0') /* not a number: a word */
            return UNSET;
        snprintf(buf, n, "%s", d);
        v = buf;
    }
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end != '\0' || !isfinite(x))
        return v;
    for (int digits = 15; digits <= 17; digits++) { /* the shortest spelling that reads back */
        snprintf(buf, n, "%.*g", digits, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    return buf;
}

static Rec train_cli_record(const CliCmd *cmd, const CliArgs *a, int stop, int rc)
{
    Rec r = {0};
    char key[64], val[640];
    if (stop && rc != EXIT_OK) {
        snprintf(val, sizeof val, "usage error\t%s", cli_last_usage());
        rec_add(&r, "status", val);
        return r;
    }
    rec_add(&r, "--help", stop ? "given" : UNSET);
    if (stop)
        return r;
    int preset = cli_get(cmd, a, "preset") != NULL;
    /* --preset first: it sets the other options' defaults, so a rank
     * without it differs on those too, and the preset is the cause */
    for (int pass = 0; pass < 2; pass++) {
        for (int j = 0; cmd->opts[j].name; j++) {
            if ((strcmp(cmd->opts[j].name, "preset") == 0) != (pass == 0))
                continue;
            snprintf(key, sizeof key, "--%s", cmd->opts[j].name);
            rec_add(&r, key, option_value(&cmd->opts[j], a->values[j], !preset, val, sizeof val));
        }
    }
    Err e = {0};
    int n = 0;
    char **paths = train_cli_paths(a, &n, &e);
    if (paths) { /* else its loader reports the directory */
        snprintf(val, sizeof val, "%d", n);
        rec_add(&r, "the number of graphs", val);
        for (int i = 0; i < n; i++) {
            snprintf(key, sizeof key, "the graph files: graph %d of %d", i + 1, n);
            rec_file(&r, key, paths[i]);
            free(paths[i]);
        }
        free(paths);
    }
    const char *cluster = cli_get(cmd, a, "cluster"), *resume = cli_get(cmd, a, "resume");
    if (cluster)
        rec_file(&r, "the contents of --cluster", cluster);
    if (resume) {
        rec_file(&r, "the contents of --resume", resume);
        char ck[4200];
        policy_file_checkpoint_path(ck, sizeof ck, resume);
        rec_file(&r, "the contents of the --resume policy's checkpoint", ck);
    }
    return r;
}

/* Rank 0 names the first field on which a rank differs from it (or a usage
 * error met by another rank alone) and every rank returns EXIT_USAGE; 0 when
 * all agree. One rank: nothing to compare. */
static int train_cli_same_config(const CliCmd *cmd, const CliArgs *a, int stop, int rc)
{
    int R = dist_size();
    if (R == 1)
        return 0;
    if (!stop) { /* standard input reaches rank 0 alone: the others would read an empty one */
        const char *in = NULL;
        for (int i = 0; i < a->n_pos && !in; i++)
            if (strcmp(a->pos[i], "-") == 0)
                in = "GRAPH -";
        for (int j = 0; cmd->opts[j].name && !in; j++)
            if (cmd->opts[j].arg && a->values[j] && strcmp(a->values[j], "-") == 0 &&
                (strcmp(cmd->opts[j].name, "cluster") == 0 || strcmp(cmd->opts[j].name, "resume") == 0))
                in = strcmp(cmd->opts[j].name, "cluster") == 0 ? "--cluster -" : "--resume -";
        if (in) {
            cli_usage_error(cmd, "%s: standard input reaches rank 0 only; under placeto-mpi give it as a file "
                                 "every rank can read", in);
            stop = 1;
            rc = EXIT_USAGE;
        }
    }
    Rec mine = train_cli_record(cmd, a, stop, rc);
    size_t *sizes = xnew_array((size_t)R, sizeof *sizes);
    unsigned char *all = dist_gather(mine.p, mine.n, sizes);
    int failed = 0;
    if (dist_rank() == 0) {
        const char **recs = xnew_array((size_t)R, sizeof *recs);
        for (size_t q = 0, at = 0; q < (size_t)R; at += sizes[q], q++)
            recs[q] = (const char *)all + at;
        /* a usage error: rank 0's own is printed already */
        for (int q = 0; q < R && !failed; q++) {
            const char *st = rec_find(recs[q], sizes[q], "status");
            if (st) {
                failed = 1;
                if (q > 0 && !rec_find(recs[0], sizes[0], "status"))
                    cli_usage_error(cmd, "rank %d of %d: %s", q, R, strchr(st, '\t') + 1);
            }
        }
        /* the first key of rank 0's record (then of the others') on which a
         * rank differs; a file a rank cannot read is left to its loader */
        for (int base = 0; base < R && !failed; base++)
            for (size_t at = 0; at < sizes[base] && !failed;) {
                const char *key = recs[base] + at, *v = key + strlen(key) + 1;
                at = (size_t)(v + strlen(v) + 1 - recs[base]);
                int differ = 0, unknown = 0;
                for (int q = 0; q < R; q++) {
                    const char *w = rec_find(recs[q], sizes[q], key);
                    unknown |= w ? strcmp(w, UNKNOWN) == 0 : strncmp(key, "--", 2) != 0;
                    differ |= !w || !same_value(w, v);
                }
                if (!differ || unknown)
                    continue;
                failed = 1;
                const char *v0 = rec_find(recs[0], sizes[0], key);
                fprintf(stderr, "placeto-mpi: train: ranks disagree on %s: ", key);
                show_value(stderr, 0, key, v0);
                for (int q = 1; q < R; q++) {
                    const char *w = rec_find(recs[q], sizes[q], key);
                    if (!w || !v0 || !same_value(w, v0)) {
                        fputs(", ", stderr);
                        show_value(stderr, q, key, w);
                    }
                }
                fputs(v0 && strchr(v0, '\t') ? " (every host needs the same files at the same paths)\n" : "\n", stderr);
            }
        free(recs);
    }
    free(all);
    free(mine.p);
    free(sizes);
    Err e = {0};
    return dist_agree(failed, &e) != 0 ? -1 : 0;
}

static int run_train(int argc, char **argv)
{
    const CliCmd *cmd = &cmd_train;
    train_cli_init();
    /* `train --agent A --help`: the shared options and A's alone */
    const char *want = NULL;
    int help = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            help = 1;
        else if (strcmp(argv[i], "--agent") == 0 && i + 1 < argc)
            want = argv[i + 1];
        else if (strncmp(argv[i], "--agent=", 8) == 0)
            want = argv[i] + 8;
    }
    if (help && want && agent_find(want)) {
        static CliOpt mine[CLI_MAX_OPTS + 1];
        agent_opts(agent_find(want), mine);
        CliCmd one = *cmd;
        one.opts = mine;
        char summary[512];
        snprintf(summary, sizeof summary, "Train %s on one graph, or on a family: several graphs or a directory of\n"
                 "them. Writes the policy with its training state.", agent_find(want)->title);
        one.summary = summary;
        one.details = agent_find(want)->train.help ? agent_find(want)->train.help : placeto_details;
        cli_help(&one, stdout);
        return EXIT_OK;
    }
    CliArgs a;
    int stop, rc = cli_parse_graphs(cmd, argc, argv, &a, 1, (int)(sizeof a.pos / sizeof a.pos[0]), NULL, &stop);
    if (train_cli_same_config(cmd, &a, stop, rc) != 0)
        return EXIT_USAGE;
    if (stop)
        return rc;
    catch_signals(NULL, 1);
    const char *agent = cli_get(cmd, &a, "agent");
    const AgentKind *kind = agent ? agent_find(agent) : agent_at(0);
    if (!kind)
        return cli_usage_error(cmd, "--agent: expected %s, got '%s'", agent_names(), agent);
    return train_cli_agent(cmd, &a, kind);
}
