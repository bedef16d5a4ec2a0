/* gdp_episode: an Episode stepped by the GDP placer (see gdp_episode.h). */
#include "gdp_episode.h"

#include <stdlib.h>
#include <string.h>

#include "oneshot.h"

void gdp_episode_config(EpisodeConfig *cfg)
{
    oneshot_episode_config(cfg); /* the same episode: one topological pass from device 0 */
}

int gdp_episode_check(const Episode *ep, const GdpNet *net, Err *e)
{
    return episode_check_one_pass(ep, "a", "gdp", net->arch.n_devices, e);
}

GdpActor *gdp_actor_new(const GdpNet *net, const Graph *g, const Grouping *gr, Err *e)
{
    GdpInput *in = gdp_input_new(g, gr, &net->vocab, e);
    if (!in)
        return NULL;
    GdpActor *ac = xcalloc(1, sizeof *ac);
    ac->net = net;
    ac->in = in;
    ac->G = in->G;
    ac->w = gdp_work_new(&net->arch, ac->G);
    ac->place = xnew_array((size_t)ac->G, sizeof *ac->place);
    ac->attention = xnew_array((size_t)ac->G, sizeof *ac->attention);
    return ac;
}

void gdp_actor_free(GdpActor *ac)
{
    if (!ac)
        return;
    gdp_work_free(ac->w);
    gdp_input_free(ac->in);
    free(ac->place);
    free(ac->attention);
    free(ac);
}

void gdp_actor_reset(GdpActor *ac)
{
    ac->valid = 0;
}

/* The one forward pass (the distributions do not depend on the placement). */
static void ensure_forward(GdpActor *ac)
{
    if (ac->valid)
        return;
    gdp_forward(ac->net, ac->in, ac->w, GDP_GREEDY, NULL, ac->place, NULL, NULL);
    ac->valid = 1;
    ac->passes_run++;
}

/* Group v's attention row in the last block, averaged over the heads, over
 * every group. */
static void attention_row(GdpActor *ac, int v)
{
    int H = ac->net->arch.heads, block = ac->net->arch.blocks - 1;
    memset(ac->attention, 0, (size_t)ac->G * sizeof *ac->attention);
    for (int h = 0; h < H; h++) {
        int first = 0, n = 0;
        const float *row = gdp_work_attention(ac->w, block, h, v, &first, &n);
        for (int k = 0; k < n; k++)
            ac->attention[first + k] += row[k];
    }
    for (int k = 0; k < ac->G; k++)
        ac->attention[k] /= (float)H;
}

const float *gdp_actor_probs(GdpActor *ac, const Episode *ep, const float **attention)
{
    int v = episode_current(ep);
    if (v < 0 || v >= ac->G)
        return NULL;
    ensure_forward(ac);
    if (attention) {
        attention_row(ac, v);
        *attention = ac->attention;
    }
    return gdp_work_probs(ac->w, v);
}

const EpisodeStep *gdp_episode_step(Episode *ep, GdpActor *ac, int greedy)
{
    int v = episode_current(ep);
    if (v < 0 || v >= ac->G)
        return NULL;
    ensure_forward(ac);
    const float *p = gdp_work_probs(ac->w, v);
    Rng before = ep->rng;
    int a = episode_draw_one_shot(ep, p, ac->net->arch.n_devices, greedy); /* as GDP_GREEDY / GDP_SAMPLE */
    return episode_step_choice(ep, a, p, greedy, &before);
}
