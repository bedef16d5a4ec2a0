/* What the one-shot trainers' set-up shares (core/agent/oneshot.h,
 * train_state.h): the checks and maxima of oneshot_train_setup, the
 * gradients of an update summed in item order over the trained range, and
 * the draw of a training graph, which one graph leaves out of the RNG. */
#include <stdlib.h>
#include <string.h>

#include "oneshot.h"
#include "test.h"
#include "train_state.h"
#include "util.h"

TEST(oneshot_train_setup_checks_and_maxima)
{
    Graph g[3] = {{.n_nodes = 7}, {.n_nodes = 30}, {.n_nodes = 12}};
    Grouping gr[3] = {{.n_groups = 5}, {.n_groups = 4}, {.n_groups = 9}};
    TrainGraph tg[3] = {{&g[0], &gr[0], NULL}, {&g[1], &gr[1], NULL}, {&g[2], &gr[2], NULL}};
    Cluster c = {.n_devices = 3};
    OneShotTrainSetup s;
    Err e = {{0}};
    CHECK(oneshot_train_setup(&s, "gdp", 2, 2.0, tg, 3, &c, &e) == -1);
    CHECK_STR(e.msg, "the gdp policy is for 2 devices but the cluster has 3");
    CHECK(oneshot_train_setup(&s, "gdp", 3, 2.0, tg, 0, &c, &e) == -1);
    CHECK_STR(e.msg, "no graph to train on");
    REQUIRE(oneshot_train_setup(&s, "gdp", 3, 1.5, tg, 3, &c, &e) == 0);
    CHECK(s.max_groups == 9 && s.max_nodes == 30);
    EpisodeConfig want;
    episode_config_default(&want);
    CHECK(s.env.oom_penalty == 1.5 && s.env.log_runtime == 0 && s.env.passes == want.passes);
}

TEST(oneshot_grads_sum_in_item_order_over_the_range)
{
    enum { M = 3, N = 5 };
    float g[N] = {9, 9, 9, 9, 9};
    NnParams p = {.n = N, .g = g};
    CHECK(oneshot_grads_new(1, N) == NULL);
    CHECK(oneshot_grad_of(NULL, 0, &p) == g);
    oneshot_grads_sum(NULL, 1, &p, 0); /* one item: p.g is its gradient, untouched */
    CHECK(g[0] == 9 && g[N - 1] == 9);
    float *grads = oneshot_grads_new(M, N);
    REQUIRE(grads != NULL);
    for (int k = 0; k < M; k++) {
        float *gk = oneshot_grad_of(grads, k, &p);
        CHECK(gk == grads + (size_t)k * N);
        for (int i = 0; i < N; i++)
            gk[i] = (float)(k + 1);
    }
    float big[M] = {1e8f, 1, -1e8f}; /* in item order 1 is lost: 0; summed 0, 2, 1 it would be 1 */
    for (int k = 0; k < M; k++)
        grads[(size_t)k * N + 3] = big[k];
    oneshot_grads_sum(grads, M, &p, 2); /* [0, 2) is not trained: left as it is */
    CHECK(g[0] == 9 && g[1] == 9);
    CHECK(g[2] == 6 && g[4] == 6);
    CHECK(g[3] == 0);
    free(grads);
}

TEST(train_state_draw_graph_one_graph_leaves_the_rng)
{
    TrainState ts;
    train_state_init(&ts, 0.001, 0, 7);
    Rng before = ts.rng;
    CHECK(train_state_draw_graph(&ts, 1) == 0);
    CHECK(memcmp(&before, &ts.rng, sizeof before) == 0);
    Rng copy = ts.rng;
    for (int i = 0; i < 50; i++) {
        int gi = train_state_draw_graph(&ts, 4);
        CHECK(gi == (int)rng_below(&copy, 4));
        CHECK(gi >= 0 && gi < 4);
    }
    train_state_done(&ts);
}
