/* The policy file: save -> load -> save is byte-identical, every float
 * (weights, Adam moments) and every training-state field comes back
 * bit-exact, a best never found (+inf) survives as null, and bad files get a
 * FILE:LINE:COL: field: message error with nothing half-loaded. */
#include <dirent.h>
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "policy_file.h"
#include "test.h"
#include "testutil.h"
#include "placeto_io.h"
#include "placeto_train.h"

/* ---- helpers ---- */


static int same_bits(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

static Policy *small_policy(int n_devices, int mem, int d, int rounds, uint64_t seed)
{
    PolicyArch a;
    policy_arch_default(&a, n_devices);
    a.mem_feature = mem;
    a.n_features += mem;
    if (d > 0)
        a.d = d;
    if (rounds >= 0)
        a.rounds = rounds;
    Err e = {{0}};
    Policy *p = policy_new(&a, seed, &e);
    CHECK_MSG(p != NULL, "%s", e.msg);
    return p;
}

/* Fills m and v with awkward floats: tiny, huge, subnormal, -0, values that
 * need all 9 digits. */
static void awkward_moments(Policy *pol, uint64_t seed)
{
    Rng r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < pol->p.n; i++) {
        uint64_t x = rng_next(&r);
        float m, v;
        switch (x % 6) {
        case 0: m = -0.0f; v = FLT_MIN / 8; break; /* subnormal */
        case 1: m = FLT_MAX; v = FLT_TRUE_MIN; break;
        case 2: m = (float)(0.1 + 0.2); v = 1e-30f; break;
        default: {
            uint32_t bits = (uint32_t)(x >> 32);
            memcpy(&m, &bits, sizeof m);
            if (!isfinite(m))
                m = 1.5f;
            v = fabsf(m);
        }
        }
        pol->p.m[i] = m;
        pol->p.v[i] = v;
    }
}

static void fill_state(TrainState *ts, int n_devices)
{
    train_state_init(ts, 3e-4, 0.75, 99);
    ts->adam.step = 1234;
    ts->adam.beta2 = 0.9995;
    ts->episodes = 1234;
    for (int i = 0; i < 17; i++)
        rng_next(&ts->rng);
    ts->entropy = 0.1 + 0.2; /* needs 17 digits */
    for (int k = 0; k < 3; k++) {
        int n = 4 + k;
        ts->base_ret[k] = XMALLOC(double, n);
        for (int j = 0; j < n; j++)
            ts->base_ret[k][j] = (j - 2) / 3.0 * (k + 1) * 1e-3;
        ts->base_len[k] = n;
    }
    ts->base_ret[3] = XMALLOC(double, 0); /* an empty episode */
    ts->base_len[3] = 0;
    ts->n_base = 4;
    TrainBest *b = train_best_for(ts, "found \"quoted\" graph", 0xfedcba9876543210ULL, 5);
    b->runtime_us = 1234.5678901234567;
    b->score = -7.25e-3;
    for (int k = 0; k < 5; k++)
        b->group_device[k] = k % n_devices;
    b->found_after = 4567;
    train_best_for(ts, "never found", 0x1ULL, 3); /* runtime and score +inf */
    ts->simulations = 987654321;
    ts->seconds = 12.345678901234567; /* not saved: wall time would break determinism */
}

static int same_state(const TrainState *a, const TrainState *b)
{
    int ok = same_bits(&a->adam, &b->adam, sizeof a->adam) && a->episodes == b->episodes &&
             same_bits(&a->rng, &b->rng, sizeof a->rng) && same_bits(&a->entropy, &b->entropy, sizeof(double)) &&
             a->n_base == b->n_base && a->n_best == b->n_best && a->simulations == b->simulations;
    for (int i = 0; ok && i < a->n_base; i++)
        ok = a->base_len[i] == b->base_len[i] &&
             same_bits(a->base_ret[i], b->base_ret[i], (size_t)a->base_len[i] * sizeof(double));
    for (int i = 0; ok && i < a->n_best; i++) {
        const TrainBest *x = &a->best[i], *y = &b->best[i];
        ok = strcmp(x->graph, y->graph) == 0 && x->checksum == y->checksum && x->n_groups == y->n_groups &&
             same_bits(&x->runtime_us, &y->runtime_us, sizeof(double)) &&
             same_bits(&x->score, &y->score, sizeof(double)) && x->found_after == y->found_after &&
             same_bits(x->group_device, y->group_device, (size_t)x->n_groups * sizeof(int));
    }
    return ok;
}

