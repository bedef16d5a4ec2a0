/* episode_io: the episode file (docs/formats.md, "placeto-episode"): save an
 * Episode with everything needed to resume it, and rebuild it exactly.
 *
 * Layout of a file:
 *   {"format": "placeto-episode", "version": 1,
 *    "graph": {"path", "checksum"}, "cluster": {a placeto-cluster object},
 *    "grouping": {"groups", "n_groups"}, "policy": {"path", "checksum"} | null,
 *    "config": {"passes", "random_order", "init", "oom_penalty", "log_runtime", "mem_feature",
 *               ["extended_features"], ["relative_reward"], ["accept_improving"], ["reject_zero"]},
 *    "seed", "rng", "order": [group names], "cursor", "visits": [per group],
 *    "init_placement": {group: device}, "placement": {group: device},
 *    "best": {"runtime_us", "score", "found_after", "placement"},
 *    "history": [{"cursor", "group", "old", "new", "actor", "greedy", "probs",
 *                 "runtime_us", "reward", "rng_before", "rng_after"}, ...],
 *    "redo": entries at the end of history that are undone, "simulations"}
 * Groups are named (their Grouping names), devices are indices into the
 * cluster. 64-bit words (checksums, seed, RNG state) are hex strings; floats
 * print with "%.9g" (more digits when needed), doubles with util_fmt_double,
 * so every number reads back bit-exact.
 *
 * Loading rebuilds graph (from its saved path, refusing a changed file),
 * cluster, grouping, policy graph and Episode (started from the saved initial
 * placement, so that its initial runtime is recomputed), then restores the
 * visit order, cursor, visits, history, RNG, placement (re-simulated), best
 * and simulation count. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "episode.h"
#include "jdoc.h"

static const char *const INIT_NAMES[] = {"random-fixed", "device0", "random-each", "given"};
#define N_INIT ((int)(sizeof INIT_NAMES / sizeof *INIT_NAMES))

/* ---- writing ------------------------------------------------------------- */

static void write_rng(FILE *f, const Rng *r)
{
    fputc('[', f);
    for (int i = 0; i < 4; i++) {
        if (i)
            fputs(", ", f);
        util_json_hex64(f, r->s[i]);
    }
    fputc(']', f);
}

/* {"group name": device, ...} in group order. */
static void write_map(FILE *f, const Grouping *gr, const int *dev)
{
    fputc('{', f);
    for (int k = 0; k < gr->n_groups; k++) {
        fputs(k ? ",\n  " : "\n  ", f);
        util_json_string(f, gr->names[k]);
        fprintf(f, ": %d", dev[k]);
    }
    fputc('}', f);
}

static void write_step(FILE *f, const Episode *ep, const EpisodeStep *s)
{
    char b1[40], b2[32];
    fprintf(f, "{\"cursor\": %d, \"group\": ", s->cursor);
    util_json_string(f, ep->gr->names[s->group]);
    fprintf(f, ", \"old\": %d, \"new\": %d, \"actor\": \"%s\", ", s->old_device, s->new_device,
            s->actor == EPISODE_ACTOR_USER ? "user" : "policy");
    if (s->actor == EPISODE_ACTOR_USER && s->takes_step)
        fputs("\"takes_step\": true, ", f);
    if (s->proposed != s->new_device) /* a move tried and undone as slower (accept_improving) */
        fprintf(f, "\"proposed\": %d, ", s->proposed);
    fprintf(f, "\"greedy\": %s, \"probs\": ", s->greedy ? "true" : "false");
    if (s->probs) {
        fputc('[', f);
        for (int d = 0; d < ep->n_devices; d++)
            fprintf(f, d ? ", %s" : "%s", util_fmt_float(b1, s->probs[d]));
        fputc(']', f);
    } else {
        fputs("null", f);
    }
    fprintf(f, ",\n   \"runtime_us\": %s, \"reward\": %s, \"rng_before\": ", util_fmt_double(b2, s->runtime_us),
            util_fmt_double(b1, s->reward));
    write_rng(f, &s->rng_before);
    fputs(", \"rng_after\": ", f);
    write_rng(f, &s->rng_after);
    fputc('}', f);
}

