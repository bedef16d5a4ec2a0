/* The fixed-seed reference of the policy and the trainer: on a fixed random
 * graph, the logits and log-probabilities of the policy of seed 42 for the
 * first node, and the losses of the first ten training episodes, must match
 * tests/data/policy_reference.json (relative 1e-4: BLAS kernels of other
 * CPUs round differently, a real change moves them much more). Regenerate
 * after an intended change with PLACETO_UPDATE_REFERENCE=1 build/unit
 * policy_reference, and review the diff. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "gen.h"
#include "test.h"
#include "placeto_train.h"

#define REF_PATH "tests/data/policy_reference.json"

static void on_episode(const TrainReport *r, void *ud)
{
    double *losses = ud;
    if (r->episode >= 1 && r->episode <= 10)
        losses[r->episode - 1] = r->loss;
}

static void write_array(FILE *f, const char *name, const double *x, int n, int last)
{
    fprintf(f, "  \"%s\": [", name);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%.9g", i ? ", " : "", x[i]);
    fprintf(f, "]%s\n", last ? "" : ",");
}

static int check_array(const cJSON *root, const char *name, const double *x, int n)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, name);
    REQUIRE_OR(cJSON_IsArray(a) && cJSON_GetArraySize(a) == n, 0, "%s: expected %d numbers in %s", name, n, REF_PATH);
    int ok = 1;
    for (int i = 0; i < n; i++) {
        double want = cJSON_GetArrayItem(a, i)->valuedouble;
        double tol = 1e-4 * fmax(1e-3, fabs(want));
        if (!(fabs(x[i] - want) <= tol)) {
            CHECK_MSG(0, "%s[%d] = %.9g, reference %.9g", name, i, x[i], want);
            ok = 0;
        }
    }
    return ok;
}

TEST(policy_reference)
{
    Err e = {{0}};
    Graph *g = gen_random_dag(24, 2.0, 5);
    Grouping *gr = group_build(g, 0, &e);
    Cluster *c = cluster_default(3);
    PolicyGraph *pg = policy_graph_new(gr, &e);
    PolicyArch arch;
    policy_arch_default(&arch, 3);
    Policy *pol = policy_new(&arch, 42, &e);
    EpisodeConfig cfg;
    episode_config_default(&cfg);
    Episode *ep = episode_new(g, gr, c, pg, &cfg, 7, NULL, &e);
    REQUIRE(g && gr && pg && pol && ep);
    float *feats = XMALLOC(float, xmul((size_t)gr->n_groups, (size_t)arch.n_features));
    episode_features(ep, 0, feats);
    PolicyWork *w = policy_work_new(&arch, pg);
    float lf[3], lp[3];
    policy_forward(pol, pg, w, feats, 0, lf, NULL);
    nn_softmax_f(lf, 3, NULL, lp);
    double logits[3], logp[3], losses[10] = {0};
    for (int d = 0; d < 3; d++) {
        logits[d] = lf[d];
        logp[d] = lp[d];
    }
    /* ten episodes of training from the same policy */
    PlacetoTrainConfig tc;
    placeto_train_config_default(&tc);
    tc.seed = 11;
    TrainState ts;
    train_state_init(&ts, tc.lr, tc.entropy, tc.seed);
    TrainGraph tg = {g, gr, pg};
    PlacetoTrainer *t = placeto_train_new(pol, &ts, &tc, &tg, 1, c, &e);
    CHECK_MSG(t != NULL, "%s", e.msg);
    if (t)
        CHECK_INT((int)placeto_train_run(t, 10, on_episode, losses, NULL), 10);
    for (int i = 0; i < 10; i++)
        CHECK_MSG(isfinite(losses[i]), "loss %d not finite", i);
    if (getenv("PLACETO_UPDATE_REFERENCE")) {
        FILE *f = fopen(REF_PATH, "w");
        CHECK(f != NULL);
        if (f) {
            fputs("{\n", f);
            write_array(f, "logits", logits, 3, 0);
            write_array(f, "log_probs", logp, 3, 0);
            write_array(f, "losses", losses, 10, 1);
            fputs("}\n", f);
            fclose(f);
        }
    } else {
        size_t len;
        char *text = util_read_file(REF_PATH, &len, &e);
        CHECK_MSG(text != NULL, "%s", e.msg);
        cJSON *root = text ? cJSON_Parse(text) : NULL;
        CHECK_MSG(root != NULL, "%s: not JSON", REF_PATH);
        if (root) {
            check_array(root, "logits", logits, 3);
            check_array(root, "log_probs", logp, 3);
            check_array(root, "losses", losses, 10);
        }
        cJSON_Delete(root);
        free(text);
    }
    placeto_train_free(t);
    train_state_done(&ts);
    free(feats);
    policy_work_free(w);
    episode_free(ep);
    policy_free(pol);
    policy_graph_free(pg);
    cluster_free(c);
    group_free(gr);
    graph_free(g);
}