static int same_policy(const Policy *a, const Policy *b, int moments)
{
    if (memcmp(&a->arch, &b->arch, sizeof a->arch) != 0 || a->p.n != b->p.n || a->p.n_tensors != b->p.n_tensors)
        return 0;
    for (int t = 0; t < a->p.n_tensors; t++)
        if (strcmp(a->p.t[t].name, b->p.t[t].name) != 0 || a->p.t[t].rows != b->p.t[t].rows ||
            a->p.t[t].cols != b->p.t[t].cols || a->p.t[t].off != b->p.t[t].off)
            return 0;
    size_t n = a->p.n * sizeof(float);
    return same_bits(a->p.w, b->p.w, n) && (!moments || (same_bits(a->p.m, b->p.m, n) && same_bits(a->p.v, b->p.v, n)));
}

/* ---- round trips ---- */

TEST(policy_io_roundtrip_is_exact)
{
    TmpDir td;
    REQUIRE_MSG(tmp_open(&td, "placeto_policy_io"), "mkdtemp failed");
    char p1[128], p2[128];
    tmp_file(p1, sizeof p1, &td, "a.json");
    tmp_file(p2, sizeof p2, &td, "b.json");
    static const int shapes[][4] = {{3, 0, 0, -1}, {2, 1, 5, 2}, {1, 0, 4, 0}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        Policy *pol = small_policy(shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3], 7 + s);
        if (!pol)
            continue;
        awkward_moments(pol, 11 + s);
        pol->p.w[0] = -0.0f;
        pol->p.w[1] = FLT_TRUE_MIN;
        pol->p.w[2] = -FLT_MAX;
        TrainState ts, back;
        fill_state(&ts, shapes[s][0]);
        Err e = {{0}};
        CHECK_MSG(placeto_policy_save(pol, &ts, p1, &e) == 0, "%s", e.msg);
        Policy *q = placeto_policy_load(p1, &back, &e);
        CHECK_MSG(q != NULL, "shape %zu: %s", s, e.msg);
        if (q) {
            CHECK_MSG(same_policy(pol, q, 1), "shape %zu: weights or moments differ", s);
            CHECK_MSG(same_state(&ts, &back), "shape %zu: training state differs", s);
            CHECK(isinf(back.best[1].runtime_us) && back.best[1].runtime_us > 0);
            CHECK(isinf(back.best[1].score));
            CHECK(signbit(q->p.w[0]));
            CHECK_MSG(placeto_policy_save(q, &back, p2, &e) == 0, "%s", e.msg);
            CHECK_MSG(same_file_bytes(p1, p2), "shape %zu: re-saved file differs", s);
        }
        policy_free(q);
        train_state_done(&back);
        train_state_done(&ts);
        policy_free(pol);
    }
    tmp_close(&td);
}

TEST(policy_io_every_float_pattern_reads_back)
{
    TmpDir td;
    REQUIRE_MSG(tmp_open(&td, "placeto_policy_io"), "mkdtemp failed");
    char p1[128];
    tmp_file(p1, sizeof p1, &td, "w.json");
    Policy *pol = small_policy(2, 0, 0, -1, 3);
    if (pol) {
        /* random bit patterns over the whole finite range, weights and moments */
        Rng r;
        rng_seed(&r, 5);
        for (size_t i = 0; i < 4 * pol->p.n; i++) {
            float x;
            do {
                uint32_t bits = (uint32_t)rng_next(&r);
                memcpy(&x, &bits, sizeof x);
            } while (!isfinite(x));
            if (i >= 3 * pol->p.n)
                x = fabsf(x); /* second moments are >= 0 */
            if (i < pol->p.n)
                pol->p.w[i] = x;
            else if (i >= 2 * pol->p.n)
                pol->p.mem[i] = x;
        }
        TrainState ts;
        train_state_init(&ts, 1e-3, 1.0, 1);
        Err e = {{0}};
        CHECK_MSG(placeto_policy_save(pol, &ts, p1, &e) == 0, "%s", e.msg);
        TrainState back;
        Policy *q = placeto_policy_load(p1, &back, &e);
        CHECK_MSG(q != NULL, "%s", e.msg);
        if (q) {
            size_t bad = 0;
            for (size_t i = 0; i < pol->p.n; i++)
                bad += memcmp(&pol->p.w[i], &q->p.w[i], sizeof(float)) != 0 ||
                       memcmp(&pol->p.m[i], &q->p.m[i], sizeof(float)) != 0 ||
                       memcmp(&pol->p.v[i], &q->p.v[i], sizeof(float)) != 0;
            CHECK_MSG(bad == 0, "%zu of %zu floats differ", bad, pol->p.n);
        }
        policy_free(q);
        train_state_done(&back);
        train_state_done(&ts);
        policy_free(pol);
    }
    tmp_close(&td);
}

