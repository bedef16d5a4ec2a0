/* vocab: the op-type vocabulary of the learned placers that embed op types
 * (vocab.h). */
#include "vocab.h"

#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void vocab_build(OpVocab *v, const Graph *const *graphs, int n_graphs)
{
    size_t total = 0;
    for (int i = 0; i < n_graphs; i++)
        total += (size_t)graphs[i]->n_nodes;
    char **all = XMALLOC(char *, total ? total : 1);
    size_t k = 0;
    for (int i = 0; i < n_graphs; i++)
        for (int j = 0; j < graphs[i]->n_nodes; j++)
            all[k++] = graphs[i]->nodes[j].op;
    qsort(all, k, sizeof *all, cmp_str);
    v->n = 0;
    v->names = XMALLOC(char *, k ? k : 1);
    for (size_t i = 0; i < k; i++)
        if (i == 0 || strcmp(all[i], all[i - 1]) != 0)
            v->names[v->n++] = xstrdup(all[i]);
    free(all);
}

void vocab_done(OpVocab *v)
{
    for (int i = 0; i < v->n; i++)
        free(v->names[i]);
    free(v->names);
    v->names = NULL;
    v->n = 0;
}

int vocab_find(const OpVocab *v, const char *s)
{
    int lo = 0, hi = v->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(v->names[mid], s);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return v->n;
}

void vocab_copy(OpVocab *dst, const OpVocab *src)
{
    dst->n = src->n;
    dst->names = XMALLOC(char *, src->n ? src->n : 1);
    for (int i = 0; i < src->n; i++)
        dst->names[i] = xstrdup(src->names[i]);
}

int vocab_build_problems(OpVocab *v, const Problem *pb, int n)
{
    const Graph **gs = xnew_array((size_t)n, sizeof *gs);
    int most = 0;
    for (int i = 0; i < n; i++) {
        gs[i] = pb[i].g;
        if (pb[i].gr->n_groups > most)
            most = pb[i].gr->n_groups;
    }
    vocab_build(v, gs, n);
    free(gs);
    return most;
}
