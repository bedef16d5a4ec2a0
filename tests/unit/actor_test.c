/* actor_test: see actor_test.h. */
#include "actor_test.h"

#include <stdio.h>
#include <string.h>

#include "gen.h"
#include "test.h"

int actor_graph_new(ActorGraph *b, int n_ops, int target, int n_dev, uint64_t seed)
{
    Err e = {{0}};
    memset(b, 0, sizeof *b);
    b->g = gen_random_dag(n_ops, 2.0, seed);
    b->gr = group_build(b->g, target, &e);
    REQUIRE_OR(b->gr != NULL, -1, "group_build: %s", e.msg);
    b->c = cluster_default(n_dev);
    const Graph *gs[1] = {b->g};
    vocab_build(&b->voc, gs, 1);
    return 0;
}

void actor_graph_done(ActorGraph *b)
{
    vocab_done(&b->voc);
    cluster_free(b->c);
    group_free(b->gr);
    graph_free(b->g);
}

/* An episode of cfg on gr over c: check's message contains want (NULL: accepted). */
static void refused(const Graph *g, const Grouping *gr, const Cluster *c, const EpisodeConfig *cfg, ActorCheck check,
                    const void *net, const char *want)
{
    Err e = {{0}};
    Episode *ep = episode_new(g, gr, c, NULL, cfg, 1, NULL, &e);
    REQUIRE_MSG(ep != NULL, "episode_new: %s", e.msg);
    int rc = check(ep, net, &e);
    if (!want)
        CHECK_MSG(rc == 0, "refused: %s", e.msg);
    else
        CHECK_MSG(rc == -1 && strstr(e.msg, want), "'%s' expected, got %d: %s", want, rc, e.msg);
    episode_free(ep);
}

void check_actor_refusals(const Graph *g, const Grouping *gr, int n_devices, void (*config)(const void *, EpisodeConfig *),
                          ActorCheck check, const void *net)
{
    Cluster *c = cluster_default(n_devices), *other = cluster_default(n_devices + 1);
    EpisodeConfig cfg;
    config(net, &cfg);
    refused(g, gr, c, &cfg, check, net, NULL);
    episode_config_default(&cfg);
    refused(g, gr, c, &cfg, check, net, "device 0");
    config(net, &cfg);
    cfg.passes = 2;
    refused(g, gr, c, &cfg, check, net, "one pass");
    config(net, &cfg);
    cfg.random_order = 1;
    refused(g, gr, c, &cfg, check, net, "topological");
    config(net, &cfg);
    cfg.accept_improving = 1;
    refused(g, gr, c, &cfg, check, net, "improving");
    config(net, &cfg);
    char devices[32];
    snprintf(devices, sizeof devices, "%d devices", n_devices);
    refused(g, gr, other, &cfg, check, net, devices);
    cluster_free(other);
    cluster_free(c);
}
