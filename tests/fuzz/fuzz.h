/* fuzz: helpers shared by the libFuzzer targets in tests/fuzz/ (`make fuzz`).
 *
 * Every target reads its input the way the program does: the loaders get a
 * NUL-terminated copy (util_read_file's contract) and a fixed path for their
 * messages. A property that must hold after a successful load and does not is
 * reported through fuzz_fail(), which aborts so that libFuzzer keeps the input
 * as a crash artifact. Each target frees everything it loads: LeakSanitizer
 * runs at the end of every libFuzzer run. */
#ifndef PLACETO_FUZZ_H
#define PLACETO_FUZZ_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "graph.h"
#include "group.h"
#include "sim.h"
#include "util.h"

/* libFuzzer's entry point, defined by each target. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The input as a NUL-terminated string (the caller frees it). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = xmalloc(size + 1);
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

static inline void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz: property violated: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

/* What every consumer of a freshly loaded graph relies on: the JSON writer
 * output loads again and prints the same; the graph groups (or fails with a
 * message) and simulates on two devices. */
static inline void fuzz_use_graph(const Graph *g)
{
    char *out = NULL, *out2 = NULL;
    size_t n = 0, n2 = 0;
    FILE *f = open_memstream(&out, &n);
    if (!f)
        fuzz_fail("open_memstream");
    graph_print_json(g, f);
    fclose(f);
    Err e = {{0}};
    Graph *h = graph_load_json_text("roundtrip.json", out, n, &e);
    if (!h)
        fuzz_fail("the graph's own JSON does not load: %s", e.msg);
    if (h->n_nodes != g->n_nodes || h->n_edges != g->n_edges)
        fuzz_fail("the JSON round trip changed the graph: %d/%d nodes, %d/%d edges", h->n_nodes,
                  g->n_nodes, h->n_edges, g->n_edges);
    f = open_memstream(&out2, &n2);
    if (!f)
        fuzz_fail("open_memstream");
    graph_print_json(h, f);
    fclose(f);
    if (n != n2 || memcmp(out, out2, n) != 0)
        fuzz_fail("load -> write -> load -> write is not identical");
    graph_free(h);
    free(out);
    free(out2);

    Grouping *gr = group_build(g, 0, &e);
    if (gr) {
        if (gr->n_ops != g->n_nodes || gr->n_groups < 1 || gr->n_groups > g->n_nodes)
            fuzz_fail("grouping of %d ops into %d groups", gr->n_ops, gr->n_groups);
        group_free(gr);
    } else if (!e.msg[0]) {
        fuzz_fail("group_build failed without a message");
    }

    Cluster *c = cluster_default(2);
    Sim *s = sim_new(g, c);
    int *dev = xmalloc(((size_t)g->n_nodes + 1) * sizeof *dev);
    for (int i = 0; i < g->n_nodes; i++)
        dev[i] = i % 2;
    const SimResult *r = sim_run(s, dev);
    if (!(r->makespan_us >= 0))
        fuzz_fail("makespan %g", r->makespan_us);
    free(dev);
    sim_free(s);
    cluster_free(c);
}

#endif
