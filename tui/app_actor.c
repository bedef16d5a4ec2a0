/* app_actor: the learned single-pass placers the explorer steps besides
 * Placeto's policy (app.h, AppActorKind): the RNN placer (rnn_episode.h),
 * GDP (gdp_episode.h) and HSDAG (hsdag_episode.h). Each kind is a table of its texts and of thin
 * adapters to its core functions; the app calls them through
 * a->policy.kind and never asks which kind it holds (but for the tour's
 * RNN stage, app_is_rnn). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "gdp_io.h"
#include "hsdag_io.h"
#include "policy_place.h"
#include "rnn_io.h"

/* ---- the RNN placer ---- */

static void *rnn_load(const char *path, const char *text, size_t len, int *n_devices, int *heads, Err *e)
{
    RnnNet *net = rnn_policy_load_text(path, text, len, NULL, e);
    if (net) {
        *n_devices = net->arch.n_devices;
        *heads = 0; /* one attention, no heads */
    }
    return net;
}
static void rnn_net_free(void *net) { rnn_free(net); }
static int rnn_check(const Episode *ep, const void *net, Err *e) { return rnn_episode_check(ep, net, e); }
static void *rnn_new_actor(const void *net, const Graph *g, const Grouping *gr, const Cluster *c, Err *e)
{
    (void)c;
    return rnn_actor_new(net, g, gr, e);
}
static void rnn_free_actor(void *ac) { rnn_actor_free(ac); }
static const float *rnn_probs(void *ac, const Episode *ep, const float **att) { return rnn_actor_probs(ac, ep, att); }
static const EpisodeStep *rnn_step(Episode *ep, void *ac, int greedy) { return rnn_episode_step(ep, ac, greedy); }

static const AppActorKind rnn_kind = {
    APP_AGENT_RNN, "rnn", "an rnn", "decodes every group once, in order, from device 0",
    "decodes them in order from device 0", "the groups the rnn decoder attends to most at this step",
    {"(these feature rows are Placeto's and do not apply to the rnn policy: it reads",
     " each group's op types, edges and output size once, and the devices it decoded)"},
    NULL, rnn_load, rnn_net_free, rnn_check, rnn_new_actor, rnn_free_actor, rnn_episode_config, rnn_probs, rnn_step,
    NULL};

/* ---- GDP ---- */

static void *gdp_load(const char *path, const char *text, size_t len, int *n_devices, int *heads, Err *e)
{
    GdpNet *net = gdp_policy_load_text(path, text, len, NULL, e);
    if (net) {
        *n_devices = net->arch.n_devices;
        *heads = net->arch.heads;
    }
    return net;
}
static void gdp_net_free(void *net) { gdp_free(net); }
static int gdp_check(const Episode *ep, const void *net, Err *e) { return gdp_episode_check(ep, net, e); }
static void *gdp_new_actor(const void *net, const Graph *g, const Grouping *gr, const Cluster *c, Err *e)
{
    (void)c;
    return gdp_actor_new(net, g, gr, e);
}
static void gdp_free_actor(void *ac) { gdp_actor_free(ac); }
static const float *gdp_probs(void *ac, const Episode *ep, const float **att) { return gdp_actor_probs(ac, ep, att); }
static const EpisodeStep *gdp_step(Episode *ep, void *ac, int greedy) { return gdp_episode_step(ep, ac, greedy); }

static const AppActorKind gdp_kind = {
    APP_AGENT_GDP, "gdp", "a gdp",
    "gives every group its distribution in one forward pass, applied once, in order, from device 0",
    "gives them all their distributions in one forward pass, applied in order from device 0",
    "the groups the gdp network's attention weighs most for the current group",
    {"(these feature rows are Placeto's and do not apply to the gdp policy: it reads each",
     " group's op types, size, cost and edges once, never the devices: one pass places all)"},
    NULL, gdp_load, gdp_net_free, gdp_check, gdp_new_actor, gdp_free_actor, gdp_episode_config, gdp_probs, gdp_step,
    NULL};

/* ---- HSDAG ---- */

