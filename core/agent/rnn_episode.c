/* rnn_episode: an Episode stepped by the RNN placer's decoder (see
 * rnn_episode.h). */
#include "rnn_episode.h"

#include <stdlib.h>
#include <string.h>

void rnn_episode_config(EpisodeConfig *cfg)
{
    episode_config_default(cfg);
    cfg->init = EPISODE_INIT_DEVICE0;
}

int episode_check_one_pass(const Episode *ep, const char *article, const char *agent, int n_devices, Err *e)
{
    const EpisodeConfig *c = &ep->cfg;
    if (n_devices != ep->n_devices)
        return err_set(e, "the %s policy is for %d devices but the cluster has %d", agent, n_devices, ep->n_devices);
    if (c->passes != 1)
        return err_set(e, "%s %s episode makes one pass over the groups, the configuration has %d", article, agent,
                       c->passes);
    if (c->random_order)
        return err_set(e, "%s %s episode visits the groups in topological order, the configuration is random",
                       article, agent);
    if (c->init != EPISODE_INIT_DEVICE0)
        return err_set(e, "%s %s episode starts from everything on device 0, the configuration starts elsewhere",
                       article, agent);
    if (c->accept_improving)
        return err_set(e, "%s %s episode keeps every choice of the network, the configuration keeps only improving "
                          "ones", article, agent);
    return 0;
}

int episode_draw_one_shot(Episode *ep, const float *p, int n, int greedy)
{
    int a = 0;
    if (greedy) {
        for (int i = 1; i < n; i++)
            if (p[i] > p[a])
                a = i;
        return a;
    }
    double r = rng_uniform(&ep->rng), acc = 0;
    for (int i = 0; i < n; i++) {
        acc += (double)p[i];
        if (r < acc)
            return i;
    }
    return n - 1;
}

int rnn_episode_check(const Episode *ep, const RnnNet *net, Err *e)
{
    if (episode_check_one_pass(ep, "an", "rnn", net->arch.n_devices, e) != 0)
        return -1;
    if (ep->n_groups > net->arch.n_groups)
        return err_set(e, "the rnn policy places at most %d groups but the episode has %d", net->arch.n_groups,
                       ep->n_groups);
    return 0;
}

RnnActor *rnn_actor_new(const RnnNet *net, const Graph *g, const Grouping *gr, Err *e)
{
    RnnInput *in = rnn_input_new(g, gr, &net->vocab, net->arch.n_groups, e);
    if (!in)
        return NULL;
    RnnActor *ac = xcalloc(1, sizeof *ac);
    ac->net = net;
    ac->in = in;
    ac->G = in->G;
    ac->w = rnn_work_new(&net->arch);
    ac->act = xnew_array((size_t)ac->G, sizeof *ac->act);
    rnn_decode_begin(net, in, ac->w);
    return ac;
}

void rnn_actor_free(RnnActor *ac)
{
    if (!ac)
        return;
    rnn_work_free(ac->w);
    rnn_input_free(ac->in);
    free(ac->act);
    free(ac);
}

void rnn_actor_reset(RnnActor *ac)
{
    ac->n_valid = 0;
}

/* Brings the work space to steps 0 .. t-1 decoded with dev[0 .. t-1]:
 * re-runs them from the first one whose device differs. */
static void sync_to(RnnActor *ac, const int *dev, int t)
{
    int k = 0, lim = ac->n_valid < t ? ac->n_valid : t;
    while (k < lim && ac->act[k] == dev[k])
        k++;
    if (k == t)
        return; /* steps from t on, when valid, stay so: they follow from the same prefix */
    ac->n_valid = k;
    for (; k < t; k++) {
        rnn_decode_step(ac->net, ac->w, k, RNN_SCORE, NULL, dev[k], NULL, NULL);
        ac->act[k] = dev[k];
        ac->steps_run++;
    }
    ac->n_valid = t;
}

const float *rnn_actor_probs(RnnActor *ac, const Episode *ep, const float **attention)
{
    int t = ep->cursor;
    if (episode_done(ep) || t >= ac->G)
        return NULL;
    sync_to(ac, ep->group_device, t);
    if (ac->n_valid <= t) { /* step t's distribution does not depend on the device fed to it */
        rnn_decode_step(ac->net, ac->w, t, RNN_SCORE, NULL, ep->group_device[t], NULL, NULL);
        ac->act[t] = ep->group_device[t];
        ac->n_valid = t + 1;
        ac->steps_run++;
    }
    if (attention)
        *attention = rnn_work_attention(ac->w, t);
    return rnn_work_probs(ac->w, t);
}

const EpisodeStep *rnn_episode_step(Episode *ep, RnnActor *ac, int greedy)
{
    int t = ep->cursor;
    if (episode_done(ep) || t >= ac->G)
        return NULL;
    sync_to(ac, ep->group_device, t);
    Rng before = ep->rng;
    int a = rnn_decode_step(ac->net, ac->w, t, greedy ? RNN_GREEDY : RNN_SAMPLE, &ep->rng, 0, NULL, NULL);
    ac->steps_run++;
    if (ac->n_valid <= t || ac->act[t] != a) /* the later steps were fed another device */
        ac->n_valid = t + 1;
    ac->act[t] = a;
    return episode_step_choice(ep, a, rnn_work_probs(ac->w, t), greedy, &before);
}
