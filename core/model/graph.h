/* graph: the op-level computation graph, its loaders (graph JSON through cJSON,
 * DOT through cgraph) and its JSON writer.
 *
 * Invariants after a successful load: names are unique; edges are unique
 * (src, dst) pairs in order of first appearance in the file, each carrying the
 * last listed output index; the graph is acyclic; nodes keep file order (the
 * simulator's "graph order"). A Graph owns all its strings and arrays;
 * graph_free() releases everything. Loaders never return a half-built graph. */
#ifndef PLACETO_GRAPH_H
#define PLACETO_GRAPH_H

#include <stdint.h>

#include "util.h"

/* Largest accepted byte count of one output, and of all outputs together, so
 * that memory sums in int64 never overflow. */
#define GRAPH_MAX_BYTES (1LL << 53)
#define GRAPH_MAX_TOTAL_BYTES (1LL << 62)

typedef struct KindCost {
    char *kind;
    double cost_us;
} KindCost;

typedef struct GraphNode {
    char *name;
    char *op;            /* "" when absent */
    double cost_us;      /* on the reference device */
    KindCost *kind_costs; /* optional cost_us_by_kind entries */
    int n_kind_costs;
    int64_t *output_bytes; /* one per output */
    int n_outputs;
    int output_scalar;   /* 1 if the file gave output_bytes as a number */
    char *colocate;      /* NULL when absent */
    char *group;         /* pinned group name, NULL when absent */
    char *layer;         /* model layer tag (e.g. "enc.1"), NULL when absent */
    /* adjacency, filled by the loader: */
    int *children;       /* in order of first appearance of (this, child) */
    int *child_output;   /* output index carried to children[i] */
    int n_children;
    int *parents;
    int n_parents;
} GraphNode;

typedef struct GraphEdge {
    int src, dst, output;
} GraphEdge;

typedef struct Graph {
    char *name;
    char *source;   /* "" when absent */
    char *path;     /* file it was read from ("" if built in memory) */
    GraphNode *nodes;
    int n_nodes;
    GraphEdge *edges; /* unique pairs, first-appearance order */
    int n_edges;
    int *topo;      /* a topological order (Kahn, smallest index first) */
    StrMap index;   /* name -> node index */
    uint64_t checksum; /* of the file bytes it was loaded from */
    size_t nodes_cap, edges_cap; /* while building */
} Graph;

/* Loads a .json or .dot file (by extension; anything else is tried as JSON).
 * Returns NULL with e->msg "FILE:LINE:COL: message" or "FILE: field: message". */
Graph *graph_load(const char *path, Err *e);
/* Reads the text in one pass when it is plain (strict JSON, the format's
 * members only, strings without escapes, every value valid: no document
 * tree, no field names built); anything else, every error included, goes to
 * the tree reader, graph_load_json_tree_text, which words each error with its
 * field path and position. Both give the same graph or the same message. */
Graph *graph_load_json_text(const char *path, const char *text, size_t len, Err *e);
/* The tree reader alone (tests compare the two readers). */
Graph *graph_load_json_tree_text(const char *path, const char *text, size_t len, Err *e);
Graph *graph_load_dot_text(const char *path, const char *text, size_t len, Err *e);
void graph_free(Graph *g);

/* Writes the graph JSON (atomically). Load -> write -> load is identical. */
int graph_write_json(const Graph *g, const char *path, Err *e);
void graph_print_json(const Graph *g, FILE *f);

/* --- building graphs in memory (tests, generators, loaders) --- */
Graph *graph_new(const char *name);
/* Adds a node; returns its index or -1 if the name is taken. output_bytes may
 * be NULL for no outputs. */
int graph_add_node(Graph *g, const char *name, const char *op, double cost_us,
                   const int64_t *output_bytes, int n_outputs);
/* Records an edge; a repeated pair keeps its first position and takes the new
 * output index. */
void graph_add_edge(Graph *g, int src, int dst, int output);
/* Builds adjacency and the topological order; fails on a cycle with a message
 * naming a node on it. Must be called once after the last add. */
int graph_finish(Graph *g, Err *e);

/* Bytes carried on an edge: output_bytes[output] or 0 past the array. */
int64_t graph_edge_bytes(const Graph *g, int src, int output);
/* Sum of all output_bytes of node i. */
int64_t graph_node_bytes(const Graph *g, int i);
double graph_total_cost(const Graph *g);

#endif
