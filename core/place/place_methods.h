/* place_methods: the methods defined outside place.c, as entries of the
 * method table (internal to core/). Each file that defines methods adds its
 * functions and its table entries here: place_list.c the list schedulers
 * (heft, m-topo, m-etf, expert), place_part.c the partitioners (metis,
 * scotch), place_search.c the local searches (anneal, ils). */
#ifndef PLACETO_PLACE_METHODS_H
#define PLACETO_PLACE_METHODS_H

#include "place.h"

/* place_list.c: list scheduling and model-parallel heuristics. */
int place_heft(const PlaceCtx *ctx, int *op_device, Err *e);
int place_m_topo(const PlaceCtx *ctx, int *op_device, Err *e);
/* place_etf.c: m-ETF, on the estimates of place_list.c below. */
int place_m_etf(const PlaceCtx *ctx, int *op_device, Err *e);
/* The list schedulers' estimates (place_list.c): times[k * D + d], group k's
 * time on device d (its ops' costs and the gap after each); an edge's time
 * between devices; the device with the most free memory (first on ties). */
double *place_list_group_times(const PlaceCtx *ctx);
double place_list_comm_time(const Cluster *c, int64_t bytes);
int place_list_most_free_device(const Cluster *c, const int64_t *mem);
int place_expert(const PlaceCtx *ctx, int *op_device, Err *e);
/* The HEFT core on an explicit task graph: tasks 0..n-1 numbered in a
 * topological order (every edge src[j] < dst[j]); cost[t * n_procs + p] is
 * task t's time on processor p; edge j costs comm[j] when its ends sit on
 * different processors (0 on one processor), and comm[j] is also its mean
 * communication cost in the upward rank. Fills any of rank (upward ranks),
 * proc, start, finish that are not NULL and returns the makespan. */
double place_heft_schedule(int n, int n_procs, const double *cost, int n_edges, const int *src,
                           const int *dst, const double *comm, double *rank, int *proc,
                           double *start, double *finish);
#define PLACE_LIST_METHODS                                                                   \
    {"heft", "HEFT list scheduling: upward rank, insertion-based earliest finish time",     \
     place_heft},                                                                            \
    {"m-topo", "Baechi m-TOPO: topological fill of each device to 1/n of the work, memory-aware", \
     place_m_topo},                                                                          \
    {"m-etf", "Baechi m-ETF: earliest (group, device) start first, memory-aware", place_m_etf}, \
    {"expert", "contiguous stages of about equal time per device; one layer per device if tagged", \
     place_expert},

/* place_part.c: graph partitioners (METIS, Scotch) on the undirected group
 * graph: vertex weight = group cost, edge weight = bytes between groups. */
int place_metis(const PlaceCtx *ctx, int *op_device, Err *e);
int place_scotch(const PlaceCtx *ctx, int *op_device, Err *e);
#define PLACE_PART_METHODS                                                                  \
    {"metis", "METIS k-way partition of the group graph (cost, bytes; memory when tight)",   \
     place_metis},                                                                          \
    {"scotch", "Scotch mapping of the group graph onto a complete, speed-weighted cluster",  \
     place_scotch},

/* place_search.c: local search from the best heuristic's placement, within
 * ctx->budget placements simulated (the search methods come last in the
 * table, after every heuristic they start from). */
int place_anneal(const PlaceCtx *ctx, int *op_device, Err *e);
int place_ils(const PlaceCtx *ctx, int *op_device, Err *e);
#define PLACE_SEARCH_METHODS                                                                   \
    {"anneal", "simulated annealing over single-group moves from the best heuristic (--budget)", \
     place_anneal},                                                                            \
    {"ils", "iterated first-improvement local search with kicks from the best heuristic (--budget)", \
     place_ils},

#endif
