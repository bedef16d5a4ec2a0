/* progress: see progress.h. */
#include "progress.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim.h"
#include "util.h"

#define PROGRESS_DELAY 1.0   /* seconds before the first line */
#define PROGRESS_PERIOD 0.1  /* seconds between lines */

typedef struct Task {
    const char *name;
    int64_t budget, done;
    int active;
} Task;

static struct {
    pthread_mutex_t lock;
    int on;          /* standard error is a terminal and a command runs */
    int shown;       /* a line is on the screen */
    const char *what;
    double t0, last;
    Task task[PROGRESS_SLOTS];
} P = {.lock = PTHREAD_MUTEX_INITIALIZER};

void progress_begin(const char *what)
{
    pthread_mutex_lock(&P.lock);
    memset(P.task, 0, sizeof P.task);
    P.on = isatty(STDERR_FILENO);
    P.shown = 0;
    P.what = what;
    P.t0 = util_now();
    P.last = 0;
    pthread_mutex_unlock(&P.lock);
}

/* Rewrites the line (P.lock held). */
static void draw(double now)
{
    char line[256];
    size_t n = (size_t)snprintf(line, sizeof line, "%s:", P.what);
    for (int k = 0; k < PROGRESS_SLOTS && n < sizeof line; k++) {
        const Task *t = &P.task[k];
        if (!t->active)
            continue;
        if (t->budget > 0)
            n += (size_t)snprintf(line + n, sizeof line - n, "%s %s %lld/%lld", n > strlen(P.what) + 1 ? "," : "", t->name, (long long)t->done,
                                  (long long)t->budget);
        else
            n += (size_t)snprintf(line + n, sizeof line - n, "%s %s %lld", n > strlen(P.what) + 1 ? "," : "", t->name, (long long)t->done);
    }
    if (n < sizeof line)
        snprintf(line + n, sizeof line - n, " placements, %.1f s", now - P.t0);
    fprintf(stderr, "\r\033[K%s", line);
    fflush(stderr);
    P.shown = 1;
    P.last = now;
}

void progress_task(int slot, const char *name, int64_t budget)
{
    if (slot < 0 || slot >= PROGRESS_SLOTS)
        return;
    pthread_mutex_lock(&P.lock);
    P.task[slot] = (Task){name, budget, 0, name != NULL};
    pthread_mutex_unlock(&P.lock);
}

static void observe(void *ud, double makespan_us, const SimResult *r)
{
    (void)makespan_us;
    (void)r;
    int slot = (int)(intptr_t)ud;
    pthread_mutex_lock(&P.lock);
    P.task[slot].done++;
    if (P.on) {
        double now = util_now();
        if (now - P.t0 >= PROGRESS_DELAY && now - P.last >= PROGRESS_PERIOD)
            draw(now);
    }
    pthread_mutex_unlock(&P.lock);
}

void progress_watch(int slot)
{
    if (slot < 0 || slot >= PROGRESS_SLOTS)
        sim_observe(NULL, NULL);
    else
        sim_observe(observe, (void *)(intptr_t)slot);
}

void progress_end(void)
{
    sim_observe(NULL, NULL);
    pthread_mutex_lock(&P.lock);
    if (P.shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    P.on = P.shown = 0;
    memset(P.task, 0, sizeof P.task);
    pthread_mutex_unlock(&P.lock);
}
