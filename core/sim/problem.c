/* problem: loads graph, cluster, grouping, placement and simulator in one
 * call (see problem.h). */
#include "problem.h"

#include <string.h>

int problem_load(Problem *p, const ProblemSpec *s, Err *e)
{
    memset(p, 0, sizeof *p);
    if (!(p->g = graph_load(s->graph_path, e)))
        return -1;
    if (s->placement_path && !(p->pl = placement_load(s->placement_path, p->g, e)))
        return -1;
    if (s->cluster) {
        p->c = s->cluster;
    } else {
        if (s->cluster_path) {
            if (!(p->c = cluster_load(s->cluster_path, e)))
                return -1;
        } else {
            p->c = cluster_default(s->n_devices > 0 ? s->n_devices : p->pl ? p->pl->n_devices : 2);
        }
        p->own_cluster = 1;
    }
    if (p->pl && placement_check_cluster(p->pl, p->c, s->placement_path, e) != 0)
        return -1;
    if ((s->groups >= 0 || s->groups == GROUP_CHAINS) && !(p->gr = group_build(p->g, s->groups, e))) {
        err_prefix(e, s->graph_path);
        return -1;
    }
    if (!s->no_sim)
        p->sim = sim_new(p->g, p->c);
    return 0;
}

void problem_free(Problem *p)
{
    sim_free(p->sim);
    placement_free(p->pl);
    group_free(p->gr);
    if (p->own_cluster)
        cluster_free(p->c);
    graph_free(p->g);
    memset(p, 0, sizeof *p);
}
