/* hsdag_episode: an Episode stepped by the HSDAG placer (see hsdag_episode.h). */
#include "hsdag_episode.h"

#include <stdlib.h>
#include <string.h>

#include "hsdag_place.h"
#include "oneshot.h"

void hsdag_episode_config(EpisodeConfig *cfg)
{
    oneshot_episode_config(cfg); /* the same episode: one topological pass from device 0 */
}

int hsdag_episode_check(const Episode *ep, const HsdagNet *net, Err *e)
{
    return episode_check_one_pass(ep, "an", "hsdag", net->arch.n_devices, e);
}

HsdagActor *hsdag_actor_new(const HsdagNet *net, const Graph *g, const Grouping *gr, const Cluster *c, Err *e)
{
    HsdagInput *in = hsdag_input_new(net, g, gr, c, e);
    if (!in)
        return NULL;
    HsdagActor *ac = xcalloc(1, sizeof *ac);
    ac->net = net;
    ac->in = in;
    ac->G = in->G;
    ac->w = hsdag_work_new(&net->arch, in);
    size_t G = (size_t)ac->G;
    ac->place = xnew_array(G, sizeof *ac->place);
    ac->cluster = xnew_array(G, sizeof *ac->cluster);
    ac->first = xnew_array(G, sizeof *ac->first);
    ac->size = xnew_array(G, sizeof *ac->size);
    ac->members = xnew_array(G, sizeof *ac->members);
    ac->x = xnew_array(G * (size_t)in->F, sizeof *ac->x);
    return ac;
}

void hsdag_actor_free(HsdagActor *ac)
{
    if (!ac)
        return;
    hsdag_work_free(ac->w);
    hsdag_input_free(ac->in);
    free(ac->place);
    free(ac->cluster);
    free(ac->first);
    free(ac->size);
    free(ac->members);
    free(ac->x);
    free(ac);
}

void hsdag_actor_ensure(HsdagActor *ac)
{
    if (ac->valid)
        return;
    hsdag_place_state(ac->net, ac->in, ac->w, ac->x);
    hsdag_forward(ac->net, ac->in, ac->x, ac->w, HSDAG_GREEDY, NULL, ac->place, NULL);
    const int *cl = hsdag_work_clusters(ac->w, &ac->n_clusters);
    memcpy(ac->cluster, cl, (size_t)ac->G * sizeof *ac->cluster);
    for (int k = 0; k < ac->n_clusters; k++) {
        ac->first[k] = -1;
        ac->size[k] = 0;
    }
    for (int v = 0; v < ac->G; v++) {
        int k = ac->cluster[v];
        if (ac->first[k] < 0)
            ac->first[k] = v;
        ac->size[k]++;
    }
    ac->valid = 1;
    ac->passes_run++;
}

const float *hsdag_actor_probs(HsdagActor *ac, const Episode *ep, const float **members)
{
    int v = episode_current(ep);
    if (v < 0 || v >= ac->G)
        return NULL;
    hsdag_actor_ensure(ac);
    int k = ac->cluster[v];
    if (members) {
        for (int u = 0; u < ac->G; u++)
            ac->members[u] = ac->cluster[u] == k ? 1.0f / (float)ac->size[k] : 0.0f;
        *members = ac->members;
    }
    return hsdag_work_probs(ac->w, k);
}

const EpisodeStep *hsdag_episode_step(Episode *ep, HsdagActor *ac, int greedy)
{
    int v = episode_current(ep);
    if (v < 0 || v >= ac->G)
        return NULL;
    hsdag_actor_ensure(ac);
    int k = ac->cluster[v], n = ac->net->arch.n_devices, a;
    const float *p = hsdag_work_probs(ac->w, k);
    Rng before = ep->rng;
    if (ac->first[k] != v) /* the cluster's device, where its first group is now */
        a = ep->group_device[ac->first[k]];
    else /* as HSDAG_GREEDY / HSDAG_SAMPLE */
        a = episode_draw_one_shot(ep, p, n, greedy);
    return episode_step_choice(ep, a, p, greedy, &before);
}