TEST(policy_io_without_training_state)
{
    TmpDir td;
    REQUIRE_MSG(tmp_open(&td, "placeto_policy_io"), "mkdtemp failed");
    char p1[128], p2[128];
    tmp_file(p1, sizeof p1, &td, "a.json");
    tmp_file(p2, sizeof p2, &td, "b.json");
    Policy *pol = small_policy(4, 0, 0, -1, 21);
    if (pol) {
        awkward_moments(pol, 1); /* not saved without a TrainState */
        Err e = {{0}};
        CHECK_MSG(placeto_policy_save(pol, NULL, p1, &e) == 0, "%s", e.msg);
        size_t len;
        char *text = read_all(p1, &len);
        CHECK(text && !strstr(text, "\"training\"") && !strstr(text, "\"log\""));
        free(text);
        TrainState ts;
        memset(&ts, 0x5a, sizeof ts); /* the load initialises it */
        Policy *q = placeto_policy_load(p1, &ts, &e);
        CHECK_MSG(q != NULL, "%s", e.msg);
        if (q) {
            CHECK(same_policy(pol, q, 0));
            for (size_t i = 0; i < q->p.n; i++)
                if (q->p.m[i] != 0 || q->p.v[i] != 0) {
                    CHECK_MSG(0, "moment %zu not zero", i);
                    break;
                }
            CHECK_INT(ts.episodes, 0);
            CHECK_INT(ts.n_best, 0);
            CHECK_INT(ts.n_base, 0);
            CHECK_INT(ts.adam.step, 0);
            CHECK(ts.best == NULL);
            CHECK_MSG(placeto_policy_save(q, NULL, p2, &e) == 0, "%s", e.msg);
            CHECK(same_file_bytes(p1, p2));
        }
        train_state_done(&ts);
        policy_free(q);
        /* with a training state: the moments live in the checkpoint beside
         * the file, which a load with a TrainState reads (train --resume) and
         * one without never opens (place, compare, explore) */
        TrainState full;
        fill_state(&full, 4);
        CHECK_MSG(placeto_policy_save(pol, &full, p1, &e) == 0, "%s", e.msg);
        char ck[256];
        policy_file_checkpoint_path(ck, sizeof ck, p1);
        CHECK(strstr(ck, "a.ckpt.json") != NULL);
        text = read_all(p1, &len);
        CHECK(text && strstr(text, "\"training\"") && !strstr(text, "\"adam\"") && !strstr(text, "\"rng\""));
        free(text);
        q = placeto_policy_load(p1, NULL, &e);
        CHECK_MSG(q != NULL, "%s", e.msg);
        if (q)
            CHECK(same_policy(pol, q, 0) && q->p.m[0] == 0);
        policy_free(q);
        TrainState back;
        q = placeto_policy_load(p1, &back, &e);
        CHECK_MSG(q != NULL, "%s", e.msg);
        if (q) {
            CHECK(same_policy(pol, q, 1));
            CHECK(back.has_optimizer);
            CHECK(back.adam.step == full.adam.step && back.n_base == full.n_base && back.n_best == full.n_best);
            CHECK(memcmp(&back.rng, &full.rng, sizeof back.rng) == 0);
        }
        policy_free(q);
        train_state_done(&back);
        /* no checkpoint: the counters and best placements, a fresh optimizer */
        CHECK(rename(ck, p2) == 0);
        q = placeto_policy_load(p1, &back, &e);
        CHECK_MSG(q != NULL, "%s", e.msg);
        CHECK(!back.has_optimizer && back.n_best == full.n_best && back.episodes == full.episodes &&
              back.adam.step == 0 && back.n_base == 0);
        policy_free(q);
        train_state_done(&back);
        /* a checkpoint of other weights is refused, naming both files */
        CHECK(rename(p2, ck) == 0);
        Policy *other = small_policy(4, 0, 0, -1, 22);
        if (other) {
            CHECK_MSG(placeto_policy_save(other, NULL, p1, &e) == 0, "%s", e.msg);
            q = placeto_policy_load(p1, &back, &e);
            CHECK(q == NULL);
            CHECK_STR_CONTAINS(e.msg, "a.ckpt.json");
            CHECK_STR_CONTAINS(e.msg, "weights: the checkpoint is for other weights than");
            policy_free(q);
            train_state_done(&back);
            policy_free(other);
        }
        train_state_done(&full);
        policy_free(pol);
    }
    tmp_close(&td);
}

