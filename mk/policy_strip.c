/* placeto-strip: rewrites policy files without their optimizer state (`make
 * strip-policies` runs it on graphs/policies/). Each file is loaded (any
 * agent, any format this version reads) with its training state and written
 * back: the weights, the counters and the best placement per graph stay in
 * the policy file; the optimizer state (Adam's moments, the RNG, the
 * baselines) goes to the checkpoint beside it, which is then removed,
 * so that `place`, `compare` and `explore` read what they use and a
 * bundled policy resumed with `train --resume` starts a fresh optimizer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "policy_file.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: placeto-strip POLICY.json...\n");
        return 2;
    }
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        Err e = {{0}};
        AgentPolicy p;
        TrainState ts;
        char ck[4200];
        policy_file_checkpoint_path(ck, sizeof ck, argv[i]);
        if (agent_policy_open(argv[i], &p, &ts, &e) != 0 || p.kind->file.save(p.net, &ts, argv[i], &e) != 0) {
            fprintf(stderr, "placeto-strip: %s\n", e.msg);
            rc = 1;
        } else if (remove(ck) != 0) {
            fprintf(stderr, "placeto-strip: cannot remove %s\n", ck);
            rc = 1;
        }
        if (p.kind)
            agent_policy_close(&p);
        train_state_done(&ts);
    }
    return rc;
}
