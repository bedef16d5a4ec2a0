/* policy_file: the policy-file framework every learned placer's file is
 * written and read through (policy_file.h; the format: docs/formats.md,
 * "placeto-policy").
 *
 * Exactness: a float is printed with "%.9g" (and with "%.17g" in the rare
 * case where strtod-then-round-to-float of that text would not give the same
 * bits back), a double with util_fmt_double, 64-bit RNG words and checksums
 * as hex strings; so load -> save is byte-identical and every number comes
 * back bit-exact. A best runtime never found (+inf) is written as null. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jdoc.h"
#include "agent.h"
#include "policy_file.h"
#include "policy_file_impl.h"

/* Limits the reader accepts (policy_new checks the architecture again). */
#define PIO_MAX_COUNT ((int64_t)1 << 53) /* counters read through a double */
#define PIO_MAX_BASE_LEN (1 << 26)
/* a best placement's groups: any agent's grouping, not only Placeto's
 * network's (gdp trains on op-level graphs of 50 000 groups and more) */
#define PIO_MAX_BEST_GROUPS (1 << 24)
/* 2^128 - 2^103: every smaller magnitude rounds to a finite float ("%.9g"
 * prints FLT_MAX as 3.40282347e+38, a little above it). */
#define PIO_FLOAT_LIMIT 0x1.ffffffp+127

/* ---- writing ------------------------------------------------------------- */

/* One row per line. */
static void write_floats(FILE *f, const float *x, int rows, int cols, const char *indent)
{
    char b[40];
    fputc('[', f);
    for (int r = 0; r < rows; r++) {
        if (r)
            fprintf(f, ",\n%s", indent);
        for (int c = 0; c < cols; c++)
            fprintf(f, c ? ", %s" : "%s", util_fmt_float(b, x[(size_t)r * (size_t)cols + (size_t)c]));
    }
    fputc(']', f);
}

/* +inf (never found) as null; other doubles exactly. */
static const char *fmt_inf_null(char buf[32], double x)
{
    if (isinf(x) && x > 0)
        return strcpy(buf, "null");
    return util_fmt_double(buf, x);
}

static const float *file_weights(const NnParams *p, const TrainState *ts);

/* Refuses to write what the reader would refuse to read: a policy file
 * never holds a NaN or an infinite weight, whichever weights it is written
 * from (the network's own, or the snapshot train --keep best kept). */
static int check_finite(const NnParams *p, const TrainState *ts, const char *path, Err *e)
{
    const float *arrays[4] = {file_weights(p, ts), p->w, p->m, p->v};
    const char *what[4] = {"weight", "weight", "Adam first moment", "Adam second moment"};
    for (int a = 0; a < (ts ? 4 : 1); a++)
        for (int t = 0; t < p->n_tensors; t++) {
            const NnTensor *tn = &p->t[t];
            size_t n = (size_t)tn->rows * (size_t)tn->cols;
            for (size_t k = 0; k < n; k++)
                if (!isfinite(arrays[a][tn->off + k]))
                    return err_set(e, "%s: cannot save: %s %zu of tensor \"%s\" is %g (training diverged?)",
                                   path, what[a], k, tn->name, (double)arrays[a][tn->off + k]);
        }
    if (!ts)
        return 0;
    for (int i = 0; i < ts->n_base; i++)
        for (int k = 0; k < ts->base_len[i]; k++)
            if (!isfinite(ts->base_ret[i][k]))
                return err_set(e, "%s: cannot save: baseline return %d of episode %d is %g", path, k,
                               i, ts->base_ret[i][k]);
    return 0;
}

static void write_moments(FILE *f, const NnParams *p, const float *x)
{
    fputc('[', f);
    for (int t = 0; t < p->n_tensors; t++) {
        const NnTensor *tn = &p->t[t];
        fputs(t ? ",\n    " : "\n    ", f);
        write_floats(f, x + tn->off, tn->rows, tn->cols, "     ");
    }
    fputc(']', f);
}

/* The optimizer's part of the training state (the checkpoint's "training"):
 * Adam's settings, step and moments, the RNG, the entropy weight and the
 * baselines. */
