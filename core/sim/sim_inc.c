/* sim_inc: incremental re-simulation (sim_run_from). */
#include "sim_impl.h"

#include <stdlib.h>

void sim_checkpoint(Sim *s) { (void)s; }

void sim_inc_free(Sim *s)
{
    free(s->last);
    free(s->run_idx);
    free(s->log);
    free(s->ck);
    free(s->arena);
}
