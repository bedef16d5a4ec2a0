/* libFuzzer target: the placement loader (placement_load_text) against
 * graphs/toy/crown.json, loaded once (run from the repository root); a
 * placement that loads must name a device in range for every op and simulate. */
#include "fuzz.h"
#include "placement.h"

static Graph *crown;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    Err e = {{0}};
    crown = graph_load("graphs/toy/crown.json", &e);
    if (!crown) {
        fprintf(stderr, "fuzz_placement: %s (run from the repository root)\n", e.msg);
        exit(1);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    Err e = {{0}};
    Placement *p = placement_load_text("fuzz.json", text, size, crown, &e);
    if (p) {
        if (p->n_ops != crown->n_nodes || p->n_devices < 1)
            fuzz_fail("placement of %d ops on %d devices", p->n_ops, p->n_devices);
        for (int i = 0; i < p->n_ops; i++)
            if (p->op_device[i] < 0 || p->op_device[i] >= p->n_devices)
                fuzz_fail("op %d on device %d of %d", i, p->op_device[i], p->n_devices);
        if (p->n_devices <= CLUSTER_MAX_DEVICES) {
            Cluster *c = cluster_default(p->n_devices);
            /* named devices may differ from the default cluster's names */
            if (placement_check_cluster(p, c, "fuzz.json", &e) != 0 && !e.msg[0])
                fuzz_fail("placement_check_cluster failed without a message");
            Sim *s = sim_new(crown, c);
            sim_run(s, p->op_device);
            sim_free(s);
            FILE *f = fopen("/dev/null", "w");
            if (f) {
                placement_print(p, crown, c, f);
                fclose(f);
            }
            cluster_free(c);
        }
        placement_free(p);
    } else if (!e.msg[0]) {
        fuzz_fail("placement_load_text failed without a message");
    }
    free(text);
    return 0;
}
