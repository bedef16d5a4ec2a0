/* placeto_io: Placeto's policy file (placeto_io.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placeto_io.h"

/* Limits the reader accepts (policy_new checks the architecture again). */
#define PIO_MAX_D 1024
#define PIO_MAX_ROUNDS 64
#define POLICY_INIT_SEED_MAX (1ULL << 53) /* a seed a JSON number holds exactly */

/* The Placeto file names no agent: "placeto" is the default. */
static void placeto_head(FILE *f, const void *ud)
{
    const PolicyArch *a = ud;
    fprintf(f, " \"architecture\": {\"n_devices\": %d, \"n_features\": %d, \"d\": %d, \"rounds\": %d, \"mem_feature\": %d%s%s%s%s",
            a->n_devices, a->n_features, a->d, a->rounds, a->mem_feature, a->extended ? ", \"extended\": 1" : "",
            a->start_device0 ? ", \"start\": \"device0\"" : a->start_heuristic ? ", \"start\": \"heuristic\"" : "",
            a->accept_improving ? ", \"accept\": \"improving\"" : "",
            a->reject_zero ? ", \"rejected\": \"zero\"" : "");
    if (a->has_init_seed && a->init_seed <= POLICY_INIT_SEED_MAX) /* the untrained control's weights (exact in JSON) */
        fprintf(f, ", \"init_seed\": %llu", (unsigned long long)a->init_seed);
    fputs("},\n", f);
}

int placeto_policy_save(const Policy *pol, const TrainState *ts, const char *path, Err *e)
{
    return policy_file_write(path, &pol->p, ts, placeto_head, &pol->arch, e);
}

static int read_arch(const JDoc *d, PolicyArch *a, Err *e)
{
    const cJSON *o = policy_file_member(d, d->root, "architecture", "", cJSON_IsObject,
                            "an object {\"n_devices\", \"n_features\", \"d\", \"rounds\", \"mem_feature\"}", e);
    if (!o)
        return -1;
    int64_t nd, nf, dd, r, mf, ext = 0;
    if (jget_int(d, o, "n_devices", "architecture.n_devices", 1, 1, POLICY_MAX_DEVICES, &nd, e) < 0 ||
        jget_int(d, o, "mem_feature", "architecture.mem_feature", 1, 0, 1, &mf, e) < 0 ||
        jget_int(d, o, "extended", "architecture.extended", 0, 0, 1, &ext, e) < 0 ||
        jget_int(d, o, "n_features", "architecture.n_features", 1, 1, 1 << 20, &nf, e) < 0 ||
        jget_int(d, o, "d", "architecture.d", 1, 1, PIO_MAX_D, &dd, e) < 0 ||
        jget_int(d, o, "rounds", "architecture.rounds", 1, 0, PIO_MAX_ROUNDS, &r, e) < 0)
        return -1;
    long long want = policy_n_features((int)nd, (int)mf, (int)ext);
    if (nf != want)
        return jdoc_err(d, e, "architecture.n_features",
                        ext ? "expected %lld (8 + 2 n_devices + mem_feature, extended), got %lld"
                            : "expected %lld (5 + n_devices + mem_feature), got %lld",
                        want, (long long)nf);
    const char *start = NULL;
    if (jget_string(d, o, "start", "architecture.start", 0, &start, e) < 0)
        return -1;
    if (start && strcmp(start, "device0") != 0 && strcmp(start, "random-fixed") != 0 && strcmp(start, "heuristic") != 0)
        return jdoc_err(d, e, "architecture.start", "expected \"device0\", \"random-fixed\" or \"heuristic\", got \"%s\"",
                        start);
    const char *accept = NULL;
    if (jget_string(d, o, "accept", "architecture.accept", 0, &accept, e) < 0)
        return -1;
    if (accept && strcmp(accept, "improving") != 0 && strcmp(accept, "all") != 0)
        return jdoc_err(d, e, "architecture.accept", "expected \"improving\" or \"all\", got \"%s\"", accept);
    const char *rejected = NULL;
    if (jget_string(d, o, "rejected", "architecture.rejected", 0, &rejected, e) < 0)
        return -1;
    if (rejected && strcmp(rejected, "zero") != 0 && strcmp(rejected, "negative") != 0)
        return jdoc_err(d, e, "architecture.rejected", "expected \"zero\" or \"negative\", got \"%s\"", rejected);
    int64_t seed = -1;
    if (jget_int(d, o, "init_seed", "architecture.init_seed", 0, 0, (int64_t)POLICY_INIT_SEED_MAX, &seed, e) < 0)
        return -1;
    memset(a, 0, sizeof *a);
    a->has_init_seed = seed >= 0;
    a->init_seed = seed >= 0 ? (uint64_t)seed : 0;
    a->start_device0 = start && strcmp(start, "device0") == 0;
    a->start_heuristic = start && strcmp(start, "heuristic") == 0;
    a->reject_zero = rejected && strcmp(rejected, "zero") == 0;
    a->accept_improving = accept && strcmp(accept, "improving") == 0;
    a->n_devices = (int)nd;
    a->mem_feature = (int)mf;
    a->extended = (int)ext;
    a->n_features = (int)nf;
    a->d = (int)dd;
    a->rounds = (int)r;
    return 0;
}

