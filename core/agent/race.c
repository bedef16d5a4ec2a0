/* race: methods run side by side, one slice of simulations each in turn
 * (race.h). */
#include "race.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A lane's thread and the turnstile between it and race_step. */
typedef struct Runner {
    Race *race;
    RaceLane *lane;
    Problem pb;          /* the race's problem with the lane's own simulator */
    pthread_t thread;
    int started;
    int64_t granted;     /* simulations the lane may have made (INT64_MAX: run freely) */
    int waiting;         /* the lane is held (it has used its grant) */
} Runner;

struct Race {
    Problem pb;          /* borrowed graph, grouping, cluster */
    uint64_t seed;
    int64_t budget;
    int budget_agents;
    RaceLane *lanes;
    Runner *run;
    int n, cap;
    pthread_mutex_t lock;
    pthread_cond_t cond;
};

Race *race_new(const Problem *p, uint64_t seed, int64_t budget, int budget_agents)
{
    Race *r = xcalloc(1, sizeof *r);
    r->pb = *p;
    r->pb.sim = NULL;
    r->pb.pl = NULL;
    r->pb.own_cluster = 0;
    r->seed = seed;
    r->budget = budget;
    r->budget_agents = budget_agents;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->cond, NULL);
    return r;
}

static RaceLane *add(Race *r, RaceKind kind, const char *name)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 8;
        r->lanes = XRENEW(r->lanes, r->cap);
        r->run = XRENEW(r->run, r->cap);
    }
    RaceLane *l = &r->lanes[r->n];
    memset(l, 0, sizeof *l);
    memset(&r->run[r->n], 0, sizeof r->run[r->n]);
    l->kind = kind;
    snprintf(l->name, sizeof l->name, "%s", name);
    r->n++;
    return l;
}

void race_add_search(Race *r, const PlaceMethod *m)
{
    add(r, RACE_SEARCH, m->name)->method = m;
}

void race_add_policy(Race *r, const AgentPolicy *ap, int control)
{
    add(r, RACE_POLICY, ap->kind->name)->policy = ap;
    if (control) {
        char name[80];
        snprintf(name, sizeof name, "%s-untrained", ap->kind->name);
        add(r, RACE_CONTROL, name)->policy = ap;
    }
}

/* The observer on a lane's thread: records the best score, then holds the
 * lane while it has used its grant. */
static void observe(void *ud, double makespan_us, const SimResult *res)
{
    Runner *ru = ud;
    Race *r = ru->race;
    RaceLane *l = ru->lane;
    double score = res ? place_score(r->pb.c, res) : makespan_us;
    pthread_mutex_lock(&r->lock);
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->best = XRENEW(l->best, l->cap);
    }
    double prev = l->n > 0 ? l->best[l->n - 1] : INFINITY;
    l->best[l->n] = score < prev ? score : prev;
    l->n++;
    while (l->n >= ru->granted) {
        ru->waiting = 1;
        pthread_cond_broadcast(&r->cond);
        pthread_cond_wait(&r->cond, &r->lock);
    }
    ru->waiting = 0;
    pthread_mutex_unlock(&r->lock);
}

/* The lane's method, exactly as compare runs it. */
static void *lane_main(void *arg)
{
    Runner *ru = arg;
    Race *r = ru->race;
    RaceLane *l = ru->lane;
    PlaceRun row;
    Err e = {{0}};
    int ok = 0;
    sim_observe(observe, ru);
    AgentPlaceOpts o = {0, r->seed, AGENT_START_DEFAULT, r->budget_agents ? r->budget : 0};
    if (l->kind == RACE_SEARCH) {
        ok = place_run(&ru->pb, l->method, r->seed, r->budget, &row, &e) == 0;
    } else if (l->kind == RACE_CONTROL) {
        ok = agent_place_untrained(l->policy, &ru->pb, &o, &row, &e) == 0;
    } else {
        PlaceRun rows[2];
        int n = agent_place_runs(l->policy, NULL, &ru->pb, &o, rows, NULL, &e); /* the zero-shot row alone */
        if ((ok = n > 0)) {
            for (int k = 0; k + 1 < n; k++)
                place_run_free(&rows[k]);
            row = rows[n - 1];
        }
    }
    sim_observe(NULL, NULL);
    pthread_mutex_lock(&r->lock);
    if (ok) {
        l->row = row;
        snprintf(l->name, sizeof l->name, "%s", row.method);
    } else {
        l->failed = 1;
        snprintf(l->err, sizeof l->err, "%.250s", e.msg[0] ? e.msg : "failed");
    }
    l->done = 1;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

/* Starts lane i's thread (held until granted). 0, or -1 when it cannot. */
static int start(Race *r, int i)
{
    Runner *ru = &r->run[i];
    ru->race = r;
    ru->lane = &r->lanes[i];
    ru->pb = r->pb;
    ru->pb.sim = sim_new(r->pb.g, r->pb.c);
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, (size_t)16 << 20); /* room for the agents' forward passes */
    int rc = pthread_create(&ru->thread, &at, lane_main, ru);
    pthread_attr_destroy(&at);
    if (rc != 0) {
        sim_free(ru->pb.sim);
        ru->pb.sim = NULL;
        RaceLane *l = &r->lanes[i];
        l->done = l->failed = 1;
        snprintf(l->err, sizeof l->err, "cannot start a thread");
        return -1;
    }
    ru->started = 1;
    return 0;
}