static void write_optimizer(FILE *f, const NnParams *p, const TrainState *ts)
{
    char b1[32], b2[32], b3[32], b4[32];
    const NnAdam *a = &ts->adam;
    fprintf(f, " \"training\": {\n  \"adam\": {\"lr\": %s, \"beta1\": %s, \"beta2\": %s, \"eps\": %s, \"step\": %" PRId64 ",\n   \"m\": ",
            util_fmt_double(b1, a->lr), util_fmt_double(b2, a->beta1), util_fmt_double(b3, a->beta2),
            util_fmt_double(b4, a->eps), a->step);
    write_moments(f, p, p->m);
    fputs(",\n   \"v\": ", f);
    write_moments(f, p, p->v);
    fputs("},\n  \"rng\": [", f);
    for (int i = 0; i < 4; i++) {
        if (i)
            fputs(", ", f);
        util_json_hex64(f, ts->rng.s[i]);
    }
    fprintf(f, "], \"entropy\": %s,\n  \"baseline\": [", util_fmt_double(b1, ts->entropy));
    for (int i = 0; i < ts->n_base; i++) {
        fputs(i ? ",\n   [" : "\n   [", f);
        for (int k = 0; k < ts->base_len[i]; k++)
            fprintf(f, k ? ", %s" : "%s", util_fmt_double(b1, ts->base_ret[i][k]));
        fputc(']', f);
    }
    fputs("]}}\n", f);
}

/* The policy file's part of the training state: the counters and the best
 * placement per graph (what `place` and `compare` report), and the log. */
static void write_progress(FILE *f, const TrainState *ts)
{
    char b1[32], b2[32];
    fprintf(f, ",\n \"training\": {\n  \"episodes\": %" PRId64 ",\n  \"best\": [", ts->episodes);
    for (int i = 0; i < ts->n_best; i++) {
        const TrainBest *bt = &ts->best[i];
        fputs(i ? ",\n   {\"graph\": " : "\n   {\"graph\": ", f);
        util_json_string(f, bt->graph);
        fputs(", \"checksum\": ", f);
        util_json_hex64(f, bt->checksum);
        fprintf(f, ", \"n_groups\": %d, \"runtime_us\": %s, \"score\": %s, \"found_after\": %" PRId64 ",\n    \"group_device\": [",
                bt->n_groups, fmt_inf_null(b1, bt->runtime_us), fmt_inf_null(b2, bt->score), bt->found_after);
        for (int k = 0; k < bt->n_groups; k++)
            fprintf(f, k ? ", %d" : "%d", bt->group_device[k]);
        fputs("]}", f);
    }
    /* no wall time: the same training gives a byte-identical file */
    fprintf(f, "],\n  \"simulations\": %" PRId64 "},\n", ts->simulations);
    double best = INFINITY;
    for (int i = 0; i < ts->n_best; i++)
        if (ts->best[i].runtime_us < best)
            best = ts->best[i].runtime_us;
    fprintf(f, " \"log\": {\"episodes\": %" PRId64 ", \"best_runtime_us\": %s, \"placements_simulated\": %" PRId64 "}",
            ts->episodes, fmt_inf_null(b1, best), ts->simulations);
}

/* The checksum that ties a checkpoint to the weights of the policy file
 * it was saved with. */
static uint64_t weights_checksum(const float *w, size_t n) { return util_hash64(w, n * sizeof *w, 0); }

/* The weights a policy file written with ts holds: the kept snapshot
 * (train --keep best), else the network's own. */
static const float *file_weights(const NnParams *p, const TrainState *ts)
{
    return ts && ts->kept_w && ts->kept_n == p->n ? ts->kept_w : p->w;
}

uint64_t policy_file_saved_checksum(const NnParams *p, const TrainState *ts)
{
    return weights_checksum(file_weights(p, ts), p->n);
}

void policy_file_put_checkpoint(FILE *f, const NnParams *p, const TrainState *ts)
{
    char b1[32];
    const float *fw = file_weights(p, ts);
    fputs("{\"format\": \"placeto-checkpoint\", \"version\": 1,\n \"weights\": ", f);
    util_json_hex64(f, policy_file_saved_checksum(p, ts));
    fprintf(f, ", \"episodes\": %" PRId64 ",\n", ts->episodes);
    if (isfinite(ts->kept_score))
        fprintf(f, " \"kept\": {\"score\": %s, \"episode\": %" PRId64 "},\n", util_fmt_double(b1, ts->kept_score),
                ts->kept_episode);
    if (fw != p->w && memcmp(fw, p->w, p->n * sizeof *fw) != 0) { /* training goes on from other weights */
        fputs(" \"train_weights\": ", f);
        write_moments(f, p, p->w);
        fputs(",\n", f);
    }
    write_optimizer(f, p, ts);
}

