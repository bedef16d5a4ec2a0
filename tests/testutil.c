/* testutil: see testutil.h. */
#include "testutil.h"

#include <stdlib.h>

#include "sim.h"

double test_brute_force(const Graph *g, const Cluster *c)
{
    int n = g->n_nodes, d = c->n_devices;
    int *dev = xcalloc((size_t)n, sizeof *dev);
    Sim *s = sim_new(g, c);
    double best = -1;
    for (;;) {
        double m = sim_makespan(s, dev);
        if (best < 0 || m < best)
            best = m;
        int k = 0;
        while (k < n && ++dev[k] == d)
            dev[k++] = 0;
        if (k == n)
            break;
    }
    sim_free(s);
    free(dev);
    return best;
}
