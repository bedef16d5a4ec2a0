/* placeto_actor: Placeto's policy as the explorer steps it, through the
 * agents' actor table (agent.h, AgentActorOps; placeto_episode.h). The
 * actor owns its group graph and the policy's working memory; the policy
 * (the explorer's, whose weights background training replaces in place)
 * is borrowed. */
#include <stdlib.h>

#include "placeto_episode.h"
#include "policy_graph.h"

typedef struct PlacetoActor {
    const Policy *pol;
    PolicyGraph *pg;
    PolicyWork *work;
    float probs[POLICY_MAX_DEVICES];
} PlacetoActor;

static int check(const Episode *ep, const void *net, Err *e)
{
    return placeto_episode_check(&ep->cfg, &((const Policy *)net)->arch, ep->n_devices, e);
}

static void *actor_new(const void *net, const Graph *g, const Grouping *gr, const Cluster *c, Err *e)
{
    (void)g;
    const Policy *pol = net;
    if (pol->arch.n_devices != c->n_devices) {
        err_set(e, "the policy is for %d devices but the cluster has %d", pol->arch.n_devices, c->n_devices);
        return NULL;
    }
    PlacetoActor *t = xcalloc(1, sizeof *t);
    t->pol = pol;
    if (!(t->pg = policy_graph_new(gr, e))) {
        free(t);
        return NULL;
    }
    t->work = policy_work_new(&pol->arch, t->pg);
    return t;
}

static void actor_free(void *actor)
{
    PlacetoActor *t = actor;
    if (!t)
        return;
    policy_work_free(t->work);
    policy_graph_free(t->pg);
    free(t);
}

static void config(const void *net, EpisodeConfig *cfg)
{
    episode_config_default(cfg);
    placeto_episode_config(cfg, &((const Policy *)net)->arch);
}

/* The policy's distribution at the current group, from the features the
 * episode gives now (into ep->feats, where the explorer's feature rows
 * read them); Placeto attends to no single group. */
static const float *probs(void *actor, const Episode *ep, const float **attention)
{
    PlacetoActor *t = actor;
    if (attention)
        *attention = NULL;
    int v = episode_current(ep);
    if (v < 0)
        return NULL;
    episode_features(ep, v, ep->feats);
    policy_forward(t->pol, t->pg, t->work, ep->feats, v, NULL, t->probs);
    return t->probs;
}

static const EpisodeStep *step(Episode *ep, void *actor, int greedy)
{
    PlacetoActor *t = actor;
    return placeto_episode_step_on(ep, t->pol, t->pg, t->work, greedy, NULL);
}

const AgentActorOps placeto_actor = {
    .does = "improves the placement one group at a time, in topological order",
    .start = "moves one group at a time from the episode's start",
    .attends = "the groups Placeto's message passing reads at this step",
    .reads = {"(Placeto reads each group's features: its cost, output size, device and the",
              " placement around it, passed along the graph's edges)"},
    .check = check,
    .actor_new = actor_new,
    .actor_free = actor_free,
    .config = config,
    .probs = probs,
    .step = step,
};