int race_step(Race *r, int64_t slice)
{
    if (slice < 1)
        slice = 1;
    for (int i = 0; i < r->n; i++) {
        Runner *ru = &r->run[i];
        RaceLane *l = &r->lanes[i];
        pthread_mutex_lock(&r->lock);
        int done = l->done;
        pthread_mutex_unlock(&r->lock);
        if (done)
            continue;
        pthread_mutex_lock(&r->lock);
        ru->granted = l->n + slice;
        ru->waiting = 0;
        pthread_mutex_unlock(&r->lock);
        if (!ru->started && start(r, i) != 0)
            continue;
        pthread_mutex_lock(&r->lock);
        pthread_cond_broadcast(&r->cond);
        while (!l->done && !(ru->waiting && l->n >= ru->granted))
            pthread_cond_wait(&r->cond, &r->lock);
        pthread_mutex_unlock(&r->lock);
    }
    return !race_done(r);
}

int race_lanes(const Race *r) { return r->n; }

const RaceLane *race_lane(const Race *r, int i) { return i >= 0 && i < r->n ? &r->lanes[i] : NULL; }

int race_done(const Race *r)
{
    for (int i = 0; i < r->n; i++)
        if (!r->lanes[i].done)
            return 0;
    return 1;
}

int64_t race_max_n(const Race *r)
{
    int64_t m = 0;
    for (int i = 0; i < r->n; i++)
        if (r->lanes[i].n > m)
            m = r->lanes[i].n;
    return m;
}

void race_range(const Race *r, double *lo, double *hi)
{
    *lo = *hi = 0;
    int any = 0;
    for (int i = 0; i < r->n; i++) {
        const RaceLane *l = &r->lanes[i];
        for (int64_t k = 0; k < l->n; k++) {
            double v = l->best[k];
            if (!isfinite(v))
                continue;
            if (!any || v < *lo)
                *lo = v;
            if (!any || v > *hi)
                *hi = v;
            any = 1;
        }
    }
}

/* Races freed with lanes still held: kept, so that those lanes can wait
 * on (their lock, their counts) until the process ends, and reachable. */
enum { RACE_ABANDONED_MAX = 16 };
static Race *abandoned[RACE_ABANDONED_MAX];
static int n_abandoned;

void race_free(Race *r)
{
    if (!r)
        return;
    int held = 0;
    for (int i = 0; i < r->n; i++)
        held += r->run[i].started && !r->lanes[i].done;
    if (held && n_abandoned < RACE_ABANDONED_MAX) { /* quitting mid-race does not wait for the lanes */
        abandoned[n_abandoned++] = r;
        return;
    }
    for (int i = 0; i < r->n; i++) { /* else a lane still running finishes freely (its budget bounds it) */
        Runner *ru = &r->run[i];
        if (!ru->started)
            continue;
        pthread_mutex_lock(&r->lock);
        ru->granted = INT64_MAX;
        pthread_cond_broadcast(&r->cond);
        pthread_mutex_unlock(&r->lock);
        pthread_join(ru->thread, NULL);
        sim_free(ru->pb.sim);
    }
    for (int i = 0; i < r->n; i++) {
        free(r->lanes[i].best);
        if (r->lanes[i].done && !r->lanes[i].failed)
            place_run_free(&r->lanes[i].row);
    }
    free(r->lanes);
    free(r->run);
    pthread_cond_destroy(&r->cond);
    pthread_mutex_destroy(&r->lock);
    free(r);
}