int policy_file_write(const char *path, const NnParams *p, const TrainState *ts,
                    void (*head)(FILE *f, const void *ud), const void *ud, Err *e)
{
    if (check_finite(p, ts, path, e) != 0)
        return -1;
    AtomicFile af;
    if (util_atomic_open(&af, path, e) != 0)
        return -1;
    FILE *f = af.f;
    fputs("{\"format\": \"placeto-policy\", \"version\": 1,\n", f);
    head(f, ud);
    if (ts && ts->cluster) { /* the cluster it was trained on: the explorer and place open on it */
        fputs(" \"cluster\": ", f);
        cluster_print(ts->cluster, f, " ");
        fputs(",\n", f);
    }
    fputs(" \"parameters\": [", f);
    const float *fw = file_weights(p, ts);
    for (int t = 0; t < p->n_tensors; t++) {
        const NnTensor *tn = &p->t[t];
        fputs(t ? ",\n  {\"name\": " : "\n  {\"name\": ", f);
        util_json_string(f, tn->name);
        fprintf(f, ", \"shape\": [%d, %d], \"data\":\n   ", tn->rows, tn->cols);
        write_floats(f, fw + tn->off, tn->rows, tn->cols, "    ");
        fputc('}', f);
    }
    fputc(']', f);
    if (ts)
        write_progress(f, ts);
    fputs("}\n", f);
    if (ts && policy_file_keeps_checkpoint(path))
        return policy_file_commit_checkpoint(&af, path, p, ts, e);
    return util_atomic_commit(&af, e);
}

/* ---- reading ------------------------------------------------------------- */

/* An array of exactly n finite numbers >= min that fit a float. */
static int read_floats(const JDoc *d, const cJSON *arr, const char *field, size_t n, double min,
                       float *out, Err *e)
{
    if (!cJSON_IsArray(arr))
        return jdoc_err(d, e, field, "expected an array of %zu numbers", n);
    size_t count = 0;
    for (const cJSON *c = arr->child; c; c = c->next)
        count++;
    if (count != n)
        return jdoc_err(d, e, field, "expected %zu numbers, got %zu", n, count);
    size_t k = 0;
    for (const cJSON *c = arr->child; c; c = c->next, k++) {
        double x = c->valuedouble;
        if (!cJSON_IsNumber(c) || !isfinite(x) || x < min || !(fabs(x) < PIO_FLOAT_LIMIT)) {
            char f[700];
            snprintf(f, sizeof f, "%s[%zu]", field, k);
            if (!cJSON_IsNumber(c))
                return jdoc_err(d, e, f, "expected a number");
            if (!isfinite(x))
                return jdoc_err(d, e, f, "expected a finite number");
            if (x < min)
                return jdoc_err(d, e, f, "expected a number >= %g, got %g", min, x);
            return jdoc_err(d, e, f, "%g is out of the float range", x);
        }
        out[k] = (float)x;
    }
    return 0;
}

/* A string of 1 to 16 hex digits. */
const cJSON *policy_file_member(const JDoc *d, const cJSON *obj, const char *key, const char *base,
                           cJSON_bool (*is)(const cJSON *), const char *what, Err *e)
{
    char f[256];
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        jdoc_err(d, e, base, "missing \"%s\": expected %s", key, what);
        return NULL;
    }
    if (is && !is(v)) {
        jpath_key(f, sizeof f, base, key);
        jdoc_err(d, e, f, "expected %s", what);
        return NULL;
    }
    return v;
}

static int read_params(const JDoc *d, NnParams *p, Err *e)
{
    const cJSON *arr = policy_file_member(d, d->root, "parameters", "", cJSON_IsArray,
                              "an array of {\"name\", \"shape\", \"data\"}", e);
    if (!arr)
        return -1;
    int k = 0;
    for (const cJSON *v = arr->child; v; v = v->next, k++) {
        if (k >= p->n_tensors)
            return jdoc_err(d, e, "parameters", "expected %d tensors for this architecture, got %d",
                            p->n_tensors, cJSON_GetArraySize(arr));
        const NnTensor *t = &p->t[k];
        char base[64], f[96];
        snprintf(base, sizeof base, "parameters[%d]", k);
        if (!cJSON_IsObject(v))
            return jdoc_err(d, e, base, "expected a tensor object {\"name\", \"shape\", \"data\"}");
        const char *name;
        snprintf(f, sizeof f, "%s.name", base);
        if (jget_string(d, v, "name", f, 1, &name, e) < 0)
            return -1;
        if (strcmp(name, t->name) != 0)
            return jdoc_err(d, e, f, "expected \"%s\" (tensor %d of this architecture), got \"%s\"",
                            t->name, k, name);
        snprintf(f, sizeof f, "%s.shape", base);
        const cJSON *sh = policy_file_member(d, v, "shape", base, NULL, "[rows, cols]", e);
        if (!sh)
            return -1;
        const cJSON *r = cJSON_IsArray(sh) ? sh->child : NULL, *c = r ? r->next : NULL;
        if (cJSON_GetArraySize(sh) != 2 || !cJSON_IsNumber(r) || !cJSON_IsNumber(c) ||
            r->valuedouble != floor(r->valuedouble) || c->valuedouble != floor(c->valuedouble))
            return jdoc_err(d, e, f, "expected [%d, %d] for \"%s\"", t->rows, t->cols, t->name);
        if (r->valuedouble != t->rows || c->valuedouble != t->cols)
            return jdoc_err(d, e, f, "expected [%d, %d] for \"%s\", got [%.17g, %.17g]", t->rows,
                            t->cols, t->name, r->valuedouble, c->valuedouble);
        snprintf(f, sizeof f, "%s.data", base);
        const cJSON *data = policy_file_member(d, v, "data", base, NULL, "an array of numbers", e);
        if (!data || read_floats(d, data, f, (size_t)t->rows * (size_t)t->cols, -INFINITY,
                                 p->w + t->off, e) != 0)
            return -1;
    }
    if (k != p->n_tensors)
        return jdoc_err(d, e, "parameters", "expected %d tensors for this architecture, got %d",
                        p->n_tensors, k);
    return 0;
}