int episode_save(const Episode *ep, const char *policy_path, uint64_t policy_checksum,
                 const char *path, Err *e)
{
    if (!ep->g->path || !ep->g->path[0])
        return err_set(e, "%s: cannot save the episode: its graph \"%s\" was not read from a file", path,
                       ep->g->name);
    for (int i = 0; i < ep->n_hist + ep->n_redo; i++)
        if (ep->hist[i].probs)
            for (int d = 0; d < ep->n_devices; d++)
                if (!isfinite(ep->hist[i].probs[d]))
                    return err_set(e, "%s: cannot save: history[%d] has a non-finite probability", path, i);
    if (util_utf8_invalid(ep->g->path) >= 0 || (policy_path && util_utf8_invalid(policy_path) >= 0))
        return err_set(e, "%s: cannot save: the %s file's path is not UTF-8 text (a JSON string cannot hold it)",
                       path, util_utf8_invalid(ep->g->path) >= 0 ? "graph" : "policy");
    char field[64];
    Err ce = {{0}};
    if (episode_check_state(ep, field, sizeof field, &ce) != 0) /* what the loader would refuse */
        return err_set(e, "%s: cannot save: %s: %s", path, field, ce.msg);
    AtomicFile af;
    if (util_atomic_open(&af, path, e) != 0)
        return -1;
    FILE *f = af.f;
    const Grouping *gr = ep->gr;
    const EpisodeConfig *cfg = &ep->cfg;
    char b1[32], b2[32];
    fputs("{\"format\": \"placeto-episode\", \"version\": 1,\n \"graph\": {\"path\": ", f);
    char *rel = util_path_relative_to(ep->g->path, path); /* so the episode resumes from any directory */
    util_json_string(f, rel);
    free(rel);
    fputs(", \"checksum\": ", f);
    util_json_hex64(f, ep->g->checksum);
    fputs("},\n \"cluster\": ", f);
    cluster_print(ep->c, f, " ");
    fprintf(f, ",\n \"grouping\": {\"groups\": %d, \"n_groups\": %d},\n \"policy\": ", gr->target, gr->n_groups);
    if (policy_path) {
        fputs("{\"path\": ", f);
        char *prel = util_path_relative_to(policy_path, path);
        util_json_string(f, prel);
        free(prel);
        fputs(", \"checksum\": ", f);
        util_json_hex64(f, policy_checksum);
        fputc('}', f);
    } else {
        fputs("null", f);
    }
    int init = cfg->init >= 0 && (int)cfg->init < N_INIT ? (int)cfg->init : 0;
    fprintf(f, ",\n \"config\": {\"passes\": %d, \"random_order\": %s, \"init\": \"%s\", \"oom_penalty\": %s, "
               "\"log_runtime\": %s, \"mem_feature\": %s%s%s%s%s},\n \"seed\": ",
            cfg->passes, cfg->random_order ? "true" : "false", INIT_NAMES[init],
            util_fmt_double(b1, cfg->oom_penalty), cfg->log_runtime ? "true" : "false",
            cfg->mem_feature ? "true" : "false", cfg->extended_features ? ", \"extended_features\": true" : "",
            cfg->relative_reward ? ", \"relative_reward\": true" : "",
            cfg->accept_improving ? ", \"accept_improving\": true" : "",
            cfg->reject_zero ? ", \"reject_zero\": true" : "");
    util_json_hex64(f, ep->seed);
    fputs(", \"rng\": ", f);
    write_rng(f, &ep->rng);
    fputs(",\n \"order\": [", f);
    for (int i = 0; i < ep->n_order; i++) {
        fputs(i ? (i % 8 ? ", " : ",\n  ") : "\n  ", f);
        util_json_string(f, gr->names[ep->order[i]]);
    }
    fprintf(f, "],\n \"cursor\": %d,\n \"visits\": [", ep->cursor);
    for (int k = 0; k < ep->n_groups; k++)
        fprintf(f, k ? ", %d" : "%d", ep->visits[k]);
    fputs("],\n \"init_placement\": ", f);
    write_map(f, gr, ep->init_device);
    fputs(",\n \"placement\": ", f);
    write_map(f, gr, ep->group_device);
    fprintf(f, ",\n \"best\": {\"runtime_us\": %s, \"score\": %s, \"found_after\": %" PRId64 ", \"placement\": ",
            util_fmt_double(b1, ep->best_runtime_us), util_fmt_double(b2, ep->best_score), ep->best_at);
    write_map(f, gr, ep->best_device);
    fputs("},\n \"history\": [", f);
    for (int i = 0; i < ep->n_hist + ep->n_redo; i++) {
        fputs(i ? ",\n  " : "\n  ", f);
        write_step(f, ep, &ep->hist[i]);
    }
    fprintf(f, "],\n \"redo\": %d, \"simulations\": %" PRId64 "}\n", ep->n_redo, ep->simulations);
    return util_atomic_commit(&af, e);
}

