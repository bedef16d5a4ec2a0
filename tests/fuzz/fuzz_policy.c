/* libFuzzer target: the policy loader (policy_load_text) with and without a
 * training state to fill. */
#include "fuzz.h"
#include "policy_io.h"
#include "train.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    Err e = {{0}};
    TrainState ts;
    Policy *pol = policy_load_text("fuzz.json", text, size, &ts, &e);
    if (!pol && !e.msg[0])
        fuzz_fail("policy_load_text failed without a message");
    policy_free(pol);
    train_state_done(&ts);
    pol = policy_load_text("fuzz.json", text, size, NULL, &e);
    policy_free(pol);
    free(text);
    return 0;
}