/* "m" or "v" of the object base ("training.adam"), or a checkpoint's
 * "train_weights" (base ""): one array per tensor. */
static int read_moments(const JDoc *d, const cJSON *adam, const char *base, const char *key, NnParams *p,
                        float *out, double min, Err *e)
{
    char field[64];
    snprintf(field, sizeof field, "%s%s%s", base, *base ? "." : "", key);
    const cJSON *arr = policy_file_member(d, adam, key, base, cJSON_IsArray,
                              "an array with one array of numbers per tensor", e);
    if (!arr)
        return -1;
    int n = cJSON_GetArraySize(arr);
    if (n != p->n_tensors)
        return jdoc_err(d, e, field, "expected %d arrays (one per tensor), got %d", p->n_tensors, n);
    int k = 0;
    for (const cJSON *v = arr->child; v; v = v->next, k++) {
        char f[96];
        snprintf(f, sizeof f, "%s[%d]", field, k);
        const NnTensor *t = &p->t[k];
        if (read_floats(d, v, f, (size_t)t->rows * (size_t)t->cols, min, out + t->off, e) != 0)
            return -1;
    }
    return 0;
}

/* A double field where null means +inf (a best never found). */
static int read_inf_null(const JDoc *d, const cJSON *obj, const char *key, const char *field,
                         double min, double *out, Err *e)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (cJSON_IsNull(v)) {
        *out = INFINITY;
        return 0;
    }
    if (v && !cJSON_IsNumber(v))
        return jdoc_err(d, e, field, "expected a number or null (none found yet)");
    return jget_number(d, obj, key, field, 1, min, DBL_MAX, out, e) < 0 ? -1 : 0;
}

static int read_best(const JDoc *d, const cJSON *v, const char *base, int n_devices, TrainState *ts,
                     Err *e)
{
    char f[128];
    if (!cJSON_IsObject(v))
        return jdoc_err(d, e, base, "expected an object {\"graph\", \"checksum\", \"n_groups\", ...}");
    const char *graph;
    int64_t n_groups, found;
    snprintf(f, sizeof f, "%s.graph", base);
    if (jget_string(d, v, "graph", f, 1, &graph, e) < 0)
        return -1;
    for (int i = 0; i < ts->n_best; i++)
        if (strcmp(ts->best[i].graph, graph) == 0)
            return jdoc_err(d, e, f, "graph \"%s\" is listed twice (first at training.best[%d])", graph, i);
    snprintf(f, sizeof f, "%s.n_groups", base);
    if (jget_int(d, v, "n_groups", f, 1, 1, PIO_MAX_BEST_GROUPS, &n_groups, e) < 0)
        return -1;
    TrainBest b = {0};
    snprintf(f, sizeof f, "%s.checksum", base);
    const cJSON *cs = policy_file_member(d, v, "checksum", base, NULL, "a hex string", e);
    if (!cs || jcheck_hex64(d, cs, f, &b.checksum, e) != 0)
        return -1;
    snprintf(f, sizeof f, "%s.runtime_us", base);
    if (read_inf_null(d, v, "runtime_us", f, 0, &b.runtime_us, e) != 0)
        return -1;
    snprintf(f, sizeof f, "%s.score", base);
    if (read_inf_null(d, v, "score", f, -DBL_MAX, &b.score, e) != 0)
        return -1;
    snprintf(f, sizeof f, "%s.found_after", base);
    if (jget_int(d, v, "found_after", f, 1, 0, PIO_MAX_COUNT, &found, e) < 0)
        return -1;
    snprintf(f, sizeof f, "%s.group_device", base);
    const cJSON *gd = policy_file_member(d, v, "group_device", base, cJSON_IsArray, "an array of device indices", e);
    if (!gd)
        return -1;
    if (cJSON_GetArraySize(gd) != n_groups)
        return jdoc_err(d, e, f, "expected %lld device indices (n_groups), got %d", (long long)n_groups,
                        cJSON_GetArraySize(gd));
    b.group_device = xmalloc_array((size_t)n_groups, sizeof *b.group_device);
    int k = 0;
    for (const cJSON *c = gd->child; c; c = c->next, k++) {
        char f2[160];
        int64_t x;
        snprintf(f2, sizeof f2, "%s[%d]", f, k);
        if (jcheck_int(d, c, f2, 0, n_devices - 1, &x, e) != 0) {
            free(b.group_device);
            return -1;
        }
        b.group_device[k] = (int)x;
    }
    b.graph = xstrdup(graph);
    b.n_groups = (int)n_groups;
    b.found_after = found;
    ts->best = xrealloc_array(ts->best, (size_t)(ts->n_best + 1), sizeof *ts->best);
    ts->best[ts->n_best++] = b;
    return 0;
}