/* ---- reading ------------------------------------------------------------- */

typedef struct Rd {
    const JDoc *d;
    Err *e;
    const Grouping *gr;
    StrMap names; /* group name -> index */
    int n_devices;
} Rd;

static const cJSON *member(const Rd *r, const cJSON *obj, const char *key, const char *base,
                           cJSON_bool (*is)(const cJSON *), const char *what)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        jdoc_err(r->d, r->e, base, "missing \"%s\": expected %s", key, what);
        return NULL;
    }
    if (is && !is(v)) {
        char f[256];
        jpath_key(f, sizeof f, base, key);
        jdoc_err(r->d, r->e, f, "expected %s", what);
        return NULL;
    }
    return v;
}

static int read_hex(const Rd *r, const cJSON *v, const char *field, uint64_t *out)
{
    return jcheck_hex64(r->d, v, field, out, r->e);
}

static int read_hex_member(const Rd *r, const cJSON *obj, const char *key, const char *base, uint64_t *out)
{
    char f[256];
    jpath_key(f, sizeof f, base, key);
    const cJSON *v = member(r, obj, key, base, NULL, "a string of hex digits");
    return v ? read_hex(r, v, f, out) : -1;
}

static int read_rng(const Rd *r, const cJSON *obj, const char *key, const char *base, Rng *out)
{
    char f[256];
    jpath_key(f, sizeof f, base, key);
    const cJSON *v = member(r, obj, key, base, cJSON_IsArray, "an array of 4 hex strings (xoshiro256** state)");
    if (!v)
        return -1;
    if (cJSON_GetArraySize(v) != 4)
        return jdoc_err(r->d, r->e, f, "expected 4 hex strings (xoshiro256** state), got %d",
                        cJSON_GetArraySize(v));
    int k = 0;
    for (const cJSON *c = v->child; c; c = c->next, k++) {
        char f2[280];
        snprintf(f2, sizeof f2, "%s[%d]", f, k);
        if (read_hex(r, c, f2, &out->s[k]) != 0)
            return -1;
    }
    if ((out->s[0] | out->s[1] | out->s[2] | out->s[3]) == 0)
        return jdoc_err(r->d, r->e, f, "the all-zero state is not a valid xoshiro256** state");
    return 0;
}

static int read_bool(const Rd *r, const cJSON *obj, const char *key, const char *base, int *out)
{
    const cJSON *v = member(r, obj, key, base, cJSON_IsBool, "true or false");
    if (!v)
        return -1;
    *out = cJSON_IsTrue(v) ? 1 : 0;
    return 0;
}

/* An optional boolean: absent leaves *out as it is (written only when true). */
static int read_opt_bool(const Rd *r, const cJSON *obj, const char *key, const char *base, int *out)
{
    if (!cJSON_GetObjectItemCaseSensitive(obj, key))
        return 0;
    return read_bool(r, obj, key, base, out);
}

static int read_int(const Rd *r, const cJSON *obj, const char *key, const char *base, int64_t min,
                    int64_t max, int64_t *out)
{
    char f[256];
    jpath_key(f, sizeof f, base, key);
    return jget_int(r->d, obj, key, f, 1, min, max, out, r->e) < 0 ? -1 : 0;
}