static void *hsdag_load(const char *path, const char *text, size_t len, int *n_devices, int *heads, Err *e)
{
    HsdagNet *net = hsdag_policy_load_text(path, text, len, NULL, e);
    if (net) {
        *n_devices = net->arch.n_devices;
        *heads = 0;
    }
    return net;
}
static void hsdag_net_free(void *net) { hsdag_free(net); }
static int hsdag_check(const Episode *ep, const void *net, Err *e) { return hsdag_episode_check(ep, net, e); }
static void *hsdag_new_actor(const void *net, const Graph *g, const Grouping *gr, const Cluster *c, Err *e)
{
    return hsdag_actor_new(net, g, gr, c, e);
}
static void hsdag_free_actor(void *ac) { hsdag_actor_free(ac); }
static const float *hsdag_probs(void *ac, const Episode *ep, const float **members)
{
    return hsdag_actor_probs(ac, ep, members);
}
static const EpisodeStep *hsdag_step(Episode *ep, void *ac, int greedy) { return hsdag_episode_step(ep, ac, greedy); }
static int hsdag_clusters(void *actor, const int **cluster)
{
    HsdagActor *ac = actor;
    hsdag_actor_ensure(ac);
    *cluster = ac->cluster;
    return ac->n_clusters;
}

static const AppActorKind hsdag_kind = {
    APP_AGENT_HSDAG, "hsdag", "an hsdag",
    "places each learned cluster once, in order from device 0: one forward pass gives the clusters and their "
    "distributions",
    "gives the learned clusters their distributions in one forward pass, applied in order from device 0 (a "
    "cluster's later groups follow its first)",
    "the groups of the current group's learned cluster (they all go where its first group goes)",
    {"(these feature rows are Placeto's and do not apply to the hsdag policy: it reads each group's",
     " op types, size, structure and cost once, never the devices: one pass clusters and places all)"},
    "its learned cluster", hsdag_load, hsdag_net_free, hsdag_check, hsdag_new_actor, hsdag_free_actor,
    hsdag_episode_config, hsdag_probs, hsdag_step, hsdag_clusters};

/* ---- the dispatch ---- */

const AppActorKind *app_actor_kind_of(const char *path, int *rc, Err *e)
{
    *rc = 0;
    switch (policy_agent_peek(path, e)) {
    case -1:
        *rc = -1;
        return NULL;
    case POLICY_AGENT_RNN:
        return &rnn_kind;
    case POLICY_AGENT_GDP:
        return &gdp_kind;
    case POLICY_AGENT_HSDAG:
        return &hsdag_kind;
    default:
        return NULL;
    }
}

int app_actor_load(App *a, const AppActorKind *kind, const char *path, const char *text, size_t len, Err *e)
{
    AppPolicy *p = &a->policy;
    int nd = 0, heads = 0;
    if (!(p->net = kind->load(path, text, len, &nd, &heads, e)))
        return -1;
    p->kind = kind;
    if (heads > 0) /* the heads' mean: one row over the groups, as the RNN's */
        snprintf(p->why, sizeof p->why, "why: attention, %d-head mean (+ placed)", heads);
    else
        snprintf(p->why, sizeof p->why, "why: attention (+ decoded, . not yet)");
    if (nd != a->data.pb.c->n_devices)
        return err_set(e, "%s: the %s policy is for %d devices but the cluster has %d (use --devices %d)", path,
                       kind->name, nd, a->data.pb.c->n_devices, nd);
    return 0;
}

int app_actor_attach(App *a, const Episode *ep, const char *episode_path, Err *e)
{
    AppPolicy *p = &a->policy;
    if (!p->kind)
        return 0;
    if (ep && p->kind->check(ep, p->net, e) != 0) {
        char what[4200];
        snprintf(what, sizeof what, "%s: cannot be stepped by the %s policy %s", episode_path, p->kind->name, p->path);
        err_prefix(e, what);
        return -1;
    }
    if (!(p->actor = p->kind->actor_new(p->net, a->data.pb.g, a->data.pb.gr, a->data.pb.c, e))) {
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
        p->kind->actor_free(p->actor);
    if (p->net)
        p->kind->net_free(p->net);
    p->actor = p->net = NULL;
}

const float *app_actor_probs(App *a, const float **attention)
{
    return a->policy.kind->probs(a->policy.actor, a->data.ep, attention);
}

const EpisodeStep *app_actor_step(App *a)
{
    return a->policy.kind->step(a->data.ep, a->policy.actor, a->run.greedy);
}

int app_actor_refuse(App *a, const char *what)
{
    if (!app_is_actor(a))
        return 0;
    app_msg(a, GS_WARN, "%s does not apply to %s policy: %s %s", what, a->policy.kind->a_name,
            a->policy.path ? a->policy.path : "it", a->policy.kind->does);
    return 1;
}

int app_actor_refuse_training(App *a)
{
    if (!app_is_actor(a))
        return 0;
    char what[128];
    snprintf(what, sizeof what, "background training (placeto train --agent %s trains one)", a->policy.kind->name);
    return app_actor_refuse(a, what);
}
