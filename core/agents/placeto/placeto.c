/* placeto: Placeto as a registered agent (agent.h). The explorer steps it
 * natively (its features, message passing and background training), so it
 * has no actor table. */
#include "agent.h"
#include "policy_io.h"
#include "policy_place.h"
#include "train.h"

static void *load(const AgentFile *f, TrainState *ts, Err *e) { return policy_load_doc(&f->doc, ts, e); }
static int save(const void *net, const TrainState *ts, const char *path, Err *e)
{
    return policy_save(net, ts, path, e);
}
static void net_free(void *net) { policy_free(net); }
static void info(const void *net, AgentInfo *out)
{
    const Policy *p = net;
    *out = (AgentInfo){p->arch.n_devices, 0, 0};
}

/* The Placeto trainer's options (`train`'s runner for Placeto reads them:
 * tui/cli/cmd_train.c). */
static const AgentOpt train_opts[] = {
    {"threads", 't', "T", "rollouts in parallel (default 1); results depend on T, deterministically"},
    {"preset", 0, "P", "default settings: tuned (default) or paper (the paper's reference settings)"},
    {"lr", 0, "X", "Adam learning rate (default 0.001)"},
    {"entropy", 0, "B", "entropy weight beta (default 0.01; paper 1.0)"},
    {"entropy-decay", 0, "K", "beta falls linearly to 0 over K episodes (default: constant)"},
    {"clip", 0, "X", "global gradient-norm clip (default 1.25)"},
    {"gamma", 0, "X", "discount of the returns (default 0: each step's own reward; paper 1)"},
    {"normalize", 0, NULL, "scale each episode's advantages to unit standard deviation"},
    {"temperature", 0, "T", "train the policy softmax(logits / T): sampling sharper (T < 1) or flatter (default 1)"},
    {"passes", 0, "P", "walks over the groups per episode (default 1)"},
    {"init", 0, "MODE", "start: device0 (default; paper random-fixed), random-fixed, random-each, best, heuristic (the best one's), or a method (metis, ...)"},
    {"random-order", 0, NULL, "visit the groups in a random order (default: topological)"},
    {"reward", 0, "R", "relative (default: improvement / the start's runtime), seconds (paper) or log (log seconds)"},
    {"log-runtime", 0, NULL, "the same as --reward log"},
    {"relative-reward", 0, NULL, "the same as --reward relative"},
    {"accept", 0, "A", "improving (default: undo, after its reward, every move that makes the placement slower) or all (paper)"},
    {"accept-improving", 0, NULL, "the same as --accept improving"},
    {"features", 0, "SET", "extended (default: + critical path, load, memory, neighbours) or paper"},
    {"oom-penalty", 0, "X", "seconds per GB over a device's memory (default 2)"},
    {"mem-feature", 0, NULL, "add the peak-memory feature column"},
    {0},
};
static NnParams *params(void *net) { return &((Policy *)net)->p; }

const AgentKind agent_placeto = {
    "placeto", "a Placeto", "Placeto, the graph-embedding placer that improves a placement step by step "
                            "(Addanki et al. 2019)",
    {load, save, net_free, info, params},
    {placeto_place_runs, "placeto-trained", 1, NULL},
    {"episode", POLICY_MAX_GROUPS, train_opts, NULL, 0, NULL, NULL, NULL, NULL, 1, NULL, NULL, NULL},
    NULL,
};
