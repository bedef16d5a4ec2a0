/* app_actor: the policy the explorer steps, through its agent's explorer
 * actor (agent.h, AgentActorOps: Placeto, the RNN placer, GDP and HSDAG).
 * The app calls it through a->policy.kind and never asks which agent it
 * holds (but for the tour's RNN stage, app_is_rnn, and Placeto's insides,
 * app_placeto_insides). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

int app_actor_load(App *a, AgentPolicy *ap, Err *e)
{
    AppPolicy *p = &a->policy;
    p->net = ap->net;
    ap->net = NULL; /* the app's now */
    p->kind = ap->kind;
    if (ap->info.heads > 0) /* the heads' mean: one row over the groups, as the RNN's */
        snprintf(p->why, sizeof p->why, "why: attention, %d-head mean (+ placed)", ap->info.heads);
    else
        snprintf(p->why, sizeof p->why, "why: attention (+ decoded, . not yet)");
    if (ap->info.n_devices != a->data.pb.c->n_devices)
        return err_set(e, "%s: the %s policy is for %d devices but the cluster has %d (use --devices %d)", ap->path,
                       ap->kind->name, ap->info.n_devices, a->data.pb.c->n_devices, ap->info.n_devices);
    return 0;
}

int app_actor_attach(App *a, const Episode *ep, const char *episode_path, Err *e)
{
    AppPolicy *p = &a->policy;
    if (!p->kind)
        return 0;
    if (ep && p->kind->actor->check(ep, app_policy_net(p), e) != 0) {
        char what[4200];
        snprintf(what, sizeof what, "%s: cannot be stepped by the %s policy %s", episode_path, p->kind->name, p->path);
        err_prefix(e, what);
        return -1;
    }
    if (!(p->actor = p->kind->actor->actor_new(app_policy_net(p), a->data.pb.g, a->data.pb.gr, a->data.pb.c, e))) {
        err_prefix(e, p->path);
        return -1;
    }
    return 0;
}

void app_actor_free(AppPolicy *p)
{
    if (!p->kind)
        return;
    if (p->actor)
        p->kind->actor->actor_free(p->actor);
    if (p->net)
        p->kind->file.free(p->net);
    p->actor = p->net = NULL;
}

const float *app_actor_probs(App *a, const float **attention)
{
    return a->policy.kind->actor->probs(a->policy.actor, a->data.ep, attention);
}

const EpisodeStep *app_actor_step(App *a)
{
    return a->policy.kind->actor->step(a->data.ep, a->policy.actor, a->run.greedy);
}

int app_actor_refuse(App *a, const char *what)
{
    if (app_placeto_insides(a))
        return 0;
    app_msg(a, GS_WARN, "%s does not apply to %s policy: %s %s", what, a->policy.kind->a_name,
            a->policy.path ? a->policy.path : "it", a->policy.kind->actor->does);
    return 1;
}

int app_actor_refuse_training(App *a)
{
    if (a->policy.kind->train.explore) /* its agent says how the explorer trains it */
        return 0;
    char what[128];
    snprintf(what, sizeof what, "background training (placeto train --agent %s trains one)", a->policy.kind->name);
    return app_actor_refuse(a, what);
}
