/* libFuzzer target: the cluster loader (cluster_load_text); a cluster that
 * loads must print and load again with the same devices. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    Err e = {{0}};
    Cluster *c = cluster_load_text("fuzz.json", text, size, &e);
    if (c) {
        if (c->n_devices < 1 || c->n_devices > CLUSTER_MAX_DEVICES)
            fuzz_fail("cluster with %d devices", c->n_devices);
        char *out = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&out, &n);
        if (!f)
            fuzz_fail("open_memstream");
        cluster_print(c, f, "");
        fclose(f);
        Cluster *d = cluster_load_text("roundtrip.json", out, n, &e);
        if (!d)
            fuzz_fail("the cluster's own JSON does not load: %s", e.msg);
        if (d->n_devices != c->n_devices)
            fuzz_fail("the round trip changed the device count: %d, %d", d->n_devices, c->n_devices);
        cluster_free(d);
        free(out);
        cluster_free(c);
    } else if (!e.msg[0]) {
        fuzz_fail("cluster_load_text failed without a message");
    }
    free(text);
    return 0;
}
