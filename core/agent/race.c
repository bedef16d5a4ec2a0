/* race: methods run side by side, one slice of simulations each in turn
 * (race.h). */
#include "race.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A lane's thread and the turnstile between it and race_run: the lane
 * waits on its own go, race_run on the race's cond, so that a hand-over
 * wakes the one thread it is for (not every held lane). */
typedef struct Runner {
    Race *race;
    RaceLane *lane;
    Problem pb;          /* the race's problem with the lane's own simulator */
    pthread_t thread;
    pthread_cond_t go;   /* the lane may go on (initialised with the thread) */
    int started;
    int64_t granted;     /* simulations the lane may have made (INT64_MAX: run freely) */
    double until;        /* and the time (util_now) it may run until (0: none) */
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
    int next;            /* the lane race_run starts at (one a run with a time left out) */
    pthread_mutex_t lock;
    pthread_cond_t cond; /* a lane is held or finished */
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
 * lane while it has used its grant: its simulations, or its time (the rest
 * of its simulations are granted again by the next race_run). */
static void observe(void *ud, double makespan_us, const SimResult *res)
{
    Runner *ru = ud;
    Race *r = ru->race;
    RaceLane *l = ru->lane;
    double score = res ? place_score(r->pb.c, res) : makespan_us;
    pthread_mutex_lock(&r->lock);
    if (l->n_steps == 0 || score < l->step_best[l->n_steps - 1]) {
        if (l->n_steps == l->cap) {
            l->cap = l->cap ? 2 * l->cap : 64;
            l->step_at = XRENEW(l->step_at, l->cap);
            l->step_best = XRENEW(l->step_best, l->cap);
        }
        l->step_at[l->n_steps] = l->n + 1;
        l->step_best[l->n_steps++] = score;
    }
    l->n++;
    if (l->n < ru->granted && ru->until > 0 && util_now() >= ru->until)
        ru->granted = l->n;
    while (l->n >= ru->granted) {
        ru->waiting = 1;
        pthread_cond_signal(&r->cond);
        pthread_cond_wait(&ru->go, &r->lock);
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
    pthread_cond_signal(&r->cond);
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
    pthread_cond_init(&ru->go, NULL);
    int rc = pthread_create(&ru->thread, &at, lane_main, ru);
    pthread_attr_destroy(&at);
    if (rc != 0) {
        pthread_cond_destroy(&ru->go);
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

/* 1 when lane i is unfinished and short of upto simulations (r->lock held). */
static int short_of(const Race *r, int i, int64_t upto)
{
    return !r->lanes[i].done && r->lanes[i].n < upto;
}

int race_run(Race *r, int64_t upto, double until)
{
    int ran = 0;
    for (int k = 0; k < r->n; k++) {
        int i = (r->next + k) % r->n;
        Runner *ru = &r->run[i];
        RaceLane *l = &r->lanes[i];
        pthread_mutex_lock(&r->lock);
        int due = short_of(r, i, upto), left = 0;
        for (int j = k; j < r->n; j++)
            left += short_of(r, (r->next + j) % r->n, upto);
        double now = until > 0 ? util_now() : 0;
        if (due && ran && until > 0 && now >= until) { /* the time is up: this lane first next time */
            pthread_mutex_unlock(&r->lock);
            r->next = i;
            break;
        }
        if (due) {
            ru->granted = upto;
            ru->until = until > 0 ? now + (until - now) / left : 0; /* its share of the time left */
            ru->waiting = 0;
        }
        pthread_mutex_unlock(&r->lock);
        if (!due || (!ru->started && start(r, i) != 0))
            continue;
        pthread_mutex_lock(&r->lock);
        pthread_cond_signal(&ru->go);
        while (!l->done && !(ru->waiting && l->n >= ru->granted))
            pthread_cond_wait(&r->cond, &r->lock);
        pthread_mutex_unlock(&r->lock);
        ran = 1;
    }
    int behind = 0;
    pthread_mutex_lock(&r->lock);
    for (int i = 0; i < r->n; i++)
        behind += short_of(r, i, upto);
    pthread_mutex_unlock(&r->lock);
    return behind;
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

double race_lane_best(const RaceLane *l, int64_t i)
{
    int64_t lo = 0, hi = l->n_steps - 1; /* the last step at or before simulation i + 1 */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (l->step_at[mid] <= i + 1)
            lo = mid;
        else
            hi = mid - 1;
    }
    return l->n_steps > 0 ? l->step_best[lo] : INFINITY;
}

void race_range(const Race *r, double *lo, double *hi)
{
    *lo = *hi = 0;
    int any = 0;
    for (int i = 0; i < r->n; i++) { /* a lane's best never rises: its first finite step is its highest */
        const RaceLane *l = &r->lanes[i];
        int64_t a = 0;
        while (a < l->n_steps && !isfinite(l->step_best[a]))
            a++;
        if (a >= l->n_steps)
            continue;
        double last = l->step_best[l->n_steps - 1];
        if (!any || last < *lo)
            *lo = last;
        if (!any || l->step_best[a] > *hi)
            *hi = l->step_best[a];
        any = 1;
    }
}

/* Races freed with lanes still held: kept, so that those lanes can wait
 * on (their lock, their counts) until the process ends, and reachable. */
static Race **abandoned;
static int n_abandoned, cap_abandoned;

void race_free(Race *r)
{
    if (!r)
        return;
    int held = 0; /* every lane is held or finished between race_run calls */
    for (int i = 0; i < r->n; i++) {
        Runner *ru = &r->run[i];
        RaceLane *l = &r->lanes[i];
        if (ru->started && !l->done) {
            held++;
            continue;
        }
        if (ru->started) { /* finished: its thread ends */
            pthread_join(ru->thread, NULL);
            pthread_cond_destroy(&ru->go);
            sim_free(ru->pb.sim);
            ru->started = 0;
        }
        if (l->done && !l->failed)
            place_run_free(&l->row);
    }
    for (int i = 0; i < r->n; i++) { /* a held lane never reads its curve again */
        free(r->lanes[i].step_at);
        free(r->lanes[i].step_best);
        r->lanes[i].step_at = NULL;
        r->lanes[i].step_best = NULL;
    }
    if (held) { /* quitting mid-race does not wait for the lanes, whatever their budget */
        if (n_abandoned == cap_abandoned) {
            cap_abandoned = cap_abandoned ? 2 * cap_abandoned : 16;
            abandoned = XRENEW(abandoned, cap_abandoned);
        }
        abandoned[n_abandoned++] = r;
        return;
    }
    free(r->lanes);
    free(r->run);
    pthread_cond_destroy(&r->cond);
    pthread_mutex_destroy(&r->lock);
    free(r);
}