/* The optimizer's state from tr (a checkpoint's "training", or an earlier
 * policy file's, which kept it): Adam, the RNG, the entropy weight and the
 * baselines. */
static int read_optimizer(const JDoc *d, const cJSON *tr, NnParams *p, TrainState *ts, Err *e)
{
    const char *B = "training";
    const cJSON *adam = policy_file_member(d, tr, "adam", B, cJSON_IsObject,
                               "an object {\"lr\", \"beta1\", \"beta2\", \"eps\", \"step\", \"m\", \"v\"}", e);
    if (!adam)
        return -1;
    NnAdam *a = &ts->adam;
    if (jget_number(d, adam, "lr", "training.adam.lr", 1, 0, 1e9, &a->lr, e) < 0 ||
        jget_number(d, adam, "beta1", "training.adam.beta1", 1, 0, 1, &a->beta1, e) < 0 ||
        jget_number(d, adam, "beta2", "training.adam.beta2", 1, 0, 1, &a->beta2, e) < 0 ||
        jget_number(d, adam, "eps", "training.adam.eps", 1, 0, 1e9, &a->eps, e) < 0 ||
        jget_int(d, adam, "step", "training.adam.step", 1, 0, PIO_MAX_COUNT, &a->step, e) < 0)
        return -1;
    if (a->beta1 >= 1 || a->beta2 >= 1)
        return jdoc_err(d, e, a->beta1 >= 1 ? "training.adam.beta1" : "training.adam.beta2",
                        "expected a number below 1");
    if (!(a->eps > 0)) /* Adam divides by sqrt(v) + eps, and v is 0 for a weight no gradient reached */
        return jdoc_err(d, e, "training.adam.eps", "expected a number > 0, got %g (a weight whose second moment "
                        "is 0 would become NaN)", a->eps);
    if (read_moments(d, adam, "training.adam", "m", p, p->m, -INFINITY, e) != 0 ||
        read_moments(d, adam, "training.adam", "v", p, p->v, 0, e) != 0)
        return -1;
    const cJSON *rng = policy_file_member(d, tr, "rng", B, cJSON_IsArray, "an array of 4 hex strings", e);
    if (!rng)
        return -1;
    if (cJSON_GetArraySize(rng) != 4)
        return jdoc_err(d, e, "training.rng", "expected 4 hex strings (the xoshiro256** state), got %d",
                        cJSON_GetArraySize(rng));
    int k = 0;
    for (const cJSON *c = rng->child; c; c = c->next, k++) {
        char f[32];
        snprintf(f, sizeof f, "training.rng[%d]", k);
        if (jcheck_hex64(d, c, f, &ts->rng.s[k], e) != 0)
            return -1;
    }
    if ((ts->rng.s[0] | ts->rng.s[1] | ts->rng.s[2] | ts->rng.s[3]) == 0)
        return jdoc_err(d, e, "training.rng", "the all-zero state is not a valid xoshiro256** state");
    if (jget_number(d, tr, "entropy", "training.entropy", 1, 0, 1e9, &ts->entropy, e) < 0)
        return -1;
    const cJSON *base = policy_file_member(d, tr, "baseline", B, cJSON_IsArray,
                               "an array of the last episodes' per-step returns", e);
    if (!base)
        return -1;
    if (cJSON_GetArraySize(base) > TRAIN_BASELINE_WINDOW)
        return jdoc_err(d, e, "training.baseline", "expected at most %d episodes, got %d",
                        TRAIN_BASELINE_WINDOW, cJSON_GetArraySize(base));
    k = 0;
    for (const cJSON *c = base->child; c; c = c->next, k++) {
        char f[64];
        snprintf(f, sizeof f, "training.baseline[%d]", k);
        if (!cJSON_IsArray(c))
            return jdoc_err(d, e, f, "expected an array of returns");
        int n = cJSON_GetArraySize(c), j = 0;
        if (n > PIO_MAX_BASE_LEN)
            return jdoc_err(d, e, f, "expected at most %d returns, got %d", PIO_MAX_BASE_LEN, n);
        ts->base_ret[k] = xmalloc_array((size_t)n, sizeof **ts->base_ret);
        ts->base_len[k] = n;
        ts->n_base = k + 1;
        for (const cJSON *x = c->child; x; x = x->next, j++) {
            char f2[80];
            snprintf(f2, sizeof f2, "%s[%d]", f, j);
            if (jcheck_number(d, x, f2, -DBL_MAX, DBL_MAX, &ts->base_ret[k][j], e) != 0)
                return -1;
        }
    }
    ts->has_optimizer = 1;
    return 0;
}

