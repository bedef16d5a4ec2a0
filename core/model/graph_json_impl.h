/* graph_json_impl: what the two graph readers share (graph_json.c, the tree
 * reader that words every error; graph_json_fast.c, the one-pass reader that
 * takes the plain files and leaves every other to the tree reader). */
#ifndef PLACETO_GRAPH_JSON_IMPL_H
#define PLACETO_GRAPH_JSON_IMPL_H

#include <stddef.h>

#include "graph.h"

#define FAST_NO 1 /* not taken by the one-pass reader: the tree reader decides */

/* Sets g's name: NAME (N bytes) when given, else PATH's file name without
 * its extension. */
void graph_json_set_name(Graph *g, const char *path, const char *name, size_t n);

/* Reads TEXT in one pass: 0 with *out, -1 with e set (graph_finish refused
 * the graph), or FAST_NO (not a plain file: nothing set). */
int graph_json_fast_load(const char *path, const char *text, size_t len, Graph **out, Err *e);

#endif
