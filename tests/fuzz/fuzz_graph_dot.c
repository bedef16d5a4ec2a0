/* libFuzzer target: the DOT loader (graph_load_dot_text, through cgraph),
 * then what every consumer of a loaded graph relies on (fuzz.h). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    Err e = {{0}};
    Graph *g = graph_load_dot_text("fuzz.dot", text, size, &e);
    if (g)
        fuzz_use_graph(g);
    else if (!e.msg[0])
        fuzz_fail("graph_load_dot_text failed without a message");
    graph_free(g);
    free(text);
    return 0;
}
