/* agent: the registry's look-ups, the policy file read once, and the
 * trainers' option readers (agent.h). The list itself is agents.c's. */
#include "agent.h"
#include "policy_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AGENT_EXTRA_MAX 4
static const AgentKind *extra[AGENT_EXTRA_MAX];
static int n_extra;

int agent_count(void) { return agent_list_count + n_extra; }

const AgentKind *agent_at(int i)
{
    if (i < 0 || i >= agent_count())
        return NULL;
    return i < agent_list_count ? agent_list[i] : extra[i - agent_list_count];
}

const AgentKind *agent_find(const char *name)
{
    for (int i = 0; i < agent_count(); i++)
        if (strcmp(agent_at(i)->name, name) == 0)
            return agent_at(i);
    return NULL;
}

void agent_register(const AgentKind *k)
{
    if (n_extra >= AGENT_EXTRA_MAX)
        util_die("agent_register: more than %d extra agents", AGENT_EXTRA_MAX);
    if (!agent_find(k->name))
        extra[n_extra++] = k;
}

static const char *names(char *buf, size_t n, const char *q)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < agent_count() && at < n; i++) {
        int w = snprintf(buf + at, n - at, "%s%s%s%s", i ? (i + 1 == agent_count() ? " or " : ", ") : "", q,
                         agent_at(i)->name, q);
        at += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

const char *agent_names(void)
{
    static char buf[256];
    return names(buf, sizeof buf, "");
}

const char *agent_names_quoted(void)
{
    static char buf[256];
    return names(buf, sizeof buf, "\"");
}

/* ---- the policy file, read once ---- */

int agent_file_open(const char *path, AgentFile *f, Err *e)
{
    memset(f, 0, sizeof *f);
    if (!(f->text = util_read_file(path, &f->len, e)))
        return -1;
    f->path = xstrdup(path);
    if (jdoc_parse(&f->doc, f->path, f->text, f->len, e) != 0) {
        free(f->text);
        free(f->path);
        memset(f, 0, sizeof *f);
        return -1;
    }
    const char *name = "placeto"; /* a file that names no agent: Placeto's, as every early file */
    const cJSON *ag = cJSON_IsObject(f->doc.root) ? cJSON_GetObjectItemCaseSensitive(f->doc.root, "agent") : NULL;
    if (ag && !cJSON_IsString(ag)) {
        jdoc_err(&f->doc, e, "agent", "expected a string: %s", agent_names_quoted());
        agent_file_done(f);
        return -1;
    }
    if (ag)
        name = ag->valuestring;
    if (!(f->kind = agent_find(name))) {
        jdoc_err(&f->doc, e, "agent", "expected %s, got \"%s\"", agent_names_quoted(), name);
        agent_file_done(f);
        return -1;
    }
    return 0;
}

void agent_file_done(AgentFile *f)
{
    if (f->doc.root)
        jdoc_done(&f->doc);
    free(f->text);
    free(f->path);
    memset(f, 0, sizeof *f);
}

int agent_policy_open(const char *path, AgentPolicy *p, TrainState *ts, Err *e)
{
    memset(p, 0, sizeof *p);
    AgentFile f;
    if (agent_file_open(path, &f, e) != 0) {
        if (ts)
            train_state_init(ts, 1e-3, 0, 0);
        return -1;
    }
    p->kind = f.kind;
    p->checksum = util_hash64(f.text, f.len, 0);
    p->net = f.kind->file.load(&f, ts, e);
    p->n_trained = policy_file_peek_trained(&f.doc);
    if (p->net && policy_file_read_cluster(&f.doc, &p->cluster, e) < 0) {
        f.kind->file.free(p->net);
        p->net = NULL;
    }
    agent_file_done(&f);
    if (!p->net) {
        memset(p, 0, sizeof *p);
        return -1;
    }
    p->kind->file.info(p->net, &p->info);
    p->path = xstrdup(path);
    if (ts && p->cluster)
        ts->cluster = p->cluster; /* saved again (a resume, a strip), the file keeps the cluster it names */
    return 0;
}

/* A file's counters are read up to 2^53 (the integers a JSON number holds
 * exactly); a run continues only from at most AGENT_RESUME_MAX, so that what
 * it adds (far less than 2^52) still writes a file that reads back. */
int agent_counters_room(const char *path, const TrainState *ts, Err *e)
{
    const struct {
        const char *field;
        int64_t v;
    } c[] = {{"training.episodes", ts->episodes},
             {"training.simulations", ts->simulations},
             {"training.adam.step", ts->adam.step}};
    for (size_t i = 0; i < sizeof c / sizeof *c; i++)
        if (c[i].v > AGENT_RESUME_MAX)
            return err_set(e, "%s: %s is %lld, past 2^52 = %lld, the most a run may continue from (a file holds "
                              "counters up to 2^53)", path, c[i].field, (long long)c[i].v, (long long)AGENT_RESUME_MAX);
    for (int b = 0; b < ts->n_best; b++)
        if (ts->best[b].found_after > AGENT_RESUME_MAX)
            return err_set(e, "%s: best[%d].found_after is %lld, past 2^52 = %lld, the most a run may continue "
                              "from", path, b, (long long)ts->best[b].found_after, (long long)AGENT_RESUME_MAX);
    return 0;
}

int agent_policy_resume(const char *path, AgentPolicy *p, TrainState *ts, Err *e)
{
    if (agent_policy_open(path, p, ts, e) != 0)
        return -1;
    if (policy_file_read_checkpoint(path, p->kind->file.params(p->net), ts, e) < 0 ||
        agent_counters_room(path, ts, e) != 0) {
        agent_policy_close(p);
        return -1;
    }
    return 0;
}

void agent_policy_close(AgentPolicy *p)
{
    if (p->kind && p->net)
        p->kind->file.free(p->net);
    free(p->path);
    cluster_free(p->cluster);
    memset(p, 0, sizeof *p);
}

/* The policies loaded by agent_policy_cached, kept for the process. */
typedef struct Cached {
    AgentPolicy pol;
    TrainState ts;
} Cached;
static Cached *cache;
static int n_cache;

const AgentPolicy *agent_policy_cached(const char *path, const TrainState **ts, Err *e)
{
    for (int i = 0; i < n_cache; i++)
        if (strcmp(cache[i].pol.path, path) == 0) {
            if (ts)
                *ts = &cache[i].ts;
            return &cache[i].pol;
        }
    Cached c;
    if (agent_policy_open(path, &c.pol, &c.ts, e) != 0) {
        train_state_done(&c.ts);
        return NULL;
    }
    cache = xrealloc_array(cache, (size_t)n_cache + 1, sizeof *cache);
    cache[n_cache] = c;
    if (ts)
        *ts = &cache[n_cache].ts;
    return &cache[n_cache++].pol;
}

void agent_policy_cache_clear(void)
{
    for (int i = 0; i < n_cache; i++) {
        agent_policy_close(&cache[i].pol);
        train_state_done(&cache[i].ts);
    }
    free(cache);
    cache = NULL;
    n_cache = 0;
}

int agent_policy_take(const char *path, AgentPolicy *p, Err *e)
{
    for (int i = 0; i < n_cache; i++)
        if (strcmp(cache[i].pol.path, path) == 0) {
            *p = cache[i].pol;
            train_state_done(&cache[i].ts);
            cache[i] = cache[--n_cache];
            return 0;
        }
    return agent_policy_open(path, p, NULL, e);
}

int agent_place_file(const char *path, const Problem *pb, const AgentPlaceOpts *o, PlaceRun rows[2],
                     const char **start_name, Err *e)
{
    AgentPolicy p;
    TrainState ts;
    int n = -1;
    if (agent_policy_open(path, &p, &ts, e) == 0) {
        n = agent_place_runs(&p, &ts, pb, o, rows, start_name, e);
        agent_policy_close(&p);
    }
    train_state_done(&ts);
    return n;
}

int agent_place_untrained(const AgentPolicy *p, const Problem *pb, const AgentPlaceOpts *o, PlaceRun *row, Err *e)
{
    AgentPolicy u = *p;
    if (!(u.net = p->kind->file.untrained(p->net, o->seed, e)))
        return -1;
    PlaceRun rows[2];
    int n = agent_place_runs(&u, NULL, pb, o, rows, NULL, e); /* no training state: the zero-shot row alone */
    p->kind->file.free(u.net);
    if (n < 0)
        return -1;
    for (int k = 0; k + 1 < n; k++)
        place_run_free(&rows[k]);
    *row = rows[n - 1];
    size_t len = strlen(row->method) + sizeof "-untrained";
    char *name = xmalloc(len);
    snprintf(name, len, "%s-untrained", row->method);
    free(row->owned_name);
    row->owned_name = name;
    row->method = name;
    return 0;
}

int agent_trained_row(const TrainState *ts, const Problem *p, const char *name, PlaceRun *row)
{
    const TrainBest *b = ts ? train_best_find(ts, p->g, p->gr->n_groups) : NULL;
    if (!b || !isfinite(b->runtime_us))
        return 0;
    for (int k = 0; k < b->n_groups; k++)
        if (b->group_device[k] < 0 || b->group_device[k] >= p->c->n_devices)
            return 0;
    place_run_groups(p, name, b->group_device, NAN, row);
    row->placements = b->found_after;
    return 1;
}

int agent_place_runs(const AgentPolicy *p, const TrainState *ts, const Problem *pb, const AgentPlaceOpts *o,
                     PlaceRun rows[2], const char **start_name, Err *e)
{
    if (o->start != AGENT_START_DEFAULT && p->kind->place.refine == AGENT_REFINE_NONE)
        return err_set(e, "%s: %s policy places from its own start: --start heuristic does not apply", p->path,
                       p->kind->a_name);
    return p->kind->place.runs(p->kind, pb, p->path, p->net, ts, o, rows, start_name, e);
}

/* ---- options as data ---- */

const AgentOpt *agent_opt_find(const AgentOpt *opts, const char *name)
{
    for (const AgentOpt *o = opts; o && o->name; o++)
        if (strcmp(o->name, name) == 0)
            return o;
    return NULL;
}

static const AgentOpt *row_of(const AgentArgs *a, const char *name)
{
    const AgentOpt *o = agent_opt_find(a->opts, name);
    if (!o)
        o = agent_opt_find(a->more, name);
    if (!o)
        util_die("option --%s has no row in its table", name);
    return o;
}

/* A bound as it is read: the integers 1099511627776 as 2^40 and 1000000
 * as 10^6; the numbers 1e+09 as 1e9, 1e-09 as 1e-9. */
static void num_text(double v, int integer, char *buf, size_t n)
{
    if (integer && v >= 65536) {
        for (int k = 16; k < 63; k++)
            if (v == ldexp(1, k)) {
                snprintf(buf, n, "2^%d", k);
                return;
            }
    }
    if (integer && v >= 1e6 && v == floor(v)) {
        double p = 1e6;
        for (int k = 6; k < 16; k++, p *= 10)
            if (v == p) {
                snprintf(buf, n, "10^%d", k);
                return;
            }
    }
    char tmp[64];
    snprintf(tmp, sizeof tmp, integer ? "%.0f" : "%g", v);
    char *x = strchr(tmp, 'e'); /* 1e+09 -> 1e9, 1e-09 -> 1e-9 */
    if (x) {
        char *d = x + 1, *src = x + 1;
        if (*src == '+')
            src++;
        else if (*src == '-')
            *d++ = *src++;
        while (*src == '0' && src[1])
            src++;
        memmove(d, src, strlen(src) + 1);
    }
    snprintf(buf, n, "%s", tmp);
}

static void choice_list(const char *choices, char *buf, size_t n, int md, const char *def)
{
    size_t at = 0;
    int count = 0, total = 0;
    for (const char *c = choices; *c;) {
        size_t len = strcspn(c, " ");
        total += len > 0;
        c += len + (c[len] == ' ');
    }
    buf[0] = 0;
    for (const char *c = choices; *c && at < n;) {
        size_t len = strcspn(c, " ");
        if (len) {
            count++;
            const char *sep = count == 1 ? "" : count == total ? " or " : ", ";
            int is_def = def && strlen(def) == len && strncmp(def, c, len) == 0;
            at += (size_t)snprintf(buf + at, n - at, md ? "%s`%.*s`%s" : "%s%.*s%s", sep, (int)len, c,
                                   is_def ? " (default)" : "");
        }
        c += len + (c[len] == ' ');
    }
}

int agent_opt_check(const AgentOpt *o, const char *s, Err *e)
{
    char lo[64], hi[64];
    if (o->type == AGENT_OPT_INT) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (end == s || *end || errno || v < (long)o->min || v > (long)o->max) {
            snprintf(lo, sizeof lo, "%ld", (long)o->min);
            snprintf(hi, sizeof hi, "%ld", (long)o->max);
            return err_set(e, "--%s: expected an integer from %s to %s, got '%s'", o->name, lo, hi, s);
        }
    } else if (o->type == AGENT_OPT_NUM) {
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (end == s || *end || errno || !(v >= o->min && v <= o->max))
            return err_set(e, "--%s: expected a number from %g to %g, got '%s'", o->name, o->min, o->max, s);
    } else if (o->type == AGENT_OPT_WORD) {
        size_t len = strlen(s);
        for (const char *c = o->choices; *c;) {
            size_t l = strcspn(c, " ");
            if (l == len && strncmp(c, s, len) == 0)
                return 0;
            c += l + (c[l] == ' ');
        }
        char list[512];
        choice_list(o->choices, list, sizeof list, 0, NULL);
        return err_set(e, "--%s: expected %s, got '%s'", o->name, list, s);
    }
    return 0;
}