static int copy_file(const char *from, const char *to)
{
    size_t len;
    char *text = read_all(from, &len);
    FILE *f = text ? fopen(to, "wb") : NULL;
    int ok = f && fwrite(text, 1, len, f) == len;
    if (f && fclose(f) != 0)
        ok = 0;
    free(text);
    return ok;
}

/* The policy file loaded with its checkpoint (as train --resume does):
 * Adam's step, or -1 when refused (e says why). */
static int64_t resumed_step(const char *path, Err *e)
{
    TrainState back;
    Policy *q = placeto_policy_load(path, &back, e);
    int64_t step = q && back.has_optimizer ? back.adam.step : -1;
    policy_free(q);
    train_state_done(&back);
    return step;
}

/* A save killed at any point leaves the policy file with its own
 * checkpoint: before the policy file's rename, the old pair (and the new
 * checkpoint under its pending name); after it, the new policy file with
 * its checkpoint under the pending name, which the next save removes. The
 * old order (the checkpoint renamed first) left a pair that was refused, or
 * taken when the weights had not changed: the episode count tells them
 * apart. */
TEST(policy_io_killed_save)
{
    TmpDir td;
    REQUIRE_MSG(tmp_open(&td, "placeto_policy_io"), "mkdtemp failed");
    char a[128], ck[160], p1[128], c1[128], c2[128], stray[160], pend[4200];
    tmp_file(a, sizeof a, &td, "a.json");
    tmp_file(p1, sizeof p1, &td, "p1.json");
    tmp_file(c1, sizeof c1, &td, "c1.json");
    tmp_file(c2, sizeof c2, &td, "c2.json");
    tmp_file(stray, sizeof stray, &td, "a.ckpt.0123456789abcdef.json");
    policy_file_checkpoint_path(ck, sizeof ck, a);
    Policy *pol = small_policy(4, 0, 0, -1, 23);
    if (pol) {
        Err e = {{0}};
        TrainState ts;
        fill_state(&ts, 4);
        CHECK_MSG(placeto_policy_save(pol, &ts, a, &e) == 0, "%s", e.msg);
        CHECK(copy_file(a, p1) && copy_file(ck, c1));
        int64_t s1 = ts.adam.step, s2 = s1 + 1;
        pol->p.w[0] += 1; /* the next save: other weights, one more episode */
        ts.adam.step = s2;
        ts.episodes++;
        CHECK_MSG(placeto_policy_save(pol, &ts, a, &e) == 0, "%s", e.msg);
        policy_file_pending_path(pend, sizeof pend, a, &pol->p, &ts);
        CHECK_STR_CONTAINS(pend, "/a.ckpt.");
        CHECK(access(pend, F_OK) != 0 && copy_file(ck, c2));
        /* killed after the policy file's rename: the pending checkpoint */
        CHECK(copy_file(c2, pend) && copy_file(c1, ck));
        CHECK_MSG(resumed_step(a, &e) == s2, "%s", e.msg);
        /* killed before it: the old pair */
        CHECK(copy_file(p1, a));
        CHECK_MSG(resumed_step(a, &e) == s1, "%s", e.msg);
        /* the old order's pair (the new checkpoint, the old policy file) */
        CHECK(rename(pend, ck) == 0);
        CHECK(resumed_step(a, &e) == -1);
        CHECK_STR_CONTAINS(e.msg, "a.ckpt.json:2:13: weights: the checkpoint is for other weights than");
        /* the same weights, one more episode: refused by the count */
        ts.episodes++;
        CHECK_MSG(placeto_policy_save(pol, &ts, a, &e) == 0, "%s", e.msg);
        CHECK(copy_file(c2, ck));
        CHECK(resumed_step(a, &e) == -1);
        CHECK_STR_CONTAINS(e.msg, "episodes: the checkpoint is of episode 1235, ");
        /* a complete save removes the pending checkpoints left beside it */
        CHECK(copy_file(c2, pend) && copy_file(c2, stray));
        CHECK_MSG(placeto_policy_save(pol, &ts, a, &e) == 0, "%s", e.msg);
        CHECK(access(pend, F_OK) != 0 && access(stray, F_OK) != 0 && access(c2, F_OK) == 0);
        CHECK_MSG(resumed_step(a, &e) == s2, "%s", e.msg);
        train_state_done(&ts);
        policy_free(pol);
    }
    tmp_close(&td);
}