/* The policy file's "training": the counters and the best placements, and
 * (a file written before the checkpoint had a file of its own) the
 * optimizer's state too. */
static int read_training(const JDoc *d, const cJSON *tr, NnParams *p, int n_devices, TrainState *ts,
                         Err *e)
{
    const char *B = "training";
    if (!cJSON_IsObject(tr))
        return jdoc_err(d, e, B, "expected an object (the training state)");
    if (cJSON_GetObjectItemCaseSensitive(tr, "adam") && read_optimizer(d, tr, p, ts, e) != 0)
        return -1;
    if (jget_int(d, tr, "episodes", "training.episodes", 1, 0, PIO_MAX_COUNT, &ts->episodes, e) < 0)
        return -1;
    int k;
    const cJSON *best = policy_file_member(d, tr, "best", B, cJSON_IsArray, "an array of the best placements per graph", e);
    if (!best)
        return -1;
    k = 0;
    for (const cJSON *c = best->child; c; c = c->next, k++) {
        char f[64];
        snprintf(f, sizeof f, "training.best[%d]", k);
        if (read_best(d, c, f, n_devices, ts, e) != 0)
            return -1;
    }
    if (jget_int(d, tr, "simulations", "training.simulations", 1, 0, PIO_MAX_COUNT, &ts->simulations, e) < 0 ||
        jget_number(d, tr, "seconds", "training.seconds", 0, 0, DBL_MAX, &ts->seconds, e) < 0)
        return -1;
    return 0;
}

int policy_file_read_cluster(const JDoc *d, Cluster **out, Err *e)
{
    *out = NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(d->root, "cluster");
    if (!v)
        return 0;
    if (!cJSON_IsObject(v))
        return jdoc_err(d, e, "cluster", "expected an object (a placeto-cluster: the cluster trained on)");
    return (*out = cluster_load_member(d, "cluster", e)) ? 1 : -1;
}

int policy_file_read(const JDoc *d, NnParams *p, int n_devices, TrainState *ts, Err *e)
{
    if (read_params(d, p, e) != 0)
        return -1;
    const cJSON *tr = cJSON_GetObjectItemCaseSensitive(d->root, "training");
    return tr ? read_training(d, tr, p, n_devices, ts, e) : 0;
}

/* The checkpoint's kept snapshot (train --keep best): its evaluation, and
 * the weights training goes on from when they are not the policy file's
 * (which then become the kept snapshot). */
static int read_kept(const JDoc *d, NnParams *p, TrainState *ts, Err *e)
{
    const cJSON *kept = cJSON_GetObjectItemCaseSensitive(d->root, "kept");
    const cJSON *tw = cJSON_GetObjectItemCaseSensitive(d->root, "train_weights");
    double score = INFINITY;
    int64_t episode = -1;
    if (kept) {
        if (!cJSON_IsObject(kept))
            return jdoc_err(d, e, "kept", "expected an object {\"score\", \"episode\"}");
        if (jget_number(d, kept, "score", "kept.score", 1, 0, DBL_MAX, &score, e) < 0 ||
            jget_int(d, kept, "episode", "kept.episode", 1, 0, ts->episodes, &episode, e) < 0)
            return -1;
    }
    if (!tw) {
        if (kept)
            train_state_keep(ts, p->w, p->n, score);
        ts->kept_episode = episode;
        return 0;
    }
    if (!kept)
        return jdoc_err(d, e, "train_weights", "expected with \"kept\" (the snapshot the policy file holds)");
    float *w = xnew_array(p->n, sizeof *w);
    if (read_moments(d, d->root, "", "train_weights", p, w, -INFINITY, e) != 0) {
        free(w);
        return -1;
    }
    train_state_keep(ts, p->w, p->n, score); /* the file's weights: the kept snapshot */
    ts->kept_episode = episode;
    memcpy(p->w, w, p->n * sizeof *w);
    free(w);
    return 0;
}

