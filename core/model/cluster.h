/* cluster: the devices a graph is placed on and the simulator's parameters
 * (docs/formats.md, "placeto-cluster"). A Cluster owns its strings. */
#ifndef PLACETO_CLUSTER_H
#define PLACETO_CLUSTER_H

#include <stdint.h>

#include "graph.h"
#include "util.h"

#define CLUSTER_MAX_DEVICES 1024

/* The Placeto simulator's defaults (a K80-class GPU and its PCIe link). */
#define CLUSTER_DEFAULT_OP_GAP_US 5.7
#define CLUSTER_DEFAULT_TRANSFER_OVERHEAD_US 25.0
#define CLUSTER_DEFAULT_BANDWIDTH 7600.0
#define CLUSTER_DEFAULT_MEMORY_BYTES 11811160064LL

typedef struct Device {
    char *name;
    char *kind;
    double speed;
    int64_t memory_bytes;
} Device;

typedef struct Cluster {
    char *name;
    Device *devices;
    int n_devices;
    double op_gap_us;
    double transfer_overhead_us;
    double bandwidth_bytes_per_us;
} Cluster;

/* N devices /GPU:0../GPU:N-1 with exactly the Placeto simulator's parameters. */
Cluster *cluster_default(int n_devices);
Cluster *cluster_load(const char *path, Err *e);
Cluster *cluster_load_text(const char *path, const char *text, size_t len, Err *e);
void cluster_free(Cluster *c);
/* A copy of c (the caller frees it). */
Cluster *cluster_clone(const Cluster *c);
/* 1 when a and b have the same devices (names, kinds, speeds, memory) and
 * simulator parameters; their names may differ. */
int cluster_equal(const Cluster *a, const Cluster *b);
struct JDoc;
/* The cluster object inline in another file's document d as the root's
 * member key (an episode's or a policy's "cluster"), read with d's
 * positions in its messages ("FILE:L:C: cluster.devices[0].speed: ..."). NULL
 * with e set. */
Cluster *cluster_load_member(const struct JDoc *d, const char *key, Err *e);
int cluster_write(const Cluster *c, const char *path, Err *e);
/* Prints the cluster object (no trailing newline); indent starts every line
 * after the first, so that the object can sit inside another file. */
void cluster_print(const Cluster *c, FILE *f, const char *indent);

/* Cost of node i of g on device d: cost_us_by_kind[kind] if given, else
 * cost_us / speed (exactly cost_us when speed is 1). */
double cluster_op_cost(const Cluster *c, const Graph *g, int i, int d);
/* The smallest cost of node i over all devices. */
double cluster_min_cost(const Cluster *c, const Graph *g, int i);
/* 1 when every device has speed 1, no kind cost applies and the parameters are
 * the defaults (the simulator is then the reference's, bit for bit). */
int cluster_is_default(const Cluster *c);

#endif