TEST(policy_io_train_state_basics)
{
    TrainState ts;
    train_state_init(&ts, 2e-3, 0.5, 42);
    Rng r;
    rng_seed(&r, 42);
    CHECK(same_bits(&ts.rng, &r, sizeof r));
    CHECK_EXACT(ts.adam.lr, 2e-3);
    CHECK_EXACT(ts.entropy, 0.5);
    CHECK_INT(ts.adam.step, 0);
    CHECK_INT(ts.n_best, 0);
    TrainBest *a = train_best_for(&ts, "g1", 7, 4);
    CHECK(isinf(a->runtime_us) && isinf(a->score));
    CHECK_INT(a->n_groups, 4);
    CHECK_INT(a->group_device[3], 0);
    a->runtime_us = 5;
    a->score = 5e-6;
    TrainBest *b = train_best_for(&ts, "g2", 8, 2);
    CHECK_INT(ts.n_best, 2);
    CHECK(strcmp(b->graph, "g2") == 0);
    a = train_best_for(&ts, "g1", 7, 4);
    CHECK_INT(ts.n_best, 2);
    CHECK_EXACT(a->runtime_us, 5.0);
    /* a changed graph (checksum or group count) voids its entry */
    a = train_best_for(&ts, "g1", 9, 6);
    CHECK_INT(ts.n_best, 2);
    CHECK(isinf(a->runtime_us));
    CHECK_INT(a->n_groups, 6);
    CHECK(a->checksum == 9);
    train_state_done(&ts);
    CHECK_INT(ts.n_best, 0);
}

TEST(policy_io_refuses_to_save_non_finite)
{
    TmpDir td;
    REQUIRE_MSG(tmp_open(&td, "placeto_policy_io"), "mkdtemp failed");
    char p1[128];
    tmp_file(p1, sizeof p1, &td, "nan.json");
    Policy *pol = small_policy(2, 0, 3, 1, 1);
    if (pol) {
        pol->p.w[pol->p.t[4].off + 2] = NAN;
        Err e = {{0}};
        CHECK(placeto_policy_save(pol, NULL, p1, &e) != 0);
        CHECK_STR_CONTAINS(e.msg, "T2.W");
        CHECK(access(p1, F_OK) != 0); /* nothing written */
        policy_free(pol);
    }
    tmp_close(&td);
}

/* The weights a file is written from are checked whichever they are: a
 * NaN in the kept snapshot (train --keep best) is refused too, naming the
 * tensor, and neither the policy nor its checkpoint is written. */
TEST(policy_io_refuses_to_save_non_finite_kept_weights)
{
    TmpDir td;
    REQUIRE_MSG(tmp_open(&td, "placeto_policy_io"), "mkdtemp failed");
    char p1[128], ck[160];
    tmp_file(p1, sizeof p1, &td, "kept.json");
    policy_file_checkpoint_path(ck, sizeof ck, p1);
    Policy *pol = small_policy(2, 0, 3, 1, 1);
    if (pol) {
        TrainState ts;
        train_state_init(&ts, 1e-3, 1.0, 1);
        float *w = XMALLOC(float, pol->p.n);
        memcpy(w, pol->p.w, pol->p.n * sizeof *w);
        w[pol->p.t[4].off + 1] = NAN;
        train_state_keep(&ts, w, pol->p.n, 1.0);
        free(w);
        Err e = {{0}};
        CHECK(placeto_policy_save(pol, &ts, p1, &e) != 0);
        CHECK_STR_CONTAINS(e.msg, "weight 1 of tensor \"T2.W\" is nan");
        CHECK(access(p1, F_OK) != 0 && access(ck, F_OK) != 0); /* nothing written */
        train_state_done(&ts);
        policy_free(pol);
    }
    tmp_close(&td);
}

/* An extended architecture (with the memory column) comes back with its
 * flag, written as "extended": 1 only when set; a file without the key (the
 * bundled policies predate it) loads as the paper's feature set. */
