/* hsdag_io: the HSDAG placer's policy file (hsdag_io.h).
 *
 *   {"format": "placeto-policy", "version": 1, "agent": "hsdag",
 *    "architecture": {"n_devices", "n_types", "hidden", "features": "type,shape,id,struct",
 *                     "min_clusters", "steps"},
 *    "vocabulary": [op type names, sorted bytewise, n_types of them],
 *    "parameters": [...], "training": {...}, "log": {...}}   (as placeto_io.c)
 *
 * In "training", "episodes" counts updates and "baseline" is [] (no
 * baseline) or [[b, ...]]: the moving average of the returns of each
 * training graph (-1 while unset). */
#include <stdlib.h>
#include <string.h>

#include "hsdag_io.h"
#include "jdoc.h"
#include "policy_file.h"

static void hsdag_head(FILE *f, const void *ud)
{
    const HsdagNet *net = ud;
    const HsdagArch *a = &net->arch;
    char feats[128];
    hsdag_features_name(a->features, feats, sizeof feats);
    fprintf(f, " \"agent\": \"hsdag\",\n \"architecture\": {\"n_devices\": %d, \"n_types\": %d, \"hidden\": %d, "
               "\"features\": \"%s\", \"min_clusters\": %d, \"steps\": %d},\n",
            a->n_devices, a->n_types, a->hidden, feats, a->min_clusters, a->steps);
    policy_file_write_vocab(f, &net->vocab);
}

int hsdag_policy_save(const HsdagNet *net, const TrainState *ts, const char *path, Err *e)
{
    return policy_file_write(path, &net->p, ts, hsdag_head, net, e);
}

static int read_arch(const JDoc *d, HsdagArch *a, Err *e)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(d->root, "architecture");
    if (!cJSON_IsObject(o))
        return jdoc_err(d, e, o ? "architecture" : "", "%s", o ? "expected an object" : "missing \"architecture\"");
    int64_t nd, nt, hid, minc, steps;
    memset(a, 0, sizeof *a);
    if (jget_int(d, o, "n_devices", "architecture.n_devices", 1, 1, HSDAG_MAX_DEVICES, &nd, e) < 0 ||
        jget_int(d, o, "n_types", "architecture.n_types", 1, 0, 1 << 20, &nt, e) < 0 ||
        jget_int(d, o, "hidden", "architecture.hidden", 1, 1, 4096, &hid, e) < 0 ||
        jget_int(d, o, "min_clusters", "architecture.min_clusters", 1, 1, 1 << 24, &minc, e) < 0 ||
        jget_int(d, o, "steps", "architecture.steps", 1, 1, HSDAG_MAX_STEPS, &steps, e) < 0)
        return -1;
    const cJSON *fe = cJSON_GetObjectItemCaseSensitive(o, "features");
    if (!cJSON_IsString(fe))
        return jdoc_err(d, e, fe ? "architecture.features" : "architecture", "%s",
                        fe ? "expected a string of feature families (type,shape,id,struct,cost)"
                           : "missing \"features\"");
    int mask = hsdag_features_parse(fe->valuestring);
    if (!mask)
        return jdoc_err(d, e, "architecture.features",
                        "expected a comma list of type, shape, id, struct and cost, got \"%s\"", fe->valuestring);
    a->n_devices = (int)nd;
    a->n_types = (int)nt;
    a->hidden = (int)hid;
    a->features = mask;
    a->min_clusters = (int)minc;
    a->steps = (int)steps;
    return 0;
}

_Static_assert(sizeof(HsdagArch) <= POLICY_FILE_ARCH_MAX, "POLICY_FILE_ARCH_MAX too small");

static int read_arch_v(const JDoc *d, void *a, Err *e) { return read_arch(d, a, e); }
static int n_devices(const void *a) { return ((const HsdagArch *)a)->n_devices; }
static int n_types(const void *a) { return ((const HsdagArch *)a)->n_types; }
static size_t param_count(const void *a) { return hsdag_param_count(a); }
static void *create(const void *a, const OpVocab *v, Err *e) { return hsdag_new(a, v, 0, e); }
static NnParams *params(void *net) { return &((HsdagNet *)net)->p; }
static void net_free(void *net) { hsdag_free(net); }

static int check_state(const JDoc *d, TrainState *ts, Err *e)
{
    if (ts->n_base > 1 || (ts->n_base == 1 && ts->base_len[0] < 1))
        return jdoc_err(d, e, "training.baseline", "expected [] or [[b, ...]], the moving average of each training "
                                                   "graph");
    return 0;
}

static const PolicyFileKind kind = {
    .agent = "hsdag",
    .read_arch = read_arch_v, .n_devices = n_devices, .n_types = n_types, .param_count = param_count,
    .create = create, .params = params, .free = net_free,
    .lr = 1e-3, .entropy = 0,
    .check_state = check_state,
};

HsdagNet *hsdag_policy_load_text(const char *path, const char *text, size_t len, TrainState *ts, Err *e)
{
    return policy_file_load_kind(&kind, path, text, len, ts, e);
}

HsdagNet *hsdag_policy_load(const char *path, TrainState *ts, Err *e)
{
    return policy_file_load_kind_file(&kind, path, ts, e);
}

int hsdag_policy_peek(const char *path, int *n_devices, int *n_trained, Err *e)
{
    HsdagArch a;
    int rc = policy_file_peek_kind(&kind, path, &a, n_trained, e);
    if (rc == 1 && n_devices)
        *n_devices = a.n_devices;
    return rc;
}

HsdagNet *hsdag_policy_load_doc(const JDoc *d, TrainState *ts, Err *e)
{
    return policy_file_load_doc(&kind, d, ts, e);
}
