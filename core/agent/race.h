/* race: placement methods run side by side on one problem, advancing
 * together. Each lane is one row of `compare`, computed by the code that
 * computes it there: a search (place_run: anneal, ils), a learned placer's
 * zero-shot row (agent_place_runs, without its training state) or its
 * untrained control (agent_place_untrained). A lane runs on its own thread
 * with its own simulator, and a simulation observer (sim_observe) records
 * the best score after every placement it simulates and holds the lane
 * when it has used the simulations granted to it; race_step grants every
 * lane in turn a slice and waits for it, so exactly one lane computes at a
 * time and what a race shows after each step depends on its inputs alone
 * (same seed, same frames). The final rows are compare's.
 * Implemented in race.c. */
#ifndef PLACETO_RACE_H
#define PLACETO_RACE_H

#include <stdint.h>

#include "agent.h"
#include "place.h"
#include "place_run.h"
#include "problem.h"

typedef enum RaceKind {
    RACE_SEARCH,  /* a placement method (place_run) */
    RACE_POLICY,  /* a learned placer's zero-shot row */
    RACE_CONTROL  /* its untrained control */
} RaceKind;

/* One lane: what it runs and what it has done so far. */
typedef struct RaceLane {
    RaceKind kind;
    const PlaceMethod *method;  /* RACE_SEARCH */
    const AgentPolicy *policy;  /* RACE_POLICY, RACE_CONTROL (borrowed; outlives the race) */
    char name[80];              /* the row's name once done; before: what it will be */
    double *best;               /* best[i]: the best score (µs, place_score's penalty included
                                   when memory was simulated) after i + 1 simulations */
    int64_t n;                  /* simulations observed */
    int64_t cap;
    int done;                   /* finished (row or err set) */
    int failed;                 /* finished with err */
    char err[256];
    PlaceRun row;               /* done and not failed: the method's row, as compare reports it */
} RaceLane;

typedef struct Race Race;

/* A race on p (its graph, grouping and cluster; each lane makes its own
 * simulator) with seed and budget (the searches' placements and, when
 * budget_agents, a searching agent's: compare's --budget; 0: each one's
 * default). Lanes are added before the first step. */
Race *race_new(const Problem *p, uint64_t seed, int64_t budget, int budget_agents);
void race_add_search(Race *r, const PlaceMethod *m);
/* The zero-shot row of the loaded policy (from its own start), and with
 * control its untrained control too. */
void race_add_policy(Race *r, const AgentPolicy *ap, int control);
/* Every unfinished lane in turn simulates up to slice more placements (or
 * finishes). Returns 1 while some lane is unfinished, else 0. */
int race_step(Race *r, int64_t slice);
int race_lanes(const Race *r);
const RaceLane *race_lane(const Race *r, int i);
/* 1 when every lane has finished. */
int race_done(const Race *r);
/* The most simulations any lane has made, and the score range seen (lo, hi
 * µs; 0 and 0 before any). */
int64_t race_max_n(const Race *r);
void race_range(const Race *r, double *lo, double *hi);
/* Frees the race. Lanes still running are left held, never to run again
 * (their thread waits until the process ends; the race stays allocated
 * for them), so that leaving mid-race is immediate; after
 * RACE_ABANDONED_MAX such races the lanes finish freely (their budget
 * bounds them) and everything is freed. */
void race_free(Race *r);

#endif