int agent_opt_table_check(const AgentOpt *t, Err *e)
{
    for (const AgentOpt *o = t; o && o->name; o++) {
        Err sub = {{0}};
        if (!o->name[0] || !o->help)
            return err_set(e, "option row %d: expected a name and a help", (int)(o - t));
        if (o->type != AGENT_OPT_TEXT && !o->arg)
            return err_set(e, "--%s: a typed option needs a value name (arg)", o->name);
        if ((o->type == AGENT_OPT_INT || o->type == AGENT_OPT_NUM) && !(o->min <= o->max))
            return err_set(e, "--%s: bounds %g > %g", o->name, o->min, o->max);
        if (o->type == AGENT_OPT_WORD && (!o->choices || !o->choices[0]))
            return err_set(e, "--%s: a word option needs its choices", o->name);
        if (o->def && o->type != AGENT_OPT_TEXT && agent_opt_check(o, o->def, &sub))
            return err_set(e, "--%s: its default does not pass its row: %s", o->name, sub.msg);
        if (strstr(o->help, "(default"))
            return err_set(e, "--%s: the help states a default; the row's def or note says it", o->name);
    }
    return 0;
}

static int read_long(const AgentOpt *o, const char *s, long *out, Err *e)
{
    if (agent_opt_check(o, s, e))
        return -1;
    *out = strtol(s, NULL, 10);
    return 0;
}

