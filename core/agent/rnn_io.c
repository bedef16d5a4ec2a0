/* rnn_io: the RNN placer's policy file (rnn_io.h).
 *
 *   {"format": "placeto-policy", "version": 1, "agent": "rnn",
 *    "architecture": {"n_devices", "n_groups", "n_types", "emb", "hidden", "squash_c", "squash_tau"},
 *    "vocabulary": [op type names, sorted bytewise, n_types of them],
 *    "parameters": [...], "training": {...}, "log": {...}}   (as policy_io.c)
 *
 * In "training", "episodes" counts updates and "baseline" is [[b]], the
 * moving-average baseline. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "jdoc.h"
#include "policy_io.h"
#include "rnn_io.h"
#include "rnn_train.h"

static void rnn_head(FILE *f, const void *ud)
{
    const RnnNet *net = ud;
    const RnnArch *a = &net->arch;
    char b1[32], b2[32];
    fprintf(f, " \"agent\": \"rnn\",\n \"architecture\": {\"n_devices\": %d, \"n_groups\": %d, \"n_types\": %d, "
               "\"emb\": %d, \"hidden\": %d, \"squash_c\": %s, \"squash_tau\": %s},\n",
            a->n_devices, a->n_groups, a->n_types, a->emb, a->hidden, util_fmt_double(b1, a->squash_c),
            util_fmt_double(b2, a->squash_tau));
    policy_io_write_vocab(f, &net->vocab);
}

int rnn_policy_save(const RnnNet *net, const TrainState *ts, const char *path, Err *e)
{
    return policy_io_write(path, &net->p, ts, rnn_head, net, e);
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
    return 0;
}

RnnNet *rnn_policy_load_text(const char *path, const char *text, size_t len, TrainState *ts, Err *e)
{
    if (ts)
        rnn_train_state_init(ts, 0.1, 0, 0);
    JDoc d;
    if (jdoc_parse(&d, path, text, len, e) != 0)
        return NULL;
    RnnNet *net = NULL;
    TrainState tmp;
    train_state_init(&tmp, 0.1, 0, 0);
    RnnVocab v = {0, NULL};
    RnnArch a;
    if (jdoc_check_header(&d, "placeto-policy", e) != 0 || policy_io_check_agent(&d, "rnn", e) != 0 ||
        read_arch(&d, &a, e) != 0 || policy_io_read_vocab(&d, a.n_types, &v, e) != 0)
        goto fail;
    size_t need = rnn_param_count(&a);
    if (need > len / 2) {
        jdoc_err(&d, e, "architecture", "%zu weights: more than this %zu-byte file can hold", need, len);
        goto fail;
    }
    if (!(net = rnn_new(&a, &v, 0, e))) {
        char why[sizeof e->msg];
        snprintf(why, sizeof why, "%s", e ? e->msg : "");
        jdoc_err(&d, e, "architecture", "%s", why);
        goto fail;
    }
    if (policy_io_read(&d, &net->p, a.n_devices, &tmp, e) != 0)
        goto fail;
    if (tmp.n_base > 1 || (tmp.n_base == 1 && tmp.base_len[0] < 1)) {
        jdoc_err(&d, e, "training.baseline", "expected [[b, ...]], the moving-average baseline of each training graph");
        goto fail;
    }
    if (tmp.n_base == 0) /* no training state: a fresh baseline */
        rnn_train_set_baseline(&tmp, 0, 1, RNN_BASELINE_START);
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
    rnn_free(net);
    rnn_vocab_done(&v);
    train_state_done(&tmp);
    jdoc_done(&d);
    return NULL;
}

int rnn_policy_peek(const char *path, int *n_devices, int *n_groups, int *n_trained, Err *e)
{
    JDoc d;
    char *text;
    int rc = policy_io_peek(path, "rnn", &d, &text, e);
    if (rc != 1)
        return rc;
    RnnArch a;
    if (read_arch(&d, &a, e) != 0) {
        rc = -1;
    } else {
        if (n_devices)
            *n_devices = a.n_devices;
        if (n_groups)
            *n_groups = a.n_groups;
        if (n_trained)
            *n_trained = policy_io_peek_trained(&d);
    }
    jdoc_done(&d);
    free(text);
    return rc;
}

RnnNet *rnn_policy_load(const char *path, TrainState *ts, Err *e)
{
    size_t len;
    char *text = util_read_file(path, &len, e);
    if (!text) {
        if (ts)
            rnn_train_state_init(ts, 0.1, 0, 0);
        return NULL;
    }
    RnnNet *net = rnn_policy_load_text(path, text, len, ts, e);
    free(text);
    return net;
}