TEST(policy_io_roundtrip_extended_architecture)
{
    TmpDir td;
    REQUIRE_MSG(tmp_open(&td, "placeto_policy_io"), "mkdtemp failed");
    char p1[128], p2[128];
    tmp_file(p1, sizeof p1, &td, "x.json");
    tmp_file(p2, sizeof p2, &td, "y.json");
    PolicyArch a;
    policy_arch_for(&a, 3, 1, 1);
    a.d = 4;
    a.rounds = 1;
    Err e = {{0}};
    Policy *pol = policy_new(&a, 8, &e), *q = NULL;
    CHECK_MSG(pol != NULL, "%s", e.msg);
    TrainState back;
    memset(&back, 0, sizeof back);
    if (pol && placeto_policy_save(pol, NULL, p1, &e) == 0 && (q = placeto_policy_load(p1, &back, &e)) != NULL) {
        CHECK(q->arch.extended == 1 && q->arch.mem_feature == 1 && q->arch.n_features == 15);
        CHECK(same_policy(pol, q, 0));
        CHECK(placeto_policy_save(q, NULL, p2, &e) == 0 && same_file_bytes(p1, p2));
        char *text = read_all(p1, NULL);
        CHECK(text && strstr(text, "\"mem_feature\": 1, \"extended\": 1"));
        free(text);
    }
    CHECK_MSG(q != NULL, "%s", e.msg);
    policy_free(q);
    train_state_done(&back);
    /* a file written before the extended features existed */
    Policy *old = placeto_policy_load("tests/fuzz/corpus/policy/diamond_d2_train.json", NULL, &e);
    CHECK_MSG(old != NULL, "%s", e.msg);
    if (old) {
        CHECK(old->arch.extended == 0 && old->arch.n_features == 7);
        CHECK(placeto_policy_save(old, NULL, p2, &e) == 0);
        char *text = read_all(p2, NULL);
        CHECK(text && !strstr(text, "extended"));
        free(text);
    }
    policy_free(old);
    policy_free(pol);
    tmp_close(&td);
}

/* ---- errors ---- */

/* A replacement: the first occurrence of old becomes rep, where '@' marks the
 * position the error must name (and is removed). */
typedef struct PBad {
    const char *old, *rep;
    const char *msg;         /* expected right after "PATH:LINE:COL: " */
    const char *old2, *rep2; /* another replacement made first, or NULL */
} PBad;

/* Bad fields of the file the errors test saves: 2 devices, so F = 7; d = 3,
 * 1 round: T0.W is 7 x 3, T1.W 3 x 3. */