/* A saved double: any number (1e999 reads as infinity), or null for NaN. */
static int read_double(const Rd *r, const cJSON *obj, const char *key, const char *base, double min,
                       double *out)
{
    char f[256];
    jpath_key(f, sizeof f, base, key);
    const cJSON *v = member(r, obj, key, base, NULL, "a number");
    if (!v)
        return -1;
    if (cJSON_IsNull(v)) {
        *out = NAN;
        return 0;
    }
    if (!cJSON_IsNumber(v))
        return jdoc_err(r->d, r->e, f, "expected a number");
    if (v->valuedouble < min)
        return jdoc_err(r->d, r->e, f, "expected a number >= %g, got %g", min, v->valuedouble);
    *out = v->valuedouble;
    return 0;
}

static int read_group(const Rd *r, const cJSON *v, const char *field, int *out)
{
    if (!cJSON_IsString(v))
        return jdoc_err(r->d, r->e, field, "expected a group name");
    int k = strmap_get(&r->names, v->valuestring);
    if (k < 0)
        return jdoc_err(r->d, r->e, field, "unknown group \"%s\" (the grouping has %d groups)",
                        v->valuestring, r->gr->n_groups);
    *out = k;
    return 0;
}

static int read_device(const Rd *r, const cJSON *v, const char *field, int *out)
{
    int64_t x;
    if (jcheck_int(r->d, v, field, 0, r->n_devices - 1, &x, r->e) != 0)
        return -1;
    *out = (int)x;
    return 0;
}

/* {"group name": device} naming every group exactly once. */
static int read_map(const Rd *r, const cJSON *v, const char *field, int *dev)
{
    if (!cJSON_IsObject(v))
        return jdoc_err(r->d, r->e, field, "expected an object of group name -> device index");
    int n = r->gr->n_groups;
    for (int k = 0; k < n; k++)
        dev[k] = -1;
    for (const cJSON *c = v->child; c; c = c->next) {
        char f[700];
        jpath_key(f, sizeof f, field, c->string);
        int k = strmap_get(&r->names, c->string);
        if (k < 0)
            return jdoc_err(r->d, r->e, f, "unknown group \"%s\"", c->string);
        if (read_device(r, c, f, &dev[k]) != 0)
            return -1;
    }
    for (int k = 0; k < n; k++)
        if (dev[k] < 0)
            return jdoc_err(r->d, r->e, field, "missing group \"%s\": every group needs a device",
                            r->gr->names[k]);
    return 0;
}

static int read_map_member(const Rd *r, const cJSON *obj, const char *key, const char *base, int *dev)
{
    char f[256];
    jpath_key(f, sizeof f, base, key);
    const cJSON *v = member(r, obj, key, base, NULL, "an object of group name -> device index");
    return v ? read_map(r, v, f, dev) : -1;
}

static int read_config(const Rd *r, EpisodeConfig *cfg)
{
    const cJSON *o = member(r, r->d->root, "config", "", cJSON_IsObject, "an object (the episode configuration)");
    if (!o)
        return -1;
    episode_config_default(cfg);
    int64_t passes;
    const char *init;
    if (read_int(r, o, "passes", "config", 1, 1000, &passes) != 0 ||
        read_bool(r, o, "random_order", "config", &cfg->random_order) != 0 ||
        jget_string(r->d, o, "init", "config.init", 1, &init, r->e) < 0 ||
        jget_number(r->d, o, "oom_penalty", "config.oom_penalty", 1, 0, 1e300, &cfg->oom_penalty, r->e) < 0 ||
        read_bool(r, o, "log_runtime", "config", &cfg->log_runtime) != 0 ||
        read_bool(r, o, "mem_feature", "config", &cfg->mem_feature) != 0 ||
        read_opt_bool(r, o, "extended_features", "config", &cfg->extended_features) != 0 ||
        read_opt_bool(r, o, "relative_reward", "config", &cfg->relative_reward) != 0 ||
        read_opt_bool(r, o, "accept_improving", "config", &cfg->accept_improving) != 0 ||
        read_opt_bool(r, o, "reject_zero", "config", &cfg->reject_zero) != 0)
        return -1;
    cfg->passes = (int)passes;
    int k = 0;
    while (k < N_INIT && strcmp(INIT_NAMES[k], init) != 0)
        k++;
    if (k == N_INIT)
        return jdoc_err(r->d, r->e, "config.init",
                        "expected \"random-fixed\", \"device0\", \"random-each\" or \"given\", got \"%s\"", init);
    cfg->init = (EpisodeInit)k;
    return 0;
}

