/* rnn_io: the RNN placer's policy file (rnn_io.h).
 *
 *   {"format": "placeto-policy", "version": 1, "agent": "rnn",
 *    "architecture": {"n_devices", "n_groups", "n_types", "emb", "hidden", "squash_c", "squash_tau"
 *                     [, "grouper": "hdp", "grouper_hidden", "units"]},
 *    "vocabulary": [op type names, sorted bytewise, n_types of them],
 *    ["placer_frozen": [n_groups devices],]
 *    "parameters": [...], "training": {...}, "log": {...}}   (as placeto_io.c)
 *
 * The grouper's fields appear only in an hdp policy (rnn_hdp.h; its two
 * tensors follow the placer's among the parameters), "placer_frozen" only
 * once its placer has frozen: a file without them is a plain rnn policy.
 *
 * In "training", "episodes" counts updates and "baseline" is [[b]], the
 * moving-average baseline. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "jdoc.h"
#include "policy_file.h"
#include "rnn_io.h"
#include "rnn_train.h"

static void rnn_head(FILE *f, const void *ud)
{
    const RnnNet *net = ud;
    const RnnArch *a = &net->arch;
    char b1[32], b2[32];
    fprintf(f, " \"agent\": \"rnn\",\n \"architecture\": {\"n_devices\": %d, \"n_groups\": %d, \"n_types\": %d, "
               "\"emb\": %d, \"hidden\": %d, \"squash_c\": %s, \"squash_tau\": %s",
            a->n_devices, a->n_groups, a->n_types, a->emb, a->hidden, util_fmt_double(b1, a->squash_c),
            util_fmt_double(b2, a->squash_tau));
    if (a->grouper == RNN_GROUPER_HDP)
        fprintf(f, ", \"grouper\": \"hdp\", \"grouper_hidden\": %d, \"units\": %d", a->grouper_hidden, a->units);
    fputs("},\n", f);
    policy_file_write_vocab(f, &net->vocab);
    if (net->frozen) {
        fputs(" \"placer_frozen\": [", f);
        for (int j = 0; j < a->n_groups; j++)
            fprintf(f, "%s%d", j ? ", " : "", net->frozen[j]);
        fputs("],\n", f);
    }
}

int rnn_policy_save(const RnnNet *net, const TrainState *ts, const char *path, Err *e)
{
    return policy_file_write(path, &net->p, ts, rnn_head, net, e);
}

static int read_arch(const JDoc *d, RnnArch *a, Err *e)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(d->root, "architecture");
    if (!cJSON_IsObject(o))
        return jdoc_err(d, e, o ? "architecture" : "", "%s", o ? "expected an object" : "missing \"architecture\"");
    int64_t nd, ng, nt, emb, hid;
    memset(a, 0, sizeof *a);
    if (jget_int(d, o, "n_devices", "architecture.n_devices", 1, 1, RNN_MAX_DEVICES, &nd, e) < 0 ||
        jget_int(d, o, "n_groups", "architecture.n_groups", 1, 1, RNN_MAX_GROUPS, &ng, e) < 0 ||
        jget_int(d, o, "n_types", "architecture.n_types", 1, 0, 1 << 20, &nt, e) < 0 ||
        jget_int(d, o, "emb", "architecture.emb", 1, 1, 1024, &emb, e) < 0 ||
        jget_int(d, o, "hidden", "architecture.hidden", 1, 2, 4096, &hid, e) < 0 ||
        jget_number(d, o, "squash_c", "architecture.squash_c", 1, DBL_MIN, 1e9, &a->squash_c, e) < 0 ||
        jget_number(d, o, "squash_tau", "architecture.squash_tau", 1, DBL_MIN, 1e9, &a->squash_tau, e) < 0)
        return -1;
    if (hid % 2)
        return jdoc_err(d, e, "architecture.hidden", "expected an even number, got %lld", (long long)hid);
    a->n_devices = (int)nd;
    a->n_groups = (int)ng;
    a->n_types = (int)nt;
    a->emb = (int)emb;
    a->hidden = (int)hid;
    const cJSON *gk = cJSON_GetObjectItemCaseSensitive(o, "grouper");
    if (gk && !(cJSON_IsString(gk) && (strcmp(gk->valuestring, "hdp") == 0 || strcmp(gk->valuestring, "none") == 0)))
        return jdoc_err(d, e, "architecture.grouper", "expected \"none\" or \"hdp\"");
    a->grouper = gk && strcmp(gk->valuestring, "hdp") == 0 ? RNN_GROUPER_HDP : RNN_GROUPER_NONE;
    if (a->grouper != RNN_GROUPER_HDP) {
        static const char *const only[] = {"grouper_hidden", "units"};
        for (int k = 0; k < 2; k++)
            if (cJSON_GetObjectItemCaseSensitive(o, only[k])) {
                char field[64];
                snprintf(field, sizeof field, "architecture.%s", only[k]);
                return jdoc_err(d, e, field, "only an hdp policy (architecture.grouper \"hdp\") has it");
            }
        return 0;
    }
    int64_t gh, units;
    if (jget_int(d, o, "grouper_hidden", "architecture.grouper_hidden", 1, 1, 4096, &gh, e) < 0 ||
        jget_int(d, o, "units", "architecture.units", 1, 1, RNN_HDP_MAX_UNITS, &units, e) < 0)
        return -1;
    if (ng < 2)
        return jdoc_err(d, e, "architecture.n_groups", "an hdp policy has 2 or more learned groups, got %lld",
                        (long long)ng);
    a->grouper_hidden = (int)gh;
    a->units = (int)units;
    return 0;
}

/* The frozen placer's placement of an hdp policy, when the file has one. */
static int read_frozen(const JDoc *d, RnnNet *net, Err *e)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(d->root, "placer_frozen");
    if (!arr)
        return 0;
    int L = net->arch.n_groups;
    if (net->arch.grouper != RNN_GROUPER_HDP)
        return jdoc_err(d, e, "placer_frozen", "only an hdp policy (architecture.grouper \"hdp\") has a frozen placer");
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) != L)
        return jdoc_err(d, e, "placer_frozen", "expected an array of %d devices (one per learned group)", L);
    int *fz = xnew_array((size_t)L, sizeof *fz), j = 0;
    for (const cJSON *v = arr->child; v; v = v->next, j++) {
        char field[64];
        int64_t dev;
        snprintf(field, sizeof field, "placer_frozen[%d]", j);
        if (jcheck_int(d, v, field, 0, net->arch.n_devices - 1, &dev, e) != 0) {
            free(fz);
            return -1;
        }
        fz[j] = (int)dev;
    }
    free(net->frozen);
    net->frozen = fz;
    return 0;
}

