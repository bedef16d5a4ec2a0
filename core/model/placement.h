/* placement: which device each op runs on, and the placeto-placement file
 * format (docs/formats.md, "placeto-placement"): "devices" (a count or a list of names) and either
 * "ops" (every op) or "groups" (every group, with "grouping": {"groups": G}
 * naming the grouping that produced them). */
#ifndef PLACETO_PLACEMENT_H
#define PLACETO_PLACEMENT_H

#include "cluster.h"
#include "graph.h"
#include "group.h"
#include "util.h"

typedef struct Placement {
    int n_ops;
    int n_devices;
    int *op_device;     /* per op */
    char **device_names; /* NULL when the file gave a count */
} Placement;

/* Reads a placement of g's ops. Device indices must be < the file's device
 * count. Returns NULL with e set ("FILE:LINE:COL: ops[\"x\"]: ..."). */
Placement *placement_load(const char *path, const Graph *g, Err *e);
Placement *placement_load_text(const char *path, const char *text, size_t len, const Graph *g, Err *e);
Placement *placement_new(int n_ops, int n_devices);
void placement_free(Placement *p);
/* Checks that p fits cluster c (same device count). */
int placement_check_cluster(const Placement *p, const Cluster *c, const char *path, Err *e);
/* Writes the "ops" form (atomically); names come from c when given. */
int placement_write(const Placement *p, const Graph *g, const Cluster *c, const char *path, Err *e);
void placement_print(const Placement *p, const Graph *g, const Cluster *c, FILE *f);

#endif