/* The inline cluster (cluster_load_member: its messages carry this file's
 * positions). */
static Cluster *read_cluster(const Rd *r)
{
    if (!member(r, r->d->root, "cluster", "", cJSON_IsObject, "an object (a placeto-cluster)"))
        return NULL;
    return cluster_load_member(r->d, "cluster", r->e);
}

static int read_history(const Rd *r, const cJSON *hist, const int *order, Episode *ep)
{
    int k = 0;
    float *probs = xmalloc_array((size_t)r->n_devices, sizeof *probs);
    for (const cJSON *v = hist->child; v; v = v->next, k++) {
        char base[64], f[128];
        snprintf(base, sizeof base, "history[%d]", k);
        if (!cJSON_IsObject(v)) {
            jdoc_err(r->d, r->e, base, "expected a history entry object");
            goto fail;
        }
        EpisodeStep s;
        memset(&s, 0, sizeof s);
        int64_t cursor, old_dev, new_dev;
        const char *actor;
        const cJSON *g, *p;
        snprintf(f, sizeof f, "%s.group", base);
        if (read_int(r, v, "cursor", base, 0, ep->n_order, &cursor) != 0 ||
            !(g = member(r, v, "group", base, NULL, "a group name")) || read_group(r, g, f, &s.group) != 0 ||
            read_int(r, v, "old", base, 0, r->n_devices - 1, &old_dev) != 0 ||
            read_int(r, v, "new", base, 0, r->n_devices - 1, &new_dev) != 0)
            goto fail;
        snprintf(f, sizeof f, "%s.actor", base);
        if (jget_string(r->d, v, "actor", f, 1, &actor, r->e) < 0)
            goto fail;
        if (strcmp(actor, "policy") == 0)
            s.actor = EPISODE_ACTOR_POLICY;
        else if (strcmp(actor, "user") == 0)
            s.actor = EPISODE_ACTOR_USER;
        else {
            jdoc_err(r->d, r->e, f, "expected \"policy\" or \"user\", got \"%s\"", actor);
            goto fail;
        }
        s.takes_step = s.actor == EPISODE_ACTOR_POLICY;
        snprintf(f, sizeof f, "%s.takes_step", base);
        if (read_opt_bool(r, v, "takes_step", base, &s.takes_step) != 0)
            goto fail;
        if (s.actor == EPISODE_ACTOR_POLICY && !s.takes_step) {
            jdoc_err(r->d, r->e, f, "a policy step always takes the step at its cursor (expected true or no field)");
            goto fail;
        }
        snprintf(f, sizeof f, "%s.probs", base);
        if (read_bool(r, v, "greedy", base, &s.greedy) != 0 ||
            !(p = member(r, v, "probs", base, NULL, "an array of probabilities or null")))
            goto fail;
        int has_probs = !cJSON_IsNull(p);
        if (has_probs) {
            if (!cJSON_IsArray(p) || cJSON_GetArraySize(p) != r->n_devices) {
                jdoc_err(r->d, r->e, f, "expected null or an array of %d probabilities (one per device)",
                         r->n_devices);
                goto fail;
            }
            int j = 0;
            for (const cJSON *x = p->child; x; x = x->next, j++) {
                char f2[160];
                double px;
                snprintf(f2, sizeof f2, "%s[%d]", f, j);
                if (jcheck_number(r->d, x, f2, 0, 1, &px, r->e) != 0)
                    goto fail;
                probs[j] = (float)px;
            }
        }
        if (read_double(r, v, "runtime_us", base, 0, &s.runtime_us) != 0 ||
            read_double(r, v, "reward", base, -INFINITY, &s.reward) != 0 ||
            read_rng(r, v, "rng_before", base, &s.rng_before) != 0 ||
            read_rng(r, v, "rng_after", base, &s.rng_after) != 0)
            goto fail;
        if (s.takes_step && (cursor >= ep->n_order || order[cursor] != s.group)) {
            const char *what = s.actor == EPISODE_ACTOR_POLICY ? "a policy step" : "a user step that takes the step";
            snprintf(f, sizeof f, "%s.cursor", base);
            if (cursor >= ep->n_order)
                jdoc_err(r->d, r->e, f, "%s needs a cursor below %d (the end of the visit order)", what,
                         ep->n_order);
            else
                jdoc_err(r->d, r->e, f, "%s at cursor %lld places order[%lld] = \"%s\", not \"%s\"", what,
                         (long long)cursor, (long long)cursor, r->gr->names[order[cursor]], r->gr->names[s.group]);
            goto fail;
        }
        s.cursor = (int)cursor;
        s.old_device = (int)old_dev;
        s.new_device = s.proposed = (int)new_dev;
        int64_t proposed = new_dev;
        snprintf(f, sizeof f, "%s.proposed", base);
        if (jget_int(r->d, v, "proposed", f, 0, 0, r->n_devices - 1, &proposed, r->e) < 0)
            goto fail;
        s.proposed = (int)proposed;
        episode_push(ep, &s, has_probs ? probs : NULL);
    }
    free(probs);
    return 0;
fail:
    free(probs);
    return -1;
}

