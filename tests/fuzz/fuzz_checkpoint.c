/* libFuzzer target: the training checkpoint's reader
 * (policy_file_checkpoint_text) against the Placeto policy
 * tests/fuzz/checkpoint_policy.json (read once, run from the repository
 * root; loaded afresh for every input, since a checkpoint read replaces its
 * weights, moments and training state). Every input is read, found to belong
 * to another save, or refused, each of the last two with a message; what
 * was read is finite where the policy file's writer requires it. */
#include <math.h>

#include "fuzz.h"
#include "placeto_io.h"
#include "placeto_train.h"

static char *policy_text;
static size_t policy_len;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    Err e = {{0}};
    policy_text = util_read_file("tests/fuzz/checkpoint_policy.json", &policy_len, &e);
    if (!policy_text) {
        fprintf(stderr, "fuzz_checkpoint: %s (run from the repository root)\n", e.msg);
        exit(1);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    Err e = {{0}};
    TrainState ts;
    Policy *pol = placeto_policy_load_text("fuzz.json", policy_text, policy_len, &ts, &e);
    if (!pol)
        fuzz_fail("tests/fuzz/checkpoint_policy.json does not load: %s", e.msg);
    int rc = policy_file_checkpoint_text("fuzz.ckpt.json", text, size, "fuzz.json", &pol->p, &ts, &e);
    if (rc != 1 && !e.msg[0])
        fuzz_fail("policy_file_checkpoint_text returned %d without a message", rc);
    if (rc == 1) {
        if (!ts.has_optimizer)
            fuzz_fail("a checkpoint read without the optimizer's state");
        for (size_t k = 0; k < pol->p.n; k++)
            if (!isfinite(pol->p.w[k]) || !isfinite(pol->p.m[k]) || !(pol->p.v[k] >= 0) || !isfinite(pol->p.v[k]))
                fuzz_fail("weight %zu: w %g, m %g, v %g after a checkpoint read", k, (double)pol->p.w[k],
                          (double)pol->p.m[k], (double)pol->p.v[k]);
        if (ts.adam.beta1 >= 1 || ts.adam.beta2 >= 1 || !(ts.adam.eps > 0))
            fuzz_fail("Adam's settings read: beta1 %g, beta2 %g, eps %g", ts.adam.beta1, ts.adam.beta2, ts.adam.eps);
    }
    policy_free(pol);
    train_state_done(&ts);
    free(text);
    return 0;
}
