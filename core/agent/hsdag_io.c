/* hsdag_io: the HSDAG placer's policy file (hsdag_io.h).
 *
 *   {"format": "placeto-policy", "version": 1, "agent": "hsdag",
 *    "architecture": {"n_devices", "n_types", "hidden", "features": "type,shape,id,struct",
 *                     "min_clusters"},
 *    "vocabulary": [op type names, sorted bytewise, n_types of them],
 *    "parameters": [...], "training": {...}, "log": {...}}   (as policy_io.c)
 *
 * In "training", "episodes" counts updates and "baseline" is [] (no
 * baseline) or [[b, ...]]: the moving average of the returns of each
 * training graph (-1 while unset). */
#include <stdlib.h>
#include <string.h>

#include "hsdag_io.h"
#include "jdoc.h"
#include "policy_io.h"

static void hsdag_head(FILE *f, const void *ud)
{
    const HsdagNet *net = ud;
    const HsdagArch *a = &net->arch;
    char feats[128];
    hsdag_features_name(a->features, feats, sizeof feats);
    fprintf(f, " \"agent\": \"hsdag\",\n \"architecture\": {\"n_devices\": %d, \"n_types\": %d, \"hidden\": %d, "
               "\"features\": \"%s\", \"min_clusters\": %d},\n",
            a->n_devices, a->n_types, a->hidden, feats, a->min_clusters);
    policy_io_write_vocab(f, &net->vocab);
}

int hsdag_policy_save(const HsdagNet *net, const TrainState *ts, const char *path, Err *e)
{
    return policy_io_write(path, &net->p, ts, hsdag_head, net, e);
}

static int read_arch(const JDoc *d, HsdagArch *a, Err *e)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(d->root, "architecture");
    if (!cJSON_IsObject(o))
        return jdoc_err(d, e, o ? "architecture" : "", "%s", o ? "expected an object" : "missing \"architecture\"");
    int64_t nd, nt, hid, minc;
    memset(a, 0, sizeof *a);
    if (jget_int(d, o, "n_devices", "architecture.n_devices", 1, 1, HSDAG_MAX_DEVICES, &nd, e) < 0 ||
        jget_int(d, o, "n_types", "architecture.n_types", 1, 0, 1 << 20, &nt, e) < 0 ||
        jget_int(d, o, "hidden", "architecture.hidden", 1, 1, 4096, &hid, e) < 0 ||
        jget_int(d, o, "min_clusters", "architecture.min_clusters", 1, 1, 1 << 24, &minc, e) < 0)
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
    return 0;
}

HsdagNet *hsdag_policy_load_text(const char *path, const char *text, size_t len, TrainState *ts, Err *e)
{
    if (ts)
        train_state_init(ts, 1e-3, 0, 0);
    JDoc d;
    if (jdoc_parse(&d, path, text, len, e) != 0)
        return NULL;
    HsdagNet *net = NULL;
    TrainState tmp;
    train_state_init(&tmp, 1e-3, 0, 0);
    RnnVocab v = {0, NULL};
    HsdagArch a;
    if (jdoc_check_header(&d, "placeto-policy", e) != 0 || policy_io_check_agent(&d, "hsdag", e) != 0 ||
        read_arch(&d, &a, e) != 0 || policy_io_read_vocab(&d, a.n_types, &v, e) != 0)
        goto fail;
    size_t need = hsdag_param_count(&a);
    if (need > len / 2) {
        jdoc_err(&d, e, "architecture", "%zu weights: more than this %zu-byte file can hold", need, len);
        goto fail;
    }
    if (!(net = hsdag_new(&a, &v, 0, e))) {
        char why[sizeof e->msg];
        snprintf(why, sizeof why, "%s", e ? e->msg : "");
        jdoc_err(&d, e, "architecture", "%s", why);
        goto fail;
    }
    if (policy_io_read(&d, &net->p, a.n_devices, &tmp, e) != 0)
        goto fail;
    if (tmp.n_base > 1 || (tmp.n_base == 1 && tmp.base_len[0] < 1)) {
        jdoc_err(&d, e, "training.baseline", "expected [] or [[b, ...]], the moving average of each training graph");
        goto fail;
    }
    rnn_vocab_done(&v);
    jdoc_done(&d);
    if (ts) {
        train_state_done(ts);
        *ts = tmp;
    } else {
        train_state_done(&tmp);
    }
    return net;
fail:
    hsdag_free(net);
    rnn_vocab_done(&v);
    train_state_done(&tmp);
    jdoc_done(&d);
    return NULL;
}

HsdagNet *hsdag_policy_load(const char *path, TrainState *ts, Err *e)
{
    size_t len;
    char *text = util_read_file(path, &len, e);
    if (!text) {
        if (ts)
            train_state_init(ts, 1e-3, 0, 0);
        return NULL;
    }
    HsdagNet *net = hsdag_policy_load_text(path, text, len, ts, e);
    free(text);
    return net;
}

int hsdag_policy_peek(const char *path, int *n_devices, int *n_trained, Err *e)
{
    JDoc d;
    char *text;
    int rc = policy_io_peek(path, "hsdag", &d, &text, e);
    if (rc != 1)
        return rc;
    HsdagArch a;
    if (read_arch(&d, &a, e) != 0) {
        rc = -1;
    } else {
        if (n_devices)
            *n_devices = a.n_devices;
        if (n_trained)
            *n_trained = policy_io_peek_trained(&d);
    }
    jdoc_done(&d);
    free(text);
    return rc;
}