/* Everything after the rebuild: the saved state into ep. */
static int restore(const Rd *r, Episode *ep, const EpisodeConfig *cfg)
{
    const JDoc *d = r->d;
    const cJSON *root = d->root;
    int n = ep->n_groups, rc = -1;
    int *place = xmalloc_array((size_t)n, sizeof *place), *best = xmalloc_array((size_t)n, sizeof *best);
    int *visits = xmalloc_array((size_t)n, sizeof *visits);
    int *order = xmalloc_array((size_t)ep->n_order, sizeof *order);
    Rng rng;
    int64_t cursor, redo, sims, best_at;
    double best_rt, best_score;

    const cJSON *ord = member(r, root, "order", "", cJSON_IsArray, "an array of group names (the visit order)");
    if (!ord)
        goto done;
    if (cJSON_GetArraySize(ord) != ep->n_order) {
        jdoc_err(d, r->e, "order", "expected %d group names (passes x groups), got %d", ep->n_order,
                 cJSON_GetArraySize(ord));
        goto done;
    }
    int k = 0;
    for (const cJSON *c = ord->child; c; c = c->next, k++) {
        char f[64];
        snprintf(f, sizeof f, "order[%d]", k);
        if (read_group(r, c, f, &order[k]) != 0)
            goto done;
    }
    if (read_int(r, root, "cursor", "", 0, ep->n_order, &cursor) != 0)
        goto done;
    const cJSON *vis = member(r, root, "visits", "", cJSON_IsArray, "an array of visit counts (one per group)");
    if (!vis)
        goto done;
    if (cJSON_GetArraySize(vis) != n) {
        jdoc_err(d, r->e, "visits", "expected %d visit counts (one per group), got %d", n, cJSON_GetArraySize(vis));
        goto done;
    }
    k = 0;
    for (const cJSON *c = vis->child; c; c = c->next, k++) {
        char f[64];
        int64_t x;
        snprintf(f, sizeof f, "visits[%d]", k);
        if (jcheck_int(d, c, f, 0, 1 << 30, &x, r->e) != 0)
            goto done;
        visits[k] = (int)x;
    }
    if (read_map_member(r, root, "placement", "", place) != 0 || read_rng(r, root, "rng", "", &rng) != 0)
        goto done;
    const cJSON *bo = member(r, root, "best", "", cJSON_IsObject, "an object {\"runtime_us\", \"score\", \"found_after\", \"placement\"}");
    if (!bo || read_double(r, bo, "runtime_us", "best", 0, &best_rt) != 0 ||
        read_double(r, bo, "score", "best", -INFINITY, &best_score) != 0 ||
        read_int(r, bo, "found_after", "best", 0, (int64_t)1 << 53, &best_at) != 0 ||
        read_map_member(r, bo, "placement", "best", best) != 0)
        goto done;
    const cJSON *hist = member(r, root, "history", "", cJSON_IsArray, "an array of history entries");
    if (!hist || read_history(r, hist, order, ep) != 0)
        goto done;
    int total = ep->n_hist + ep->n_redo;
    if (read_int(r, root, "redo", "", 0, total, &redo) != 0 ||
        read_int(r, root, "simulations", "", 0, (int64_t)1 << 53, &sims) != 0)
        goto done;

    ep->n_hist = total - (int)redo;
    ep->n_redo = (int)redo;
    memcpy(ep->order, order, (size_t)ep->n_order * sizeof *order);
    ep->cursor = (int)cursor;
    memcpy(ep->visits, visits, (size_t)n * sizeof *visits);
    memcpy(ep->group_device, place, (size_t)n * sizeof *place);
    ep->cfg = *cfg;
    episode_simulate(ep); /* op_device, runtime, score, start times, ... */
    ep->rng = rng;
    memcpy(ep->best_device, best, (size_t)n * sizeof *best);
    ep->best_runtime_us = best_rt;
    ep->best_score = best_score;
    ep->best_at = best_at;
    ep->simulations = sims;
    char field[64];
    Err ce = {{0}};
    if (episode_check_state(ep, field, sizeof field, &ce) != 0) {
        jdoc_err(d, r->e, field, "%s", ce.msg);
        goto done;
    }
    rc = 0;
done:
    free(place);
    free(best);
    free(visits);
    free(order);
    return rc;
}

