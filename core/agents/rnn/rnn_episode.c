/* rnn_episode: an Episode stepped by the RNN placer's decoder (see
 * rnn_episode.h). */
#include "rnn_episode.h"

#include <stdlib.h>
#include <string.h>

/* An hdp policy's decoder places learned groups, not the episode's groups one at a time. */
static int refuse_hdp(const RnnNet *net, Err *e)
{
    if (net->arch.grouper != RNN_GROUPER_HDP)
        return 0;
    return err_set(e, "an hdp policy (train --grouper hdp) cannot be stepped in the explorer: its placer decodes "
                      "%d learned groups, not the graph's groups in order (place it with place --policy)",
                   net->arch.n_groups);
}

int rnn_episode_check(const Episode *ep, const RnnNet *net, Err *e)
{
    if (refuse_hdp(net, e) != 0)
        return -1;
    if (episode_check_one_pass(ep, "an", "rnn", net->arch.n_devices, e) != 0)
        return -1;
    if (ep->n_groups > net->arch.n_groups)
        return err_set(e, "the rnn policy places at most %d groups but the episode has %d", net->arch.n_groups,
                       ep->n_groups);
    return 0;
}

RnnActor *rnn_actor_new(const RnnNet *net, const Graph *g, const Grouping *gr, Err *e)
{
    if (refuse_hdp(net, e) != 0)
        return NULL;
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