_Static_assert(sizeof(RnnArch) <= POLICY_FILE_ARCH_MAX, "POLICY_FILE_ARCH_MAX too small");

static int read_arch_v(const JDoc *d, void *a, Err *e) { return read_arch(d, a, e); }
static int n_devices(const void *a) { return ((const RnnArch *)a)->n_devices; }
static int n_types(const void *a) { return ((const RnnArch *)a)->n_types; }
static size_t param_count(const void *a) { return rnn_param_count(a); }
static void *create(const void *a, const OpVocab *v, Err *e) { return rnn_new(a, v, 0, e); }
static NnParams *params(void *net) { return &((RnnNet *)net)->p; }
static void net_free(void *net) { rnn_free(net); }
static void fresh(TrainState *ts) { train_state_set_baseline(ts, 0, 1, RNN_BASELINE_START); }

static int check_state(const JDoc *d, TrainState *ts, Err *e)
{
    if (ts->n_base > 1 || (ts->n_base == 1 && ts->base_len[0] < 1))
        return jdoc_err(d, e, "training.baseline", "expected [[b, ...]], the moving-average baseline of each "
                                                   "training graph");
    if (ts->n_base == 0) /* no training state: a fresh baseline */
        fresh(ts);
    return 0;
}

static const PolicyFileKind kind = {
    .agent = "rnn",
    .read_arch = read_arch_v, .n_devices = n_devices, .n_types = n_types, .param_count = param_count,
    .create = create, .params = params, .free = net_free,
    .lr = 0.1, .entropy = 0,
    .fresh = fresh, .check_state = check_state,
};

RnnNet *rnn_policy_load_doc(const JDoc *d, TrainState *ts, Err *e)
{
    RnnNet *net = policy_file_load_doc(&kind, d, ts, e);
    if (net && read_frozen(d, net, e) != 0) {
        rnn_free(net);
        if (ts) { /* as a failed load leaves it: initialised, empty */
            train_state_done(ts);
            train_state_init(ts, kind.lr, kind.entropy, 0);
            fresh(ts);
        }
        return NULL;
    }
    return net;
}

RnnNet *rnn_policy_load_text(const char *path, const char *text, size_t len, TrainState *ts, Err *e)
{
    JDoc d;
    if (jdoc_parse(&d, path, text, len, e) != 0) {
        if (ts) {
            train_state_init(ts, kind.lr, kind.entropy, 0);
            fresh(ts);
        }
        return NULL;
    }
    RnnNet *net = rnn_policy_load_doc(&d, ts, e);
    jdoc_done(&d);
    return net;
}

int rnn_policy_peek(const char *path, int *n_devices, int *n_groups, int *n_trained, Err *e)
{
    RnnArch a;
    int rc = policy_file_peek_kind(&kind, path, &a, n_trained, e);
    if (rc == 1) {
        if (n_devices)
            *n_devices = a.n_devices;
        if (n_groups)
            *n_groups = a.n_groups;
    }
    return rc;
}

RnnNet *rnn_policy_load(const char *path, TrainState *ts, Err *e)
{
    size_t len;
    char *text = util_read_file(path, &len, e);
    if (!text) {
        if (ts) {
            train_state_init(ts, kind.lr, kind.entropy, 0);
            fresh(ts);
        }
        return NULL;
    }
    RnnNet *net = rnn_policy_load_text(path, text, len, ts, e);
    free(text);
    if (net && ts && policy_file_read_checkpoint(path, &net->p, ts, e) < 0) {
        rnn_free(net);
        return NULL;
    }
    return net;
}
