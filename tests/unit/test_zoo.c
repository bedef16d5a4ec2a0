/* The bundled graph zoo: every graph under graphs/ loads, is acyclic, has
 * plausible costs and sizes, groups and simulates; each family has 32
 * members. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "bound.h"
#include "group.h"
#include "sim.h"
#include "test.h"

static int is_json(const char *name)
{
    size_t n = strlen(name);
    return n > 5 && strcmp(name + n - 5, ".json") == 0;
}

/* Checks one graph; returns 1 if it loaded. */
static int check_graph(const char *path)
{
    Err e = {{0}};
    Graph *g = graph_load(path, &e);
    REQUIRE_OR(g != NULL, 0, "%s", e.msg);
    CHECK_MSG(g->n_nodes >= 2 && g->n_edges >= 1, "%s: %d ops, %d edges", path, g->n_nodes, g->n_edges);
    CHECK_MSG(g->source[0] != '\0', "%s: no source", path);
    int bad = 0;
    for (int i = 0; i < g->n_nodes && bad < 3; i++) {
        const GraphNode *n = &g->nodes[i];
        int64_t bytes = graph_node_bytes(g, i);
        /* an op that costs nothing and outputs nothing carries no information */
        if (n->cost_us == 0 && bytes == 0) {
            CHECK_MSG(0, "%s: op %s has zero cost and zero output", path, n->name);
            bad++;
        }
        if (n->cost_us > 1e7 || bytes > (1LL << 34)) {
            CHECK_MSG(0, "%s: op %s: implausible cost %g us or size %lld bytes", path, n->name, n->cost_us,
                      (long long)bytes);
            bad++;
        }
        if (n->n_parents == 0 && n->n_children == 0 && g->n_nodes > 1) {
            CHECK_MSG(0, "%s: op %s is not connected", path, n->name);
            bad++;
        }
    }
    Grouping *gr = group_build(g, 0, &e);
    CHECK_MSG(gr != NULL, "%s: %s", path, e.msg);
    if (gr)
        CHECK_MSG(gr->n_groups <= gr->target, "%s: %d groups for target %d", path, gr->n_groups, gr->target);
    Cluster *c = cluster_default(2);
    Sim *s = sim_new(g, c);
    int *dev = XNEW(int, g->n_nodes);
    double one = sim_run(s, dev)->makespan_us;
    CHECK_MSG(one >= bound_lower(g, c) && one > 0, "%s: single-device makespan %g", path, one);
    free(dev);
    sim_free(s);
    cluster_free(c);
    group_free(gr);
    graph_free(g);
    return 1;
}

static int check_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int count = 0;
    struct dirent *ent;
    while ((ent = readdir(d))) {
        if (!is_json(ent->d_name))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        count += check_graph(path);
    }
    closedir(d);
    return count;
}

TEST(zoo_every_bundled_graph_is_sound)
{
    int n = check_dir("graphs") + check_dir("graphs/toy");
    CHECK_MSG(n >= 4, "only %d bundled graphs", n);
}

TEST(zoo_families_have_32_members)
{
    static const char *fams[] = {"graphs/families/enas-cifar10", "graphs/families/enas-ptb", "graphs/families/nmt"};
    for (int k = 0; k < 3; k++) {
        DIR *d = opendir(fams[k]);
        if (!d) {
            CHECK_MSG(0, "%s is missing", fams[k]);
            continue;
        }
        closedir(d);
        CHECK_MSG(check_dir(fams[k]) == 32, "%s does not hold 32 loadable graphs", fams[k]);
    }
}