/* The checkpoint text (read from ck) into ts and p when it belongs to the
 * policy file at policy_path (p's weights, ts's episodes): 1 when read, 0
 * when it belongs to another save (e set naming it), -1 when malformed. */
int policy_file_checkpoint_text(const char *ck, const char *text, size_t len, const char *policy_path, NnParams *p,
                                TrainState *ts, Err *e)
{
    JDoc d;
    int rc = -1;
    if (jdoc_parse(&d, ck, text, len, e) != 0)
        return -1;
    uint64_t w;
    int64_t episodes = ts->episodes;
    const cJSON *wv = jdoc_check_header(&d, "placeto-checkpoint", e) == 0
                          ? policy_file_member(&d, d.root, "weights", "", NULL, "a hex string", e)
                          : NULL;
    if (!wv || jcheck_hex64(&d, wv, "weights", &w, e) != 0 ||
        jget_int(&d, d.root, "episodes", "episodes", 0, 0, PIO_MAX_COUNT, &episodes, e) < 0)
        goto done;
    if (w != weights_checksum(p->w, p->n)) {
        jdoc_err(&d, e, "weights", "the checkpoint is for other weights than %s (a later save of one of them "
                 "failed, or the files come from different runs)", policy_path);
        rc = 0;
        goto done;
    }
    if (episodes != ts->episodes) { /* "episodes" absent: a checkpoint from before it was written */
        jdoc_err(&d, e, "episodes", "the checkpoint is of episode %lld, %s of episode %lld (the files come from "
                 "different saves)", (long long)episodes, policy_path, (long long)ts->episodes);
        rc = 0;
        goto done;
    }
    const cJSON *tr = policy_file_member(&d, d.root, "training", "", cJSON_IsObject, "an object (the optimizer's state)", e);
    if (!tr)
        goto done;
    /* the checkpoint's baselines replace the policy file's defaults */
    for (int i = 0; i < ts->n_base && i < TRAIN_BASELINE_WINDOW; i++) {
        free(ts->base_ret[i]);
        ts->base_ret[i] = NULL;
    }
    ts->n_base = 0;
    if (read_optimizer(&d, tr, p, ts, e) != 0 || read_kept(&d, p, ts, e) != 0)
        goto done;
    rc = 1;
done:
    jdoc_done(&d);
    return rc;
}

/* The agents a policy file can name, and how to train each. */
int policy_file_check_agent(const JDoc *d, const char *want, Err *e)
{
    const char *agent = "placeto";
    if (jget_string(d, d->root, "agent", "agent", 0, &agent, e) < 0)
        return -1;
    const AgentKind *have = agent_find(agent), *need = agent_find(want);
    if (!have)
        return jdoc_err(d, e, "agent", "expected %s, got \"%s\"", agent_names_quoted(), agent);
    if (have == need)
        return 0;
    char how[64];
    if (have == agent_at(0))
        snprintf(how, sizeof how, "train without --agent");
    else
        snprintf(how, sizeof how, "train --agent %s", have->name);
    return jdoc_err(d, e, "agent", "%s policy, not %s policy (%s; place and compare read every agent's policy)",
                    have->a_name, need ? need->a_name : want, how);
}

void policy_file_write_vocab(FILE *f, const OpVocab *v)
{
    fputs(" \"vocabulary\": [", f);
    for (int i = 0; i < v->n; i++) {
        if (i)
            fputs(", ", f);
        util_json_string(f, v->names[i]);
    }
    fputs("],\n", f);
}

int policy_file_read_vocab(const JDoc *d, int n_types, OpVocab *v, Err *e)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(d->root, "vocabulary");
    v->n = 0;
    v->names = NULL;
    if (!cJSON_IsArray(arr))
        return jdoc_err(d, e, arr ? "vocabulary" : "", "%s",
                        arr ? "expected an array of op type names" : "missing \"vocabulary\"");
    if (cJSON_GetArraySize(arr) != n_types)
        return jdoc_err(d, e, "vocabulary", "expected %d names (architecture.n_types), got %d", n_types,
                        cJSON_GetArraySize(arr));
    v->names = xnew_array((size_t)(n_types ? n_types : 1), sizeof *v->names);
    int k = 0;
    for (const cJSON *c = arr->child; c; c = c->next, k++) {
        char f[48];
        snprintf(f, sizeof f, "vocabulary[%d]", k);
        if (!cJSON_IsString(c))
            return jdoc_err(d, e, f, "expected a string");
        if (k && strcmp(v->names[k - 1], c->valuestring) >= 0)
            return jdoc_err(d, e, f, "expected the names sorted and distinct (\"%s\" follows \"%s\")",
                            c->valuestring, v->names[k - 1]);
        v->names[v->n++] = xstrdup(c->valuestring);
    }
    return 0;
}