int agent_opt_int_or(const AgentArgs *a, const char *name, long def, long *out, Err *e)
{
    const AgentOpt *o = row_of(a, name);
    const char *s = agent_arg(a, name);
    if (!s) {
        *out = def;
        return 0;
    }
    return read_long(o, s, out, e);
}

int agent_opt_int(const AgentArgs *a, const char *name, long *out, Err *e)
{
    const AgentOpt *o = row_of(a, name);
    if (!o->def || o->type != AGENT_OPT_INT)
        util_die("option --%s: no integer default in its row", name);
    return agent_opt_int_or(a, name, strtol(o->def, NULL, 10), out, e);
}

int agent_opt_int_in(const AgentArgs *a, const char *name, long min, long max, long def, long *out, Err *e)
{
    AgentOpt o = *row_of(a, name);
    o.min = (double)min;
    o.max = (double)max;
    const char *s = agent_arg(a, name);
    if (!s) {
        *out = def;
        return 0;
    }
    return read_long(&o, s, out, e);
}

int agent_opt_num_or(const AgentArgs *a, const char *name, double def, double *out, Err *e)
{
    const AgentOpt *o = row_of(a, name);
    const char *s = agent_arg(a, name);
    if (!s) {
        *out = def;
        return 0;
    }
    if (agent_opt_check(o, s, e))
        return -1;
    *out = strtod(s, NULL);
    return 0;
}