#define T1B "\"T1.b\", \"shape\": [1, 3], \"data\":\n   ["
static const PBad policy_bad_fields[] = {
    {"\"placeto-policy\"", "@\"placeto-graph\"", "format: expected \"placeto-policy\"", NULL, NULL},
    {"\"version\": 1", "\"version\": @2", "version: expected 1", NULL, NULL},
    {"{\"n_devices\": 2, \"n_features\": 7, \"d\": 3, \"rounds\": 1, ", "@{\"n_devices\": 2, \"n_features\": 7, \"d\": 3, ",
     "architecture: missing \"rounds\"", NULL, NULL},
    {"\"n_devices\": 2", "\"n_devices\": @0", "architecture.n_devices: expected an integer from 1 to 64", NULL, NULL},
    {"\"n_features\": 7", "\"n_features\": @8",
     "architecture.n_features: expected 7 (5 + n_devices + mem_feature), got 8", NULL, NULL},
    {"\"d\": 3", "\"d\": @5000", "architecture.d: expected an integer from 1 to 1024", NULL, NULL},
    {"\"n_features\": 7", "\"n_features\": @7",
     "architecture.n_features: expected 12 (8 + 2 n_devices + mem_feature, extended), got 7",
     "\"mem_feature\": 0}", "\"mem_feature\": 0, \"extended\": 1}"},
    {"\"mem_feature\": 0}", "\"mem_feature\": 0, \"extended\": @2}", "architecture.extended: expected an integer from 0 to 1",
     NULL, NULL},
    {"\"mem_feature\": 0}", "\"mem_feature\": 0, \"extended\": @true}", "architecture.extended: expected an integer", NULL,
     NULL},
    {"\"rounds\": 1", "\"rounds\": @1.5", "architecture.rounds: expected an integer", NULL, NULL},
    {"\"T1.W\", \"shape\": [3, 3]", "\"T1.W\", \"shape\": @[3, 2]",
     "parameters[2].shape: expected [3, 3] for \"T1.W\", got [3, 2]", NULL, NULL},
    {"\"T1.W\", \"shape\": [3, 3]", "\"T1.W\", \"shape\": @9", "parameters[2].shape: expected [3, 3] for \"T1.W\"", NULL, NULL},
    {"\"T1.W\", \"shape\": [3, 3]", "\"T1.W\", \"shape\": @[3, \"3\"]", "parameters[2].shape: expected [3, 3] for \"T1.W\"", NULL, NULL},
    {"\"T1.W\"", "@\"T9.W\"", "parameters[2].name: expected \"T1.W\" (tensor 2 of this architecture), got \"T9.W\"", NULL, NULL},
    {T1B "0", T1B "@1e999", "parameters[3].data[0]: expected a finite number", NULL, NULL},
    {T1B "0", T1B "@\"x\"", "parameters[3].data[0]: expected a number", NULL, NULL},
    {T1B "0", T1B "@1e39", "parameters[3].data[0]: 1e+39 is out of the float range", NULL, NULL},
    {T1B "0", T1B "@null", "parameters[3].data[0]: expected a number", NULL, NULL},
    {T1B, "\"T1.b\", \"shape\": [1, 3], \"data\":\n   @[1, ", "parameters[3].data: expected 3 numbers, got 4", NULL, NULL},
    {T1B "0, ", "\"T1.b\", \"shape\": [1, 3], \"data\":\n   @[", "parameters[3].data: expected 3 numbers, got 2", NULL, NULL},
    {"{\"name\": \"T0.W\", \"shape\": [7, 3], \"data\":", "@{\"name\": \"T0.W\", \"shape\": [7, 3], \"dat\":",
     "parameters[0]: missing \"data\"", NULL, NULL},
    {"\"adam\": {\"lr\"", "\"adam\": {\"lr\": @-1, \"x\"", "training.adam.lr: expected a number >= 0", NULL, NULL},
    {"\"beta1\": 0.9", "\"beta1\": @1", "training.adam.beta1: expected a number below 1", NULL, NULL},
    {"\"step\": 1234", "\"step\": @1.5", "training.adam.step: expected an integer", NULL, NULL},
    {"\"v\": [", "\"v\": @[[1], ", "training.adam.v: expected 52 arrays (one per tensor), got 53", NULL, NULL},
    {"\"v\": [\n    [", "\"v\": [\n    @[-1, ", "training.adam.v[0]: expected 21 numbers, got 22", NULL, NULL},
    {"\"group_device\": [0, 1", "\"group_device\": [0, @2", "training.best[0].group_device[1]: expected an integer from 0 to 1", NULL, NULL},
    {"\"group_device\": [0, 1, ", "\"group_device\": @[0, ", "training.best[0].group_device: expected 5 device indices (n_groups), got 4", NULL, NULL},
    {"\"rng\": [\"", "\"rng\": [@\"xyz", "training.rng[0]: expected a string of 1 to 16 hex digits", NULL, NULL},
    {"\"rng\": [", "\"rng\": @[\"1\", ", "training.rng: expected 4 hex strings (the xoshiro256** state), got 5", NULL, NULL},
    {"\"checksum\": \"", "\"checksum\": @\"0x", "training.best[0].checksum: expected a string of 1 to 16 hex digits", NULL, NULL},
    {"\"graph\": \"never found\"", "\"graph\": @\"found \\\"quoted\\\" graph\"",
     "training.best[1].graph: graph \"found \"quoted\" graph\" is listed twice", NULL, NULL},
    {"\"runtime_us\": 1234", "\"runtime_us\": @\"1234\", \"x\": 1234", "training.best[0].runtime_us: expected a number or null", NULL, NULL},
    {"\"baseline\": [", "\"baseline\": [@5, ", "training.baseline[0]: expected an array of returns", NULL, NULL},
    {"\"simulations\": 987654321}", "\"simulations\": 987654321, @\"simulations\": 1}",
     "training: duplicate key \"simulations\"", NULL, NULL},
    {"\"training\": {", "\"training\": @{", "training: missing \"simulations\"", ",\n  \"simulations\": 987654321", ""},
    {"\"training\": {", "\"training\": @7, \"old_training\": {", "training: expected an object", NULL, NULL},
};
#undef T1B