/* A path read from the episode file at file: relative to the file's
 * directory, or, for files saved before paths were written that way, to the
 * working directory when only that exists. */
static char *resolve_saved(const char *saved, const char *file)
{
    char *p = util_path_resolve(saved, file);
    struct stat st;
    if (stat(p, &st) != 0 && stat(saved, &st) == 0) {
        free(p);
        return xstrdup(saved);
    }
    return p;
}

int episode_named_files(const char *path, char **graph, char **policy)
{
    *graph = *policy = NULL;
    size_t len;
    Err e = {{0}};
    char *text = util_read_file(path, &len, &e);
    if (!text)
        return 0;
    JDoc d;
    int yes = 0;
    /* a quick look first: a graph of a million ops is not parsed twice */
    if (strstr(text, "placeto-episode") && jdoc_parse(&d, path, text, len, &e) == 0) {
        Err he = {{0}};
        if (jdoc_check_header(&d, "placeto-episode", &he) == 0) {
            yes = 1;
            const char *names[2] = {"graph", "policy"};
            char **out[2] = {graph, policy};
            for (int k = 0; k < 2; k++) {
                const cJSON *o = cJSON_GetObjectItemCaseSensitive(d.root, names[k]);
                const cJSON *p = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, "path") : NULL;
                if (cJSON_IsString(p) && p->valuestring[0])
                    *out[k] = resolve_saved(p->valuestring, path);
            }
        }
        jdoc_done(&d);
    }
    free(text);
    return yes;
}