int policy_file_peek(const char *path, const char *agent, JDoc *d, char **text, Err *e)
{
    size_t len;
    *text = util_read_file(path, &len, e);
    if (!*text)
        return -1;
    if (jdoc_parse(d, path, *text, len, e) != 0) {
        free(*text);
        *text = NULL;
        return -1;
    }
    const cJSON *ag = cJSON_GetObjectItemCaseSensitive(d->root, "agent");
    if (cJSON_IsObject(d->root) && cJSON_IsString(ag) && strcmp(ag->valuestring, agent) == 0)
        return 1;
    jdoc_done(d);
    free(*text);
    *text = NULL;
    return 0;
}

int policy_file_peek_trained(const JDoc *d)
{
    const cJSON *tr = cJSON_GetObjectItemCaseSensitive(d->root, "training");
    const cJSON *best = cJSON_IsObject(tr) ? cJSON_GetObjectItemCaseSensitive(tr, "best") : NULL;
    return cJSON_IsArray(best) ? cJSON_GetArraySize(best) : 0;
}

static void kind_state_init(const PolicyFileKind *k, TrainState *ts)
{
    train_state_init(ts, k->lr, k->entropy, 0);
    if (k->fresh)
        k->fresh(ts);
}

void *policy_file_load_doc(const PolicyFileKind *k, const JDoc *d, TrainState *ts, Err *e)
{
    if (ts)
        kind_state_init(k, ts);
    void *net = NULL;
    TrainState tmp; /* what the file holds */
    train_state_init(&tmp, k->lr, k->entropy, 0);
    OpVocab v = {0, NULL};
    _Alignas(max_align_t) unsigned char arch[POLICY_FILE_ARCH_MAX];
    if (jdoc_check_header(d, "placeto-policy", e) != 0 || policy_file_check_agent(d, k->agent, e) != 0 ||
        k->read_arch(d, arch, e) != 0 || policy_file_read_vocab(d, k->n_types(arch), &v, e) != 0)
        goto fail;
    size_t need = k->param_count(arch);
    if (need > d->len / 2) {
        jdoc_err(d, e, "architecture", "%zu weights: more than this %zu-byte file can hold", need, d->len);
        goto fail;
    }
    if (!(net = k->create(arch, &v, e))) {
        char why[sizeof e->msg];
        snprintf(why, sizeof why, "%s", e ? e->msg : "");
        jdoc_err(d, e, "architecture", "%s", why);
        goto fail;
    }
    if (policy_file_read(d, k->params(net), k->n_devices(arch), &tmp, e) != 0)
        goto fail;
    if (k->check_state ? k->check_state(d, &tmp, e) != 0 : tmp.n_base != 0) {
        if (!k->check_state)
            jdoc_err(d, e, "training.baseline", "expected [] (%s training keeps no baseline)", k->agent);
        goto fail;
    }
    vocab_done(&v);
    if (ts) {
        train_state_done(ts);
        *ts = tmp;
    } else {
        train_state_done(&tmp);
    }
    return net;
fail:
    if (net)
        k->free(net);
    vocab_done(&v);
    train_state_done(&tmp);
    return NULL;
}

void *policy_file_load_kind(const PolicyFileKind *k, const char *path, const char *text, size_t len, TrainState *ts,
                            Err *e)
{
    JDoc d;
    if (jdoc_parse(&d, path, text, len, e) != 0) {
        if (ts)
            kind_state_init(k, ts);
        return NULL;
    }
    void *net = policy_file_load_doc(k, &d, ts, e);
    jdoc_done(&d);
    return net;
}

void *policy_file_load_kind_file(const PolicyFileKind *k, const char *path, TrainState *ts, Err *e)
{
    size_t len;
    char *text = util_read_file(path, &len, e);
    if (!text) {
        if (ts)
            kind_state_init(k, ts);
        return NULL;
    }
    void *net = policy_file_load_kind(k, path, text, len, ts, e);
    free(text);
    if (net && ts && policy_file_read_checkpoint(path, k->params(net), ts, e) < 0) {
        k->free(net);
        return NULL;
    }
    return net;
}

int policy_file_peek_kind(const PolicyFileKind *k, const char *path, void *arch, int *n_trained, Err *e)
{
    JDoc d;
    char *text;
    int rc = policy_file_peek(path, k->agent, &d, &text, e);
    if (rc != 1)
        return rc;
    if (k->read_arch(&d, arch, e) != 0)
        rc = -1;
    else if (n_trained)
        *n_trained = policy_file_peek_trained(&d);
    jdoc_done(&d);
    free(text);
    return rc;
}

