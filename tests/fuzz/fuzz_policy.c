/* libFuzzer target: the policy loaders of the four agents (Placeto's
 * placeto_policy_load_text, the RNN placer's rnn_policy_load_text, GDP's
 * gdp_policy_load_text and HSDAG's hsdag_policy_load_text), each with and
 * without a training state to fill:
 * every input either loads or fails with a message. */
#include "fuzz.h"
#include "gdp_io.h"
#include "hsdag_io.h"
#include "placeto_io.h"
#include "rnn_io.h"
#include "placeto_train.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    Err e = {{0}};
    TrainState ts;
    Policy *pol = placeto_policy_load_text("fuzz.json", text, size, &ts, &e);
    if (!pol && !e.msg[0])
        fuzz_fail("placeto_policy_load_text failed without a message");
    policy_free(pol);
    train_state_done(&ts);
    pol = placeto_policy_load_text("fuzz.json", text, size, NULL, &e);
    policy_free(pol);
    Err er = {{0}};
    RnnNet *rn = rnn_policy_load_text("fuzz.json", text, size, &ts, &er);
    if (!rn && !er.msg[0])
        fuzz_fail("rnn_policy_load_text failed without a message");
    rnn_free(rn);
    train_state_done(&ts);
    rnn_free(rnn_policy_load_text("fuzz.json", text, size, NULL, &er));
    Err eg = {{0}};
    GdpNet *gn = gdp_policy_load_text("fuzz.json", text, size, &ts, &eg);
    if (!gn && !eg.msg[0])
        fuzz_fail("gdp_policy_load_text failed without a message");
    gdp_free(gn);
    train_state_done(&ts);
    gdp_free(gdp_policy_load_text("fuzz.json", text, size, NULL, &eg));
    Err eh = {{0}};
    HsdagNet *hn = hsdag_policy_load_text("fuzz.json", text, size, &ts, &eh);
    if (!hn && !eh.msg[0])
        fuzz_fail("hsdag_policy_load_text failed without a message");
    hsdag_free(hn);
    train_state_done(&ts);
    hsdag_free(hsdag_policy_load_text("fuzz.json", text, size, NULL, &eh));
    free(text);
    return 0;
}
