/* data: the bundled data (graphs, clusters, placements, policies) of an
 * installed or built program, for the commands and the explorer.
 * Implemented in data.c. */
#ifndef PLACETO_DATA_H
#define PLACETO_DATA_H

#include <stddef.h>

/* The bundled data directory: $PLACETO_DATA when set, else graphs/ beside
 * the executable or one directory up, else PREFIX/share/placeto for an
 * executable installed as PREFIX/bin/placeto (`make install`), else
 * graphs/ in the working directory; writes "DIR/rel" into buf. */
const char *data_path(char *buf, size_t n, const char *rel);
/* The bundled policy for a graph file on n_devices devices: the graph's own
 * (policies/STEM_D.json, STEM the file's name without .json), else the
 * general one (policies/general_D.json), into buf; NULL when neither
 * exists. */
const char *data_auto_policy(const char *graph_path, int n_devices, char *buf, size_t n);
/* 1 when the graph file has its own bundled policy for n_devices devices
 * (policies/STEM_D.json), else 0. */
int data_has_own_policy(const char *graph_path, int n_devices);
/* What `place` and `compare` take for --policy auto (the explorer, which
 * steps Placeto's episodes, takes data_auto_policy's): the graph's own
 * bundled policy, else the learned local search (policies/lsearch.json,
 * which places any graph on any device count), else the general one. */
const char *data_auto_place_policy(const char *graph_path, int n_devices, char *buf, size_t n);
/* The policy --policy auto weighs against the graph's own bundled one when
 * data_auto_place_policy gave that: the learned local search
 * (policies/lsearch.json) into buf, both placing at the same budget, the
 * faster kept; NULL when the graph has no policy of its own or lsearch.json
 * is not bundled. */
const char *data_auto_place_rival(const char *graph_path, int n_devices, char *buf, size_t n);
/* The bundled file rel (under the data directory) into buf when it can be
 * read, else NULL. */
const char *data_bundled(const char *rel, char *buf, size_t n);
/* A graph file's own bundled policy of one agent, policies/PREFIXSTEM_D.json
 * (STEM: the file's name without directory and .json; prefix "", "rnn_",
 * "gdp_", ...; n_devices <= 0: no _D), into buf when it can be read, else
 * NULL. */
const char *data_own_policy(const char *graph_path, const char *prefix, int n_devices, char *buf, size_t n);

#endif
