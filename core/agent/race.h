/* race: placement methods run side by side on one problem, advancing
 * together. Each lane is one row of `compare`, computed by the code that
 * computes it there: a search (place_run: anneal, ils), a learned placer's
 * zero-shot row (agent_place_runs, without its training state) or its
 * untrained control (agent_place_untrained). A lane runs on its own thread
 * with its own simulator, and a simulation observer (sim_observe) records
 * the best score after every placement it simulates and holds the lane
 * when it has used the simulations granted to it (or its share of the
 * time); race_run grants every lane in turn its simulations up to a count
 * and waits for it, so exactly one lane computes at a time, each lane's
 * placements are its method's whatever the slices it ran in, and what a
 * race shows after each run to a count depends on its inputs alone (same
 * seed, same frames). The final rows are compare's.
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
    /* the best score so far (µs, place_score's penalty included when memory
     * was simulated) as a step curve, one entry per improvement: from
     * simulation step_at[k] (1-based) on it is step_best[k] (race_lane_best
     * reads it); memory grows with the improvements, not the simulations */
    int64_t *step_at;
    double *step_best;
    int64_t n_steps, cap;
    int64_t n;                  /* simulations observed */
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
/* Every unfinished lane in turn simulates until it has made upto
 * simulations (or finishes). With until > 0 (a time, util_now's) each lane
 * also stops once its share of the time left has passed (the time left
 * over the lanes still to run, itself included), after the simulation it
 * is making, and once the time is up the lanes not reached wait for the
 * next call, which starts with them; such lanes are short of upto, and
 * the next call goes on from where they are. The first lane a call runs
 * makes one simulation at least, so calls with a time make progress.
 * Between two simulations a lane does its method's other work, bounded by
 * the graph's size (a heuristic's placement, a network's forward pass),
 * never by the budget. Returns how many lanes are unfinished and short of
 * upto (0: every lane reached it or finished). */
int race_run(Race *r, int64_t upto, double until);
int race_lanes(const Race *r);
/* The lane's best score after i + 1 simulations (i < l->n). */
double race_lane_best(const RaceLane *l, int64_t i);
const RaceLane *race_lane(const Race *r, int i);
/* 1 when every lane has finished. */
int race_done(const Race *r);
/* The most simulations any lane has made, and the score range seen (lo, hi
 * µs; 0 and 0 before any). */
int64_t race_max_n(const Race *r);
void race_range(const Race *r, double *lo, double *hi);
/* Frees the race. Lanes still running are left held, never to run again
 * (their thread waits until the process ends; the race's lock and counts
 * stay allocated for them, their curves are freed), so that leaving
 * mid-race is immediate whatever the budget, however many times. */
void race_free(Race *r);

#endif
