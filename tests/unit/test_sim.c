/* Simulator tests: the public cases bit-exact, hand-computed cases and
 * properties. */
#include <cJSON.h>
#include <stdlib.h>

#include "cluster.h"
#include "graph.h"
#include "placement.h"
#include "sim.h"
#include "test.h"

static cJSON *load_json(const char *path)
{
    Err e;
    char *text = util_read_file(path, NULL, &e);
    if (!text)
        return NULL;
    cJSON *j = cJSON_Parse(text);
    free(text);
    return j;
}

TEST(sim_public_cases_bit_exact)
{
    cJSON *root = load_json("tests/data/sim_public.json");
    REQUIRE(root != NULL);
    int ncases = 0;
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
    for (const cJSON *c = cases->child; c; c = c->next, ncases++) {
        const char *name = cJSON_GetObjectItemCaseSensitive(c, "name")->valuestring;
        Err e = {{0}};
        /* the case's graph and placement as separate files (tests/data/sim_public/,
         * written by Python so every double is exact; cJSON's printer is not) */
        char gpath[512], ppath[512], base[256];
        size_t b = 0;
        for (const char *q = name; *q && b + 3 < sizeof base; q++) {
            if (*q == '/') {
                base[b++] = '_';
                base[b++] = '_';
            } else {
                base[b++] = *q;
            }
        }
        base[b] = '\0';
        snprintf(gpath, sizeof gpath, "tests/data/sim_public/%s.graph.json", base);
        snprintf(ppath, sizeof ppath, "tests/data/sim_public/%s.placement.json", base);
        Graph *g = graph_load(gpath, &e);
        CHECK_MSG(g != NULL, "%s: %s", name, e.msg);
        Placement *p = g ? placement_load(ppath, g, &e) : NULL;
        CHECK_MSG(p != NULL, "%s: %s", name, e.msg);
        if (g && p) {
            int nd = cJSON_GetObjectItemCaseSensitive(c, "n_devices")->valueint;
            Cluster *cl = cluster_default(nd);
            Sim *s = sim_new(g, cl);
            const SimResult *r = sim_run(s, p->op_device);
            const cJSON *ex = cJSON_GetObjectItemCaseSensitive(c, "expected");
            double ms = cJSON_GetObjectItemCaseSensitive(ex, "makespan_us")->valuedouble;
            CHECK_MSG(r->makespan_us == ms, "%s: makespan %.17g, expected %.17g", name, r->makespan_us, ms);
            const cJSON *ops = cJSON_GetObjectItemCaseSensitive(ex, "ops");
            for (const cJSON *o = ops->child; o; o = o->next) {
                int i = strmap_get(&g->index, o->string);
                CHECK(i >= 0);
                if (i < 0)
                    continue;
                double st = cJSON_GetArrayItem(o, 0)->valuedouble, en = cJSON_GetArrayItem(o, 1)->valuedouble;
                CHECK_MSG(r->start_us[i] == st && r->end_us[i] == en, "%s: op %s [%.17g, %.17g], expected [%.17g, %.17g]",
                          name, o->string, r->start_us[i], r->end_us[i], st, en);
            }
            const cJSON *peaks = cJSON_GetObjectItemCaseSensitive(ex, "peak_memory_bytes");
            if (!peaks)
                peaks = cJSON_GetObjectItemCaseSensitive(ex, "peaks");
            if (peaks) {
                int d = 0;
                for (const cJSON *pk = peaks->child; pk; pk = pk->next, d++)
                    CHECK_MSG(d < nd && (double)r->peak_memory_bytes[d] == pk->valuedouble,
                              "%s: device %d peak %lld, expected %.17g", name, d,
                              d < nd ? (long long)r->peak_memory_bytes[d] : -1LL, pk->valuedouble);
            }
            sim_free(s);
            cluster_free(cl);
        }
        placement_free(p);
        graph_free(g);
    }
    CHECK(ncases >= 8);
    cJSON_Delete(root);
}
