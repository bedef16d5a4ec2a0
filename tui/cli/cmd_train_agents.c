/* train [--agent NAME]: every registered agent is trained here, through one
 * runner (train_cli_agent) that knows no agent: its options, configuration,
 * network, trainer and policy file come from its AgentKind (agent.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "cmd_train.h"
#include "dist.h"
#include "policy_file.h"

int train_cli_agent(const CliCmd *cmd, const CliArgs *a, const AgentKind *k)
{
    const AgentTrainOps *ag = &k->train;
    const char *refused = train_cli_refused(cmd, a, k);
    if (refused && cli_get(cmd, a, "agent"))
        return cli_usage_error(cmd, "--%s does not apply to --agent %s", refused, k->name);
    if (refused) { /* the default agent: say whose option it is */
        char who[256];
        train_cli_whose(refused, who, sizeof who);
        return cli_usage_error(cmd, "--%s applies to %s", refused, who);
    }
    long episodes, every;
    uint64_t seed;
    ProblemSpec spec;
    if (cli_problem(cmd, a, a->pos[0], ag->max_groups, &spec, &seed) || cli_int(cmd, a, "episodes", &episodes) ||
        cli_int(cmd, a, "checkpoint-every", &every))
        return EXIT_USAGE;
    Err e = {{0}};
    void *cfg = xcalloc(1, ag->config_size ? ag->config_size : 1);
    CliArgsCtx ctx;
    AgentArgs args = cli_agent_args(cmd, a, &ctx);
    args.opts = ag->opts; /* the agent's rows first: its defaults and bounds, then the shared ones */
    args.more = cmd->opts;
    if (ag->configure(&args, seed, cfg, &e) != 0) {
        free(cfg);
        return cli_usage_error(cmd, "%s", e.msg);
    }
    for (int s = 0; ag->shape && ag->shape[s]; s++)
        if (cli_get(cmd, a, ag->shape[s]) && cli_get(cmd, a, "resume")) {
            free(cfg);
            return cli_usage_error(cmd, "--%s sets a new policy's architecture; --resume keeps the file's", ag->shape[s]);
        }
    const char *resume = cli_get(cmd, a, "resume"), *out = cli_get(cmd, a, "output");
    if (!out)
        out = resume ? resume : "policy.json";
    /* standard output, /dev/null, a FIFO: the policy goes there once, at
     * the end (one whole document), and no checkpoint is derived from the
     * name (no "/dev/null.ckpt.json", no "./-.ckpt.json") */
    int streamed = !policy_file_keeps_checkpoint(out);
    if (streamed && cli_get(cmd, a, "checkpoint-every")) {
        free(cfg);
        return cli_usage_error(cmd, "--checkpoint-every: the policy goes to %s, not a regular file, so no "
                                    "checkpoint can be kept beside it (give -o a file)",
                               strcmp(out, "-") == 0 ? "standard output (-o -)" : out);
    }
    if (streamed)
        every = 1L << 40;
    TrainState ts;
    ag->state_init(&ts, cfg);
    void *net = NULL, *t = NULL;
    Cluster *c = NULL;
    int n_graphs = 0, rc = EXIT_FAIL, n_devices = 0, n_groups = 0, any_devices = 0;
    char **paths = NULL;
    Problem *pb = NULL;
    TrainGraph *tg = NULL;
    int begun = 0; /* train_cli_begin called */
    if (resume) {
        train_state_done(&ts);
        AgentPolicy rp;
        if (agent_policy_resume(resume, &rp, &ts, &e) != 0)
            goto done;
        if (rp.kind != k) {
            err_set(&e, "%s: %s policy, not %s policy (train --agent %s trains it)", resume, rp.kind->a_name,
                    k->a_name, rp.kind->name);
            agent_policy_close(&rp);
            goto done;
        }
        net = rp.net;
        rp.net = NULL; /* ours now */
        if (ag->resumed)
            ag->resumed(net, cfg, &args);
        n_devices = rp.info.n_devices;
        any_devices = rp.info.any_devices;
        n_groups = rp.info.n_groups;
        if (!cli_get(cmd, a, "cluster") && !cli_get(cmd, a, "devices")) { /* on the cluster it was trained on */
            c = rp.cluster;
            rp.cluster = NULL;
        }
        agent_policy_close(&rp);
        const char *devs = cli_get(cmd, a, "devices");
        if (devs && !any_devices && strtol(devs, NULL, 10) != n_devices) {
            err_set(&e, "%s: the policy is for %d devices but the cluster has %s (--devices %s; leave it out to use %d)",
                    resume, n_devices, devs, devs, n_devices);
            goto done;
        }
        if (!ts.has_optimizer) { /* no checkpoint: a fresh optimizer on the trained weights */
            TrainState fresh;
            ag->state_init(&fresh, cfg);
            train_cli_fresh_optimizer(resume, &fresh, &ts);
        }
    }
    if (!(paths = train_cli_paths(a, &n_graphs, &e)) || (!c && !(c = cli_cluster(cmd, a, net ? n_devices : 2, &e))))
        goto done;
    ts.cluster = c; /* recorded in the policy file */
    spec.cluster = c;
    if (resume && n_graphs == 1 && !cli_get(cmd, a, "groups") && n_groups > 0 && n_groups <= ag->max_groups)
        spec.groups = n_groups; /* one graph: the grouping the policy was trained on */
    tg = xnew_array((size_t)n_graphs, sizeof *tg);
    pb = xnew_array((size_t)n_graphs, sizeof *pb);
    if (train_cli_load_graphs(&spec, paths, n_graphs, pb, tg, ag->policy_graphs, &e) != 0)
        goto done;
    if (!net && !(net = ag->create(cfg, pb, n_graphs, c, &e)))
        goto done;
    if (!(t = ag->trainer_new(net, &ts, cfg, tg, n_graphs, c, &e))) {
        err_prefix(&e, resume ? resume : "policy");
        goto done;
    }
    if (ag->prepare && ag->prepare(&ts, cfg, pb, n_graphs, &e) != 0)
        goto done;
    begun = 1;
    if (train_cli_begin(0, pb, n_graphs, &ts, &e) != 0)
        goto done;
    Progress pr = {0};
    pr.json = cli_get(cmd, a, "json") != NULL;
    pr.first = ts.episodes;
    long W = ag->round ? ag->round(cfg) * dist_size() : 1; /* episodes per round */
    pr.total = (episodes + W - 1) / W * W;
    pr.graphs = tg;
    pr.problems = pb;
    pr.n_graphs = n_graphs;
    TrainLoop loop = {ag->run, k->file.save, t, net, ag->unit};
    if (streamed && dist_rank() == 0)
        fprintf(stderr, "placeto: the policy goes to %s once, when training ends, with no checkpoint beside it "
                        "(train --resume needs one: give -o a file to keep one)\n",
                strcmp(out, "-") == 0 ? "standard output" : out);
    if (train_cli_loop(&loop, &pr, &ts, every, out, cli_get(cmd, a, "curve"), &e) != 0)
        goto done;
    rc = EXIT_OK;
done:
    if (!begun)
        dist_agree(1, &e);
    if (t)
        ag->trainer_free(t);
    if (net)
        k->file.free(net);
    free(cfg);
    train_state_done(&ts);
    if (tg)
        train_cli_free_graphs(pb, tg, n_graphs);
    cluster_free(c);
    for (int i = 0; i < n_graphs; i++)
        free(paths[i]);
    free(paths);
    return rc == EXIT_OK ? rc : cli_fail(&e);
}
