/* gdp_io: the GDP placer's policy file (gdp_io.h).
 *
 *   {"format": "placeto-policy", "version": 1, "agent": "gdp",
 *    "architecture": {"n_devices", "n_types", "hidden", "heads", "gnn_layers", "blocks", "segment",
 *                     "superposition"},
 *    "vocabulary": [op type names, sorted bytewise, n_types of them],
 *    "parameters": [...], "training": {...}, "log": {...}}   (as placeto_io.c)
 *
 * In "training", "episodes" counts updates, Adam's step epochs, and
 * "baseline" is empty. */
#include <stdlib.h>
#include <string.h>

#include "gdp_io.h"
#include "jdoc.h"
#include "policy_file.h"

static void gdp_head(FILE *f, const void *ud)
{
    const GdpNet *net = ud;
    const GdpArch *a = &net->arch;
    fprintf(f, " \"agent\": \"gdp\",\n \"architecture\": {\"n_devices\": %d, \"n_types\": %d, \"hidden\": %d, "
               "\"heads\": %d, \"gnn_layers\": %d, \"blocks\": %d, \"segment\": %d, \"superposition\": %s},\n",
            a->n_devices, a->n_types, a->hidden, a->heads, a->gnn_layers, a->blocks, a->segment,
            a->superposition ? "true" : "false");
    policy_file_write_vocab(f, &net->vocab);
}

int gdp_policy_save(const GdpNet *net, const TrainState *ts, const char *path, Err *e)
{
    return policy_file_write(path, &net->p, ts, gdp_head, net, e);
}

static int read_arch(const JDoc *d, GdpArch *a, Err *e)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(d->root, "architecture");
    if (!cJSON_IsObject(o))
        return jdoc_err(d, e, o ? "architecture" : "", "%s", o ? "expected an object" : "missing \"architecture\"");
    int64_t nd, nt, hid, heads, gl, bl, seg;
    memset(a, 0, sizeof *a);
    if (jget_int(d, o, "n_devices", "architecture.n_devices", 1, 1, GDP_MAX_DEVICES, &nd, e) < 0 ||
        jget_int(d, o, "n_types", "architecture.n_types", 1, 0, 1 << 20, &nt, e) < 0 ||
        jget_int(d, o, "hidden", "architecture.hidden", 1, 1, 4096, &hid, e) < 0 ||
        jget_int(d, o, "heads", "architecture.heads", 1, 1, 4096, &heads, e) < 0 ||
        jget_int(d, o, "gnn_layers", "architecture.gnn_layers", 1, 1, GDP_MAX_LAYERS, &gl, e) < 0 ||
        jget_int(d, o, "blocks", "architecture.blocks", 1, 1, GDP_MAX_LAYERS, &bl, e) < 0 ||
        jget_int(d, o, "segment", "architecture.segment", 1, 1, 1 << 24, &seg, e) < 0)
        return -1;
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(o, "superposition");
    if (!cJSON_IsBool(sp))
        return jdoc_err(d, e, sp ? "architecture.superposition" : "architecture", "%s",
                        sp ? "expected true or false" : "missing \"superposition\"");
    if (hid % heads)
        return jdoc_err(d, e, "architecture.hidden", "expected a multiple of heads (%lld), got %lld",
                        (long long)heads, (long long)hid);
    a->n_devices = (int)nd;
    a->n_types = (int)nt;
    a->hidden = (int)hid;
    a->heads = (int)heads;
    a->gnn_layers = (int)gl;
    a->blocks = (int)bl;
    a->segment = (int)seg;
    a->superposition = cJSON_IsTrue(sp);
    return 0;
}

_Static_assert(sizeof(GdpArch) <= POLICY_FILE_ARCH_MAX, "POLICY_FILE_ARCH_MAX too small");

static int read_arch_v(const JDoc *d, void *a, Err *e) { return read_arch(d, a, e); }
static int n_devices(const void *a) { return ((const GdpArch *)a)->n_devices; }
static int n_types(const void *a) { return ((const GdpArch *)a)->n_types; }
static size_t param_count(const void *a) { return gdp_param_count(a); }
static void *create(const void *a, const OpVocab *v, Err *e) { return gdp_new(a, v, 0, e); }
static NnParams *params(void *net) { return &((GdpNet *)net)->p; }
static void net_free(void *net) { gdp_free(net); }

static const PolicyFileKind kind = {
    .agent = "gdp",
    .read_arch = read_arch_v, .n_devices = n_devices, .n_types = n_types, .param_count = param_count,
    .create = create, .params = params, .free = net_free,
    .lr = 3e-4, .entropy = 0.01,
};

GdpNet *gdp_policy_load_text(const char *path, const char *text, size_t len, TrainState *ts, Err *e)
{
    return policy_file_load_kind(&kind, path, text, len, ts, e);
}

GdpNet *gdp_policy_load(const char *path, TrainState *ts, Err *e)
{
    return policy_file_load_kind_file(&kind, path, ts, e);
}

int gdp_policy_peek(const char *path, int *n_devices, int *n_trained, Err *e)
{
    GdpArch a;
    int rc = policy_file_peek_kind(&kind, path, &a, n_trained, e);
    if (rc == 1 && n_devices)
        *n_devices = a.n_devices;
    return rc;
}

GdpNet *gdp_policy_load_doc(const JDoc *d, TrainState *ts, Err *e)
{
    return policy_file_load_doc(&kind, d, ts, e);
}
