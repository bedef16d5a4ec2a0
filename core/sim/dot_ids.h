/* dot_ids: a cgraph discipline whose object IDs follow creation order.
 * cgraph's default discipline makes a named object's ID the address of its
 * pooled name, and agwrite lists subgraphs (the device clusters) in ID
 * order: the order of a written DOT file then depends on the heap (another
 * build, ASan, a library loaded earlier). With these IDs the same graph is
 * written as the same bytes everywhere. Implemented in dot_ids.c. */
#ifndef PLACETO_DOT_IDS_H
#define PLACETO_DOT_IDS_H

#include <graphviz/cgraph.h>

/* The discipline to pass to agopen (cgraph's memory and I/O disciplines,
 * these IDs). */
Agdisc_t *dot_seq_disc(void);

#endif
