/* dot_ids (core/sim/dot_ids.h): IDs in creation order, so that agwrite
 * lists subgraphs as they were made, whatever the heap looks like. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dot_ids.h"
#include "test.h"

/* The graph written to a string (caller frees). */
static char *written(Agraph_t *g)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    agwrite(g, f);
    fclose(f);
    return buf;
}

TEST(dot_ids_subgraphs_in_creation_order)
{
    /* names created in an order that differs from their alphabetical one */
    static const char *const order[] = {"cluster_9", "cluster_10", "cluster_1", "cluster_z", "cluster_a"};
    Agraph_t *g = agopen((char *)"g", Agstrictdirected, dot_seq_disc());
    REQUIRE(g != NULL);
    for (size_t k = 0; k < sizeof order / sizeof *order; k++) {
        Agraph_t *s = agsubg(g, (char *)order[k], 1);
        CHECK(s != NULL && AGID(s) == (IDTYPE)(2 * (2 * k + 1))); /* names: g, cluster_9, n0, cluster_10, n1, ... */
        char node[32];
        snprintf(node, sizeof node, "n%zu", k);
        agnode(s, node, 1);
    }
    CHECK(agnode(g, (char *)"n3", 0) != NULL);  /* found by name */
    CHECK(agnode(g, (char *)"none", 0) == NULL); /* and not made when asked not to */
    char *text = written(g);
    REQUIRE(text != NULL);
    const char *at = text;
    for (size_t k = 0; k < sizeof order / sizeof *order; k++) {
        const char *p = strstr(text, order[k]);
        CHECK(p != NULL && p >= at);
        if (p)
            at = p;
    }
    CHECK(strncmp(text, "strict digraph g {", 18) == 0); /* a plain name, not an HTML one */
    free(text);
    agclose(g);
}