/* Applies c to text: the new text, and the marker's offset in *at. */
static char *apply_bad(const char *text, const PBad *c, size_t *at)
{
    char *s2 = c->old2 ? text_subst(text, c->old2, c->rep2, 1) : NULL;
    char *s = text_subst(s2 ? s2 : text, c->old, c->rep, 1);
    free(s2);
    if (s && !take_marker(s, at)) {
        free(s);
        return NULL;
    }
    return s;
}

/* Case k of policy_bad_fields applied to good: no policy, an empty training
 * state, and the error at the marker. */
static void expect_bad_field(const char *good, size_t k)
{
    const PBad *c = &policy_bad_fields[k];
    size_t at = 0;
    char *text = apply_bad(good, c, &at);
    REQUIRE_MSG(text != NULL, "case %zu: \"%s\" not in the file", k, c->old);
    TrainState back;
    Err be = {{0}};
    Policy *q = placeto_policy_load_text("p.json", text, strlen(text), &back, &be);
    CHECK_MSG(q == NULL, "case %zu: loaded", k);
    CHECK_INT(back.n_best, 0); /* left initialised empty */
    CHECK_INT(back.episodes, 0);
    policy_free(q);
    train_state_done(&back);
    char want[700];
    error_at(want, sizeof want, "p.json", text, at, c->msg);
    CHECK_MSG(strncmp(be.msg, want, strlen(want)) == 0, "case %zu: \"%s\", expected \"%s...\"", k, be.msg, want);
    free(text);
}

/* The last tensor left out. */
static void expect_missing_tensor(const char *good, size_t len)
{
    Err be = {{0}};
    const char *head2 = strstr(good, ",\n  {\"name\": \"head2.b\"");
    const char *tr = strstr(good, "],\n \"training\"");
    REQUIRE(head2 && tr);
    char *text = xmalloc(len + 1);
    size_t a = (size_t)(head2 - good);
    memcpy(text, good, a);
    strcpy(text + a, tr);
    Policy *q = placeto_policy_load_text("p.json", text, strlen(text), NULL, &be);
    CHECK(q == NULL);
    policy_free(q);
    CHECK_STR_CONTAINS(be.msg, "parameters: expected 52 tensors for this architecture, got 51");
    free(text);
}

/* The good text cut short: at several places, and just before its end. */
static void expect_truncated_policies_fail(const char *good, size_t len)
{
    Err be = {{0}};
    for (size_t cut = 1; cut + 1 < len; cut += len / 7) { /* (the last byte is the final newline) */
        Policy *q = placeto_policy_load_text("p.json", good, cut, NULL, &be);
        CHECK_MSG(q == NULL, "loaded a file cut at %zu", cut);
        policy_free(q);
        CHECK_MSG(strncmp(be.msg, "p.json:", 7) == 0, "%s", be.msg);
    }
    Policy *q = placeto_policy_load_text("p.json", good, len - 3, NULL, &be);
    CHECK(q == NULL);
    policy_free(q);
    CHECK_STR_CONTAINS(be.msg, "unexpected end of file");
}

TEST(policy_io_errors_name_field_and_position)
{
    TmpDir td;
    REQUIRE_MSG(tmp_open(&td, "placeto_policy_io"), "mkdtemp failed");
    char p1[128];
    tmp_file(p1, sizeof p1, &td, "p.json");
    Policy *pol = small_policy(2, 0, 3, 1, 5);
    TrainState ts;
    fill_state(&ts, 2);
    Err e = {{0}};
    size_t len = 0;
    char *good = NULL;
    if (pol && placeto_policy_save(pol, &ts, p1, &e) == 0)
        good = policy_text_with_checkpoint(p1, &len);
    CHECK_MSG(good != NULL, "%s", e.msg);
    for (size_t k = 0; good && k < sizeof policy_bad_fields / sizeof *policy_bad_fields; k++)
        expect_bad_field(good, k);
    if (good) {
        expect_missing_tensor(good, len);
        expect_truncated_policies_fail(good, len);
        /* the unmodified text loads */
        Err be = {{0}};
        Policy *q = placeto_policy_load_text("p.json", good, len, NULL, &be);
        CHECK_MSG(q != NULL, "%s", be.msg);
        policy_free(q);
    }
    Err me = {{0}};
    TrainState back;
    CHECK(placeto_policy_load("/nonexistent/dir/p.json", &back, &me) == NULL);
    CHECK_STR_CONTAINS(me.msg, "/nonexistent/dir/p.json");
    train_state_done(&back);
    free(good);
    train_state_done(&ts);
    policy_free(pol);
    tmp_close(&td);
}
