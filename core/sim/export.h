/* export: a simulated placement as a Chrome trace (Trace Event Format, opened
 * by Perfetto and chrome://tracing) and as a DOT render (through cgraph),
 * drawn to SVG or PNG by Graphviz's gvc.
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
 * flow events ("s" and "f" with "bp": "e", category "dependency", bound to
 * the midpoints of their slices) from each transfer's producer to the
 * transfer and from the transfer to each op it releases, so that viewers
 * draw the dependency arrows (none to or from a slice of zero length); the makespan and names in "otherData". */
int export_trace(const char *path, const Graph *g, const Cluster *c, const SimResult *r, Err *e);
void export_trace_print(FILE *f, const Graph *g, const Cluster *c, const SimResult *r);

/* A DOT render of a placement (docs/formats.md, "Exports: DOT render"): a
 * strict digraph with a title (graph, cluster, makespan) and a device legend
 * as its label; one node per group (or per op with ops = 1, or when gr is
 * NULL) filled in its device's colour and labelled with its dominant op kind,
 * where it sits, its op count and cost; group edges carry the summed bytes of
 * the op edges they stand for. Cross-device edges are dashed and labelled
 * with their bytes; the critical path of the simulated run (critpath.h) is
 * drawn in red. Nodes keep cost_us / output_bytes attributes so the file
 * reads back as a graph. The same DOT text for the same inputs.
 *
 * dot, svg, png: the files to write (NULL: skip); SVG and PNG are laid out
 * and drawn by Graphviz's library (gvc) with dot. r is the simulated run of
 * op_device (NULL: simulated here). Errors name the file. */
typedef struct ExportDot {
    const char *dot, *svg, *png;
    int ops;
} ExportDot;
int export_dot_files(const ExportDot *o, const Graph *g, const Grouping *gr, const Cluster *c, const int *op_device,
                     const SimResult *r, Err *e);
/* The DOT file alone: groups when gr is given, ops when gr is NULL. */
int export_dot(const char *path, const Graph *g, const Grouping *gr, const Cluster *c,
               const int *op_device, Err *e);

#endif
