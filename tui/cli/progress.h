/* progress: one line on standard error, rewritten in place while a command
 * works through placements: what runs, the placements each part has
 * simulated (of its budget), the time so far. Only on a terminal, from the
 * first second on, at most ten times a second, and wiped at the end; silent
 * when standard error is not a terminal. The placements are counted
 * through the simulator's observer (sim_observe) on each thread that
 * watches a slot. */
#ifndef PLACETO_PROGRESS_H
#define PLACETO_PROGRESS_H

#include <stdint.h>

#define PROGRESS_SLOTS 4

/* A command begins: `what` heads the line (e.g. "compare nmt"). */
void progress_begin(const char *what);
/* Slot `slot` is the part `name` (NULL: none), of `budget` placements (0:
 * not known). */
void progress_task(int slot, const char *name, int64_t budget);
/* The calling thread's simulations count for slot (-1: stop counting). */
void progress_watch(int slot);
/* The command is done: the line goes, the calling thread stops counting. */
void progress_end(void);

#endif
