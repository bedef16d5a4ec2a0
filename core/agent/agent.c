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

/* ---- the trainers' options ---- */

int agent_arg_int(const AgentArgs *a, const char *name, long min, long max, long def, long *out, Err *e)
{
    const char *s = agent_arg(a, name);
    if (!s) {
        *out = def;
        return 0;
    }
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < min || v > max)
        return err_set(e, "--%s: expected an integer from %ld to %ld, got '%s'", name, min, max, s);
    *out = v;
    return 0;
}

int agent_arg_double(const AgentArgs *a, const char *name, double min, double max, double def, double *out,
                     Err *e)
{
    const char *s = agent_arg(a, name);
    if (!s) {
        *out = def;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !(v >= min && v <= max))
        return err_set(e, "--%s: expected a number from %g to %g, got '%s'", name, min, max, s);
    *out = v;
    return 0;
}
