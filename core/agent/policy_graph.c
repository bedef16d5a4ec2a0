/* policy_graph: the static group-graph data of an episode (policy_graph.h). */
#include "policy_graph.h"

#include <stdlib.h>
#include <string.h>

PolicyGraph *policy_graph_new(const Grouping *gr, Err *e)
{
    int n = gr->n_groups;
    if (n > POLICY_MAX_GROUPS) {
        err_set(e, "%d groups: the policy handles at most %d (use --groups)", n, POLICY_MAX_GROUPS);
        return NULL;
    }
    PolicyGraph *pg = xcalloc(1, sizeof *pg);
    size_t N = (size_t)n;
    pg->n = n;
    pg->par_off = xmalloc_array(N + 1, sizeof *pg->par_off);
    pg->ch_off = xmalloc_array(N + 1, sizeof *pg->ch_off);
    memcpy(pg->par_off, gr->pred_off, (N + 1) * sizeof *pg->par_off);
    memcpy(pg->ch_off, gr->succ_off, (N + 1) * sizeof *pg->ch_off);
    size_t m = (size_t)gr->n_edges;
    pg->par = xmalloc_array(m, sizeof *pg->par);
    pg->ch = xmalloc_array(m, sizeof *pg->ch);
    memcpy(pg->par, gr->pred, m * sizeof *pg->par);
    memcpy(pg->ch, gr->succ, m * sizeof *pg->ch);
    pg->words = (n + 63) / 64;
    size_t W = (size_t)pg->words;
    pg->anc = xnew_array(N * W, sizeof *pg->anc);
    pg->desc = xnew_array(N * W, sizeof *pg->desc);
    /* group ids are a topological order: parents have smaller ids */
    for (int i = 0; i < n; i++) {
        uint64_t *row = pg->anc + (size_t)i * W;
        for (int q = pg->par_off[i]; q < pg->par_off[i + 1]; q++) {
            int p = pg->par[q];
            const uint64_t *prow = pg->anc + (size_t)p * W;
            for (size_t x = 0; x < W; x++)
                row[x] |= prow[x];
            row[p >> 6] |= 1ULL << (p & 63);
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        uint64_t *row = pg->desc + (size_t)i * W;
        for (int q = pg->ch_off[i]; q < pg->ch_off[i + 1]; q++) {
            int c = pg->ch[q];
            const uint64_t *crow = pg->desc + (size_t)c * W;
            for (size_t x = 0; x < W; x++)
                row[x] |= crow[x];
            row[c >> 6] |= 1ULL << (c & 63);
        }
    }
    return pg;
}

void policy_graph_free(PolicyGraph *pg)
{
    if (!pg)
        return;
    free(pg->par_off);
    free(pg->par);
    free(pg->ch_off);
    free(pg->ch);
    free(pg->anc);
    free(pg->desc);
    free(pg);
}
