/* export: a simulated placement as a Chrome trace (Trace Event Format, opened
 * by Perfetto and chrome://tracing) and as a DOT render (through cgraph).
 * Both write through a temporary file and rename. Implemented in
 * export_trace.c (export_trace*) and export_dot.c (export_dot). */
#ifndef PLACETO_EXPORT_H
#define PLACETO_EXPORT_H

#include "cluster.h"
#include "graph.h"
#include "group.h"
#include "sim.h"

/* One process per device (pid = device + 1) with a compute lane
 * (tid = pid * 100) and an outgoing-transfer lane (tid = pid * 100 + 1); one
 * "X" event per op and per transfer; process and thread names as "M" events;
 * the makespan and names in "otherData". */
int export_trace(const char *path, const Graph *g, const Cluster *c, const SimResult *r, Err *e);
void export_trace_print(FILE *f, const Graph *g, const Cluster *c, const SimResult *r);

/* A strict digraph with one cluster_<d> subgraph per device in the device's
 * colour; nodes are groups (gr given) or ops (gr NULL), labelled with name and
 * cost, with cost_us / output_bytes attributes so the file reads back as a
 * graph; edges labelled with bytes. */
int export_dot(const char *path, const Graph *g, const Grouping *gr, const Cluster *c,
               const int *op_device, Err *e);

#endif
