/* dot_ids: see dot_ids.h. A named object gets the even ID 2 k for the k-th
 * name first mapped, an anonymous one the next odd ID, as cgraph's own
 * discipline does for anonymous objects. */
#include "dot_ids.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef struct SeqIds {
    Agraph_t *g;  /* the root graph, whose string pool holds the names */
    char **names; /* by k: the name of ID 2 k, pooled (agstrdup: agwrite asks the pool whether a
                     name is an HTML string, so a name must be the pool's) */
    int n, cap;
    StrMap index; /* name -> k (keys borrowed from names) */
    IDTYPE next_anon;
} SeqIds;

static void *seq_open(Agraph_t *g, Agdisc_t *disc)
{
    (void)disc;
    SeqIds *s = XNEW(SeqIds, 1);
    s->g = g;
    strmap_init(&s->index, 256);
    s->next_anon = 1;
    return s;
}

static long seq_map(void *state, int objtype, char *str, IDTYPE *id, int createflag)
{
    (void)objtype;
    SeqIds *s = state;
    if (!str) {
        *id = s->next_anon;
        s->next_anon += 2;
        return 1;
    }
    int k = strmap_get(&s->index, str);
    if (k < 0) {
        if (!createflag)
            return 0;
        if (s->n == s->cap) {
            s->cap = s->cap ? 2 * s->cap : 256;
            s->names = XRENEW(s->names, s->cap); /* the strings the map borrows stay where they are */
        }
        k = s->n++;
        s->names[k] = agstrdup(s->g, str);
        strmap_put(&s->index, s->names[k], k);
    }
    *id = (IDTYPE)k * 2;
    return 1;
}

static long seq_alloc(void *state, int objtype, IDTYPE request)
{
    (void)state;
    (void)objtype;
    return (request & 1) ? 0 : 1;
}

static void seq_free(void *state, int objtype, IDTYPE id)
{
    (void)state;
    (void)objtype;
    (void)id;
}

static char *seq_print(void *state, int objtype, IDTYPE id)
{
    (void)objtype;
    SeqIds *s = state;
    if (id & 1)
        return NULL;
    IDTYPE k = id / 2;
    return k < (IDTYPE)s->n ? s->names[k] : NULL;
}

static void seq_close(void *state)
{
    SeqIds *s = state; /* the names go with the graph's string pool */
    free(s->names);
    strmap_done(&s->index);
    free(s);
}

static void seq_register(void *state, int objtype, void *obj)
{
    (void)state;
    (void)objtype;
    (void)obj;
}

static Agiddisc_t seq_iddisc = {seq_open, seq_map, seq_alloc, seq_free, seq_print, seq_close, seq_register};

Agdisc_t *dot_seq_disc(void)
{
    static Agdisc_t disc;
    disc.mem = &AgMemDisc;
    disc.id = &seq_iddisc;
    disc.io = &AgIoDisc;
    return &disc;
}