int agent_opt_num(const AgentArgs *a, const char *name, double *out, Err *e)
{
    const AgentOpt *o = row_of(a, name);
    if (!o->def || o->type != AGENT_OPT_NUM)
        util_die("option --%s: no numeric default in its row", name);
    return agent_opt_num_or(a, name, strtod(o->def, NULL), out, e);
}

const char *agent_opt_word(const AgentArgs *a, const char *name, Err *e)
{
    const AgentOpt *o = row_of(a, name);
    const char *s = agent_arg(a, name);
    if (!s)
        return o->def;
    return agent_opt_check(o, s, e) ? NULL : s;
}

static void bounds_text(const AgentOpt *o, const char *dash, char *buf, size_t n)
{
    char lo[64], hi[64];
    num_text(o->min, o->type == AGENT_OPT_INT, lo, sizeof lo);
    num_text(o->max, o->type == AGENT_OPT_INT, hi, sizeof hi);
    snprintf(buf, n, "%s%s%s", lo, dash, hi);
}

void agent_opt_suffix(const AgentOpt *o, char *buf, size_t n)
{
    char range[160] = "";
    if (o->type == AGENT_OPT_INT || o->type == AGENT_OPT_NUM)
        bounds_text(o, "-", range, sizeof range);
    const char *def = o->def, *note = o->note;
    if (!range[0] && !def && !note) {
        buf[0] = 0;
        return;
    }
    snprintf(buf, n, "(%s%s%s%s%s%s%s)", range, range[0] && (def || note) ? ", " : "", def || note ? "default" : "",
             def ? " " : note ? ": " : "", def ? def : "", def && note ? "; " : "", note ? note : "");
}

void agent_opt_help(const AgentOpt *o, char *buf, size_t n)
{
    char suffix[256];
    agent_opt_suffix(o, suffix, sizeof suffix);
    snprintf(buf, n, "%s%s%s", o->help ? o->help : "", suffix[0] && o->help && o->help[0] ? " " : "", suffix);
}

void agent_opt_md(const AgentOpt *o, char *buf, size_t n)
{
    buf[0] = 0;
    if (o->type == AGENT_OPT_WORD) {
        choice_list(o->choices, buf, n, 1, o->def);
        size_t at = strlen(buf);
        if (o->note && at < n)
            snprintf(buf + at, n - at, o->def ? " (%s)" : " (default: %s)", o->note);
        return;
    }
    if (o->type != AGENT_OPT_INT && o->type != AGENT_OPT_NUM)
        return;
    char range[160];
    bounds_text(o, "–", range, sizeof range);
    const char *def = o->def, *note = o->note;
    snprintf(buf, n, "%s%s%s%s%s%s%s%s", range, def || note ? ", default" : "", def ? " " : note ? ": " : "",
             def ? def : "", def && note ? " (" : "", note ? note : "", def && note ? ")" : "", "");
}