Policy *placeto_policy_load_doc(const JDoc *d, TrainState *ts, Err *e)
{
    if (ts)
        train_state_init(ts, 1e-3, 1.0, 0);
    Policy *pol = NULL;
    TrainState tmp;
    train_state_init(&tmp, 1e-3, 1.0, 0);
    PolicyArch a;
    if (jdoc_check_header(d, "placeto-policy", e) != 0 || policy_file_check_agent(d, "placeto", e) != 0 ||
        read_arch(d, &a, e) != 0)
        goto fail;
    /* Each weight takes at least two bytes of text ("0,"): refuse an
     * architecture that the file cannot hold before allocating for it (d 1024
     * asks for 5 GB). */
    size_t need = policy_param_count(&a);
    if (need > d->len / 2) {
        jdoc_err(d, e, "architecture", "d %d needs %zu weights, more than this %zu-byte file can hold", a.d,
                 need, d->len);
        goto fail;
    }
    pol = policy_new(&a, 0, e);
    if (!pol) {
        char why[sizeof e->msg];
        snprintf(why, sizeof why, "%s", e ? e->msg : "");
        jdoc_err(d, e, "architecture", "%s", why);
        goto fail;
    }
    if (policy_file_read(d, &pol->p, a.n_devices, &tmp, e) != 0)
        goto fail;
    if (ts)
        *ts = tmp;
    else
        train_state_done(&tmp);
    return pol;
fail:
    policy_free(pol);
    train_state_done(&tmp);
    return NULL;
}

Policy *placeto_policy_load_text(const char *path, const char *text, size_t len, TrainState *ts, Err *e)
{
    JDoc d;
    if (jdoc_parse(&d, path, text, len, e) != 0) {
        if (ts)
            train_state_init(ts, 1e-3, 1.0, 0);
        return NULL;
    }
    Policy *pol = placeto_policy_load_doc(&d, ts, e);
    jdoc_done(&d);
    return pol;
}

Policy *placeto_policy_load(const char *path, TrainState *ts, Err *e)
{
    if (ts)
        train_state_init(ts, 1e-3, 1.0, 0);
    size_t len;
    char *text = util_read_file(path, &len, e);
    if (!text)
        return NULL;
    Policy *pol = placeto_policy_load_text(path, text, len, ts, e);
    free(text);
    if (pol && ts && policy_file_read_checkpoint(path, &pol->p, ts, e) < 0) {
        policy_free(pol);
        return NULL;
    }
    return pol;
}
