/* cmd_train_closing: the comparison `train` ends with (cmd_train.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd_train.h"
#include "place.h"
#include "policy_file.h"

static int closing_rows(const AgentPolicy *ap, const TrainState *fts, const Problem *p, TrainClosing *o)
{
    Err e = {{0}};
    PlaceRun rows[2], ctl, heur;
    const AgentPlaceOpts opts = {0, 0, AGENT_START_DEFAULT, 0}; /* place's defaults */
    int n = agent_place_runs(ap, fts, p, &opts, rows, NULL, &e);
    if (n < 1)
        return -1;
    static char row[64];
    snprintf(row, sizeof row, "%s", rows[n - 1].method);
    o->row = row;
    o->policy_us = rows[n - 1].runtime_us;
    o->seen_us = n == 2 ? rows[0].runtime_us : NAN;
    for (int k = 0; k < n; k++)
        place_run_free(&rows[k]);
    o->untrained_us = NAN;
    if (agent_place_untrained(ap, p, &opts, &ctl, &e) == 0) {
        o->untrained_us = ctl.runtime_us;
        place_run_free(&ctl);
    }
    PlaceCtx ctx = {.g = p->g, .gr = p->gr, .c = p->c};
    int *gd = xnew_array((size_t)p->gr->n_groups, sizeof *gd);
    double score;
    place_best_heuristic(&ctx, gd, &score, &o->heuristic);
    place_run_groups(p, o->heuristic, gd, NAN, &heur);
    o->heuristic_us = heur.runtime_us;
    place_run_free(&heur);
    free(gd);
    return 0;
}

int train_cli_closing(const Progress *pr, const char *out, TrainClosing *o)
{
    /* the policy is read back from out: not from standard output, a device
     * or a FIFO ("-" would read standard input, a FIFO wait for a writer) */
    if (!pr->problems || !policy_file_keeps_checkpoint(out))
        return 0;
    AgentPolicy ap;
    TrainState fts;
    Err e = {{0}};
    if (agent_policy_open(out, &ap, &fts, &e) != 0) {
        train_state_done(&fts);
        return 0;
    }
    int n = 0;
    for (int i = 0; i < pr->n_graphs && n < TRAIN_CLOSING_GRAPHS; i++)
        if (closing_rows(&ap, &fts, &pr->problems[i], &o[n]) == 0)
            n++;
    agent_policy_close(&ap);
    train_state_done(&fts);
    return n;
}

