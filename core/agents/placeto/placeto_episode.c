/* placeto_episode: Placeto's policy stepping an episode (placeto_episode.h). */
#include "placeto_episode.h"

#include "sample.h"

void placeto_episode_config(EpisodeConfig *cfg, const PolicyArch *a)
{
    cfg->mem_feature = a->mem_feature;
    cfg->extended_features = a->extended;
    cfg->accept_improving = a->accept_improving;
    cfg->reject_zero = a->reject_zero;
    if (cfg->init == EPISODE_INIT_RANDOM_FIXED || cfg->init == EPISODE_INIT_DEVICE0)
        cfg->init = a->start_device0 ? EPISODE_INIT_DEVICE0 : EPISODE_INIT_RANDOM_FIXED;
}

int placeto_episode_check(const EpisodeConfig *cfg, const PolicyArch *a, int n_devices, Err *e)
{
    if (a->n_devices != n_devices)
        return err_set(e, "the policy is for %d devices but the cluster has %d", a->n_devices, n_devices);
    if (a->mem_feature != (cfg->mem_feature ? 1 : 0))
        return err_set(e, "the policy was built %s the memory feature", a->mem_feature ? "with" : "without");
    if (a->extended != (cfg->extended_features ? 1 : 0))
        return err_set(e, "the policy was built %s the extended features", a->extended ? "with" : "without");
    if (a->n_features != policy_n_features(n_devices, a->mem_feature, a->extended))
        return err_set(e, "the policy reads %d features, the episode gives %d", a->n_features,
                       policy_n_features(n_devices, a->mem_feature, a->extended));
    return 0;
}

const EpisodeStep *placeto_episode_step(Episode *ep, const Policy *pol, PolicyWork *w, int greedy,
                                   float *feats_out)
{
    return placeto_episode_step_on(ep, pol, ep->pg, w, greedy, feats_out);
}

const EpisodeStep *placeto_episode_step_on(Episode *ep, const Policy *pol, const PolicyGraph *pg, PolicyWork *w,
                                           int greedy, float *feats_out)
{
    int v = episode_current(ep), nd = ep->n_devices;
    if (v < 0)
        return NULL;
    float *feats = feats_out ? feats_out : ep->feats;
    float probs[POLICY_MAX_DEVICES];
    episode_features(ep, v, feats);
    if (ep->temperature != 1.0) {
        float logits[POLICY_MAX_DEVICES];
        policy_forward(pol, pg, w, feats, v, logits, NULL);
        for (int d = 0; d < nd; d++)
            logits[d] = (float)(logits[d] / ep->temperature);
        nn_softmax_f(logits, nd, probs, NULL);
    } else {
        policy_forward(pol, pg, w, feats, v, NULL, probs);
    }
    Rng before = ep->rng;
    int a = greedy ? sample_argmax_f(probs, nd) : sample_draw_f(probs, nd, rng_uniform(&ep->rng));
    return episode_step_choice(ep, a, probs, greedy, &before);
}