static int load_text(const char *path, const char *text, size_t len, EpisodeFile *out, Err *e)
{
    JDoc d;
    if (jdoc_parse(&d, path, text, len, e) != 0)
        return -1;
    Rd r = {&d, e, NULL, {0}, 0};
    int *init = NULL, rc = -1;
    if (jdoc_check_header(&d, "placeto-episode", e) != 0)
        goto done;

    /* the graph, unchanged since the save */
    const cJSON *go = member(&r, d.root, "graph", "", cJSON_IsObject, "an object {\"path\", \"checksum\"}");
    const char *gpath;
    uint64_t gsum;
    if (!go || jget_string(&d, go, "path", "graph.path", 1, &gpath, e) < 0 ||
        read_hex_member(&r, go, "checksum", "graph", &gsum) != 0)
        goto done;
    Err ge = {{0}};
    /* relative to the episode file (files saved before that: to the working directory) */
    char *gfile = resolve_saved(gpath, path);
    out->pb.g = graph_load(gfile, &ge);
    if (!out->pb.g) {
        free(gfile);
        jdoc_err(&d, e, "graph.path", "cannot load the episode's graph: %s", ge.msg);
        goto done;
    }
    if (out->pb.g->checksum != gsum) {
        jdoc_err(&d, e, "graph.checksum",
                 "graph %s changed since the episode was saved (checksum %016" PRIx64 ", expected %016" PRIx64 ")",
                 gfile, out->pb.g->checksum, gsum);
        free(gfile);
        goto done;
    }
    free(gfile);

    out->pb.c = read_cluster(&r);
    if (!out->pb.c)
        goto done;
    out->pb.own_cluster = 1;
    r.n_devices = out->pb.c->n_devices;

    const cJSON *gro = member(&r, d.root, "grouping", "", cJSON_IsObject, "an object {\"groups\", \"n_groups\"}");
    int64_t target, n_groups;
    if (!gro || read_int(&r, gro, "groups", "grouping", 0, 1 << 30, &target) != 0 ||
        read_int(&r, gro, "n_groups", "grouping", 1, 1 << 30, &n_groups) != 0)
        goto done;
    Err ce = {{0}};
    out->pb.gr = group_build(out->pb.g, (int)target, &ce);
    if (!out->pb.gr) {
        jdoc_err(&d, e, "grouping.groups", "%s", ce.msg);
        goto done;
    }
    if (out->pb.gr->n_groups != n_groups) {
        jdoc_err(&d, e, "grouping.n_groups", "the graph gives %d groups for a target of %lld, the episode has %lld",
                 out->pb.gr->n_groups, (long long)target, (long long)n_groups);
        goto done;
    }
    r.gr = out->pb.gr;
    strmap_init(&r.names, (size_t)out->pb.gr->n_groups);
    for (int k = 0; k < out->pb.gr->n_groups; k++)
        strmap_put(&r.names, out->pb.gr->names[k], k);

    const cJSON *po = member(&r, d.root, "policy", "", NULL, "null or an object {\"path\", \"checksum\"}");
    if (!po)
        goto done;
    if (!cJSON_IsNull(po)) {
        const char *ppath;
        if (!cJSON_IsObject(po)) {
            jdoc_err(&d, e, "policy", "expected null or an object {\"path\", \"checksum\"}");
            goto done;
        }
        if (jget_string(&d, po, "path", "policy.path", 1, &ppath, e) < 0 ||
            read_hex_member(&r, po, "checksum", "policy", &out->policy_checksum) != 0)
            goto done;
        out->policy_path = resolve_saved(ppath, path);
    }

    EpisodeConfig cfg;
    uint64_t seed;
    if (read_config(&r, &cfg) != 0 || read_hex_member(&r, d.root, "seed", "", &seed) != 0)
        goto done;
    init = xmalloc_array((size_t)out->pb.gr->n_groups, sizeof *init);
    if (read_map_member(&r, d.root, "init_placement", "", init) != 0)
        goto done;

    Err pe = {{0}};
    out->pg = policy_graph_new(out->pb.gr, &pe);
    if (!out->pg) {
        jdoc_err(&d, e, "grouping", "%s", pe.msg);
        goto done;
    }
    EpisodeConfig given = cfg;
    given.init = EPISODE_INIT_GIVEN;
    out->ep = episode_new(out->pb.g, out->pb.gr, out->pb.c, out->pg, &given, seed, init, &pe);
    if (!out->ep) {
        jdoc_err(&d, e, "", "cannot rebuild the episode: %s", pe.msg);
        goto done;
    }
    rc = restore(&r, out->ep, &cfg);
    out->pb.sim = sim_new(out->pb.g, out->pb.c);
done:
    free(init);
    if (r.gr)
        strmap_done(&r.names);
    jdoc_done(&d);
    return rc;
}

int episode_load(const char *path, EpisodeFile *out, Err *e)
{
    memset(out, 0, sizeof *out);
    size_t len;
    char *text = util_read_file(path, &len, e);
    if (!text)
        return -1;
    int rc = load_text(path, text, len, out, e);
    free(text);
    if (rc != 0)
        episode_file_free(out);
    return rc;
}

void episode_file_free(EpisodeFile *f)
{
    if (!f)
        return;
    episode_free(f->ep);
    policy_graph_free(f->pg);
    problem_free(&f->pb);
    free(f->policy_path);
    memset(f, 0, sizeof *f);
}
