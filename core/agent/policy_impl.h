/* policy_impl: the text of the policy's forward and backward passes, included
 * by policy.c once per real type with R (the type), S (the kernel suffix of
 * nn.h), WORK (the work-space struct name) and FN(name) (the function name
 * for this type) defined. Not a public header.
 *
 * Shapes (n nodes, F features, d hidden, D = n_devices, k rounds):
 *   e[n x F] -T0-> relu -T1-> relu -T2-> te[n x d]
 *   per direction (0 down over parents, 1 up over children), x_0 = te:
 *     u1 = relu(x_r f0), u2 = relu(u1 f1), msg_i = sum over neighbours j of u2_j,
 *     z1 = relu(msg g0), z2 = relu(z1 g1), x_{r+1} = has_neighbours ? z2 + te : te
 *   H[n x 2d] = [x_k(down), x_k(up)]
 *   per set s (ancestors, descendants, parallel of v):
 *     a1 = relu(H pf0), a2 = relu(a1 pf1), sum = sum over the set of a2 rows,
 *     b1 = relu(sum pg0), b2 = relu(b1 pg1)                         [2d]
 *   cat = [b2(anc), b2(desc), b2(par), H_v]                          [8d]
 *   h1 = relu(cat h0) [16d], h2 = relu(h1 h1) [8d], logits = h2 h2  [D] */

/* Layout: the n x d arrays have rows of ld = nn_pad(d) values and the
 * n x 2d ones rows of ld2 = nn_pad(2d), so that the float kernels run on
 * whole vectors (nn.h, "Dense layers"); the pad columns never reach the
 * others. Pooling runs on the rows of its set only: the three sets of v are
 * disjoint (group ids are topological: ancestors have smaller ids than v,
 * descendants larger), so their rows together are at most n, kept in set
 * order in one array. Rows outside a set only ever added exact zeros to the
 * sums (their gradient rows are +0), so the bits are those of pooling over
 * every row. */

struct WORK {
    int n, F, d, k, D, v;
    int ld, ld2;                       /* row strides: nn_pad(d), nn_pad(2d) */
    R *e, *t1, *t2, *te;               /* n x F, n x ld (3) */
    R *x[2];                           /* per direction, rounds 1 .. k (round 0 is te) */
    R *u1[2], *u2[2], *msg[2], *z1[2], *z2[2]; /* per direction, per round */
    R *H;                              /* n x ld2 */
    int *set_row;                      /* the sets' rows: set s at set_off[s] .. set_off[s+1) */
    int set_off[4];
    R *hs, *a1, *a2;                   /* n x ld2: rows of H in set order, their pooling layers */
    R *sum[3], *b1[3], *b2[3];         /* ld2 each */
    R *cat, *h1, *h2, *logits;         /* 8d, 16d, 8d, D (each padded) */
    /* backward scratch */
    R *dH, *dA, *dB;                   /* n x ld2 */
    R *dte, *dx, *du, *dz, *dm;        /* n x ld */
    R *dlog, *dh1, *dh2, *dcat;        /* D, 16d, 8d, 8d (padded) */
    R *db1, *db2, *dsum;               /* ld2 each */
    R *mem;
};

static struct WORK *FN(work_new)(const PolicyArch *a, const PolicyGraph *pg)
{
    struct WORK *w = xcalloc(1, sizeof *w);
    w->n = pg->n;
    w->F = a->n_features;
    w->d = a->d;
    w->k = a->rounds;
    w->D = a->n_devices;
    w->ld = nn_pad(a->d);
    w->ld2 = nn_pad(2 * a->d);
    size_t n = (size_t)pg->n, F = (size_t)a->n_features, k = (size_t)a->rounds;
    size_t nl = n * (size_t)w->ld, nl2 = n * (size_t)w->ld2, l2 = (size_t)w->ld2;
    size_t c8 = (size_t)nn_pad(8 * a->d), c16 = (size_t)nn_pad(16 * a->d), cD = (size_t)nn_pad(a->n_devices);
    size_t total = n * F + 3 * nl + 2 * (k * nl + 5 * k * nl) + nl2 + 3 * nl2 + 9 * l2 + c8 + c16 + c8 + cD +
                   3 * nl2 + 5 * nl + cD + c16 + c8 + c8 + 3 * l2;
    R *p = w->mem = xcalloc(total + 1, sizeof *p);
#define TAKE(ptr, count) (ptr = p, p += (count))
    TAKE(w->e, n * F);
    TAKE(w->t1, nl);
    TAKE(w->t2, nl);
    TAKE(w->te, nl);
    for (int dir = 0; dir < 2; dir++) {
        TAKE(w->x[dir], k * nl);
        TAKE(w->u1[dir], k * nl);
        TAKE(w->u2[dir], k * nl);
        TAKE(w->msg[dir], k * nl);
        TAKE(w->z1[dir], k * nl);
        TAKE(w->z2[dir], k * nl);
    }
    TAKE(w->H, nl2);
    TAKE(w->hs, nl2);
    TAKE(w->a1, nl2);
    TAKE(w->a2, nl2);
    for (int s = 0; s < 3; s++) {
        TAKE(w->sum[s], l2);
        TAKE(w->b1[s], l2);
        TAKE(w->b2[s], l2);
    }
    TAKE(w->cat, c8);
    TAKE(w->h1, c16);
    TAKE(w->h2, c8);
    TAKE(w->logits, cD);
    TAKE(w->dH, nl2);
    TAKE(w->dA, nl2);
    TAKE(w->dB, nl2);
    TAKE(w->dte, nl);
    TAKE(w->dx, nl);
    TAKE(w->du, nl);
    TAKE(w->dz, nl);
    TAKE(w->dm, nl);
    TAKE(w->dlog, cD);
    TAKE(w->dh1, c16);
    TAKE(w->dh2, c8);
    TAKE(w->dcat, c8);
    TAKE(w->db1, l2);
    TAKE(w->db2, l2);
    TAKE(w->dsum, l2);
#undef TAKE
    w->set_row = xnew_array(n + 1, sizeof *w->set_row);
    return w;
}

static void FN(work_free)(struct WORK *w)
{
    if (!w)
        return;
    free(w->set_row);
    free(w->mem);
    free(w);
}

/* Y = relu(X W + b), or without the ReLU; X and Y with row strides. */
#define DENSE(idx, rows, in, out, X, ldx, relu, Y, ldy)                                              \
    NN_CAT(nn_dense_fwd_, S)(pol->blas, rows, in, out, X, ldx, W + T[idx].off, W + T[(idx) + 1].off, relu, Y, \
                             ldy)
/* the layer's gradients, and dX = dY W^T through the ReLU whose output
 * was X when relu is 1 */
#define DENSEB(idx, rows, in, out, X, ldx, relu, dY, ldy, dX, lddx)                                    \
    NN_CAT(nn_dense_bwd_, S)(pol->blas, rows, in, out, X, ldx, W + T[idx].off, dY, ldy, (relu) ? X : NULL, \
                             dX, lddx, G + T[idx].off, G + T[(idx) + 1].off)
#define RELUB(Y, dY, count) NN_CAT(nn_relu_bwd_, S)(Y, dY, (size_t)(count))

/* x_r of direction dir: te for r = 0 */
static R *FN(x_round)(struct WORK *w, int dir, int r)
{
    return r == 0 ? w->te : w->x[dir] + (size_t)(r - 1) * (size_t)w->n * (size_t)w->ld;
}

/* x_{r+1} = z2 + te on the rows with neighbours, 0 + te on the others */
static void FN(next_round)(int n, int ld, const int *off, const R *restrict z2, const R *restrict te,
                           R *restrict xn)
{
    size_t nl = (size_t)n * (size_t)ld;
    for (size_t q = 0; q < nl; q++)
        xn[q] = z2[q] + te[q];
    for (int i = 0; i < n; i++)
        if (off[i + 1] == off[i])
            for (size_t q = (size_t)i * (size_t)ld; q < (size_t)(i + 1) * (size_t)ld; q++)
                xn[q] = 0 + te[q];
}

/* The node transform and message passing: H from feats (every node's
 * embedding, the same whichever node is current). */
static void FN(embed)(const Policy *pol, const R *W, const PolicyGraph *pg, struct WORK *w, const R *feats)
{
    const NnTensor *T = pol->p.t;
    int n = w->n, F = w->F, d = w->d, k = w->k, ld = w->ld, ld2 = w->ld2;
    size_t nl = (size_t)n * (size_t)ld;
    memcpy(w->e, feats, (size_t)n * (size_t)F * sizeof *w->e);
    DENSE(P_T0, n, F, d, w->e, F, 1, w->t1, ld);
    DENSE(P_T1, n, d, d, w->t1, ld, 1, w->t2, ld);
    DENSE(P_T2, n, d, d, w->t2, ld, 0, w->te, ld);
    for (int dir = 0; dir < 2; dir++) {
        int base = P_MP + 8 * dir;
        const int *off = dir ? pg->ch_off : pg->par_off, *nb = dir ? pg->ch : pg->par;
        for (int r = 0; r < k; r++) {
            const R *x = FN(x_round)(w, dir, r);
            R *xn = FN(x_round)(w, dir, r + 1);
            R *u1 = w->u1[dir] + (size_t)r * nl, *u2 = w->u2[dir] + (size_t)r * nl;
            R *msg = w->msg[dir] + (size_t)r * nl, *z1 = w->z1[dir] + (size_t)r * nl;
            R *z2 = w->z2[dir] + (size_t)r * nl;
            DENSE(base + 0, n, d, d, x, ld, 1, u1, ld);
            DENSE(base + 2, n, d, d, u1, ld, 1, u2, ld);
            NN_CAT(nn_rows_gather_, S)(n, off, nb, u2, ld, msg);
            DENSE(base + 4, n, d, d, msg, ld, 1, z1, ld);
            DENSE(base + 6, n, d, d, z1, ld, 1, z2, ld);
            FN(next_round)(n, ld, off, z2, w->te, xn);
        }
        const R *xk = FN(x_round)(w, dir, k);
        for (int i = 0; i < n; i++)
            memcpy(w->H + (size_t)i * (size_t)ld2 + (size_t)(dir * d), xk + (size_t)i * (size_t)ld,
                   (size_t)d * sizeof *xk);
    }
}

static void FN(forward)(const Policy *pol, const R *W, const PolicyGraph *pg, struct WORK *w,
                        const R *feats, int v)
{
    const NnTensor *T = pol->p.t;
    int n = w->n, d = w->d, D = w->D, d2 = 2 * d, ld2 = w->ld2;
    w->v = v;
    FN(embed)(pol, W, pg, w, feats);
    /* the three sets of v, each in increasing order */
    int m = 0;
    for (int s = 0; s < 3; s++) {
        w->set_off[s] = m;
        for (int j = 0; j < n; j++) {
            int an = policy_graph_is_anc(pg, v, j), de = policy_graph_is_desc(pg, v, j);
            int in = s == 0 ? an : s == 1 ? de && !an : j != v && !an && !de;
            if (in)
                w->set_row[m++] = j;
        }
    }
    w->set_off[3] = m;
    for (int s = 0; s < 3; s++) {
        int base = P_POOL + 8 * s, o = w->set_off[s], ms = w->set_off[s + 1] - o;
        R *hs = w->hs + (size_t)o * (size_t)ld2, *a1 = w->a1 + (size_t)o * (size_t)ld2;
        R *a2 = w->a2 + (size_t)o * (size_t)ld2;
        memset(w->sum[s], 0, (size_t)ld2 * sizeof *w->sum[s]);
        if (ms > 0) {
            for (int j = 0; j < ms; j++)
                memcpy(hs + (size_t)j * (size_t)ld2, w->H + (size_t)w->set_row[o + j] * (size_t)ld2,
                       (size_t)ld2 * sizeof *hs);
            DENSE(base + 0, ms, d2, d2, hs, ld2, 1, a1, ld2);
            DENSE(base + 2, ms, d2, d2, a1, ld2, 1, a2, ld2);
            for (int j = 0; j < ms; j++)
                for (int c = 0; c < ld2; c++)
                    w->sum[s][c] += a2[(size_t)j * (size_t)ld2 + (size_t)c];
        }
        DENSE(base + 4, 1, d2, d2, w->sum[s], ld2, 1, w->b1[s], ld2);
        DENSE(base + 6, 1, d2, d2, w->b1[s], ld2, 1, w->b2[s], ld2);
        memcpy(w->cat + (size_t)(s * d2), w->b2[s], (size_t)d2 * sizeof *w->cat);
    }
    memcpy(w->cat + 3 * (size_t)d2, w->H + (size_t)v * (size_t)ld2, (size_t)d2 * sizeof *w->cat);
    DENSE(P_HEAD + 0, 1, 8 * d, 16 * d, w->cat, 8 * d, 1, w->h1, nn_pad(16 * d));
    DENSE(P_HEAD + 2, 1, 16 * d, 8 * d, w->h1, 16 * d, 1, w->h2, nn_pad(8 * d));
    DENSE(P_HEAD + 4, 1, 8 * d, D, w->h2, 8 * d, 0, w->logits, nn_pad(D));
}

static void FN(embed_backward)(const Policy *pol, const R *W, const PolicyGraph *pg, struct WORK *w, R *G);

static void FN(backward)(const Policy *pol, const R *W, const PolicyGraph *pg, struct WORK *w,
                         const R *dlogits, R *G)
{
    const NnTensor *T = pol->p.t;
    int n = w->n, d = w->d, D = w->D, d2 = 2 * d, v = w->v, ld2 = w->ld2;
    size_t nl2 = (size_t)n * (size_t)ld2;
    int p8 = nn_pad(8 * d), p16 = nn_pad(16 * d), pD = nn_pad(D);
    /* head */
    memcpy(w->dlog, dlogits, (size_t)D * sizeof *w->dlog);
    DENSEB(P_HEAD + 4, 1, 8 * d, D, w->h2, p8, 1, w->dlog, pD, w->dh2, p8);
    DENSEB(P_HEAD + 2, 1, 16 * d, 8 * d, w->h1, p16, 1, w->dh2, p8, w->dh1, p16);
    DENSEB(P_HEAD + 0, 1, 8 * d, 16 * d, w->cat, p8, 0, w->dh1, p16, w->dcat, p8);
    memset(w->dH, 0, nl2 * sizeof *w->dH);
    for (int c = 0; c < d2; c++)
        w->dH[(size_t)v * (size_t)ld2 + (size_t)c] += w->dcat[3 * d2 + c];
    /* pooling */
    for (int s = 0; s < 3; s++) {
        int base = P_POOL + 8 * s, o = w->set_off[s], ms = w->set_off[s + 1] - o;
        memcpy(w->db2, w->dcat + (size_t)(s * d2), (size_t)d2 * sizeof *w->db2);
        RELUB(w->b2[s], w->db2, d2);
        DENSEB(base + 6, 1, d2, d2, w->b1[s], ld2, 1, w->db2, ld2, w->db1, ld2);
        DENSEB(base + 4, 1, d2, d2, w->sum[s], ld2, 0, w->db1, ld2, w->dsum, ld2);
        if (ms == 0)
            continue;
        const R *hs = w->hs + (size_t)o * (size_t)ld2, *a1 = w->a1 + (size_t)o * (size_t)ld2;
        const R *a2 = w->a2 + (size_t)o * (size_t)ld2;
        size_t m2 = (size_t)ms * (size_t)ld2;
        for (int j = 0; j < ms; j++)
            memcpy(w->dA + (size_t)j * (size_t)ld2, w->dsum, (size_t)ld2 * sizeof *w->dA);
        RELUB(a2, w->dA, m2);
        DENSEB(base + 2, ms, d2, d2, a1, ld2, 1, w->dA, ld2, w->dB, ld2);
        DENSEB(base + 0, ms, d2, d2, hs, ld2, 0, w->dB, ld2, w->dA, ld2);
        for (int j = 0; j < ms; j++) {
            R *row = w->dH + (size_t)w->set_row[o + j] * (size_t)ld2;
            const R *src = w->dA + (size_t)j * (size_t)ld2;
            for (int c = 0; c < ld2; c++)
                row[c] += src[c];
        }
    }
    FN(embed_backward)(pol, W, pg, w, G);
}

/* The backward pass of FN(embed) from dL/dH in w->dH: the gradients of
 * the message passing and the node transform. */
static void FN(embed_backward)(const Policy *pol, const R *W, const PolicyGraph *pg, struct WORK *w, R *G)
{
    const NnTensor *T = pol->p.t;
    int n = w->n, F = w->F, d = w->d, k = w->k, ld = w->ld, ld2 = w->ld2;
    size_t nl = (size_t)n * (size_t)ld;
    /* message passing, last round first */
    memset(w->dte, 0, nl * sizeof *w->dte);
    for (int dir = 0; dir < 2; dir++) {
        int base = P_MP + 8 * dir;
        const int *off = dir ? pg->ch_off : pg->par_off, *nb = dir ? pg->ch : pg->par;
        R *dx = w->dx, *du = w->du, *dz = w->dz, *dm = w->dm;
        for (int i = 0; i < n; i++)
            memcpy(dx + (size_t)i * (size_t)ld, w->dH + (size_t)i * (size_t)ld2 + (size_t)(dir * d),
                   (size_t)d * sizeof *dx);
        for (int r = k - 1; r >= 0; r--) {
            const R *x = FN(x_round)(w, dir, r);
            const R *u1 = w->u1[dir] + (size_t)r * nl, *u2 = w->u2[dir] + (size_t)r * nl;
            const R *msg = w->msg[dir] + (size_t)r * nl, *z1 = w->z1[dir] + (size_t)r * nl;
            const R *z2 = w->z2[dir] + (size_t)r * nl;
            for (size_t q = 0; q < nl; q++)
                w->dte[q] += dx[q];
            memcpy(dz, dx, nl * sizeof *dz); /* d z2: dx on the rows with neighbours */
            for (int i = 0; i < n; i++)
                if (off[i + 1] == off[i])
                    memset(dz + (size_t)i * (size_t)ld, 0, (size_t)ld * sizeof *dz);
            RELUB(z2, dz, nl);
            DENSEB(base + 6, n, d, d, z1, ld, 1, dz, ld, du, ld);
            DENSEB(base + 4, n, d, d, msg, ld, 0, du, ld, dm, ld);
            memset(du, 0, nl * sizeof *du); /* du: d u2 */
            NN_CAT(nn_rows_scatter_, S)(n, off, nb, dm, ld, du);
            RELUB(u2, du, nl);
            DENSEB(base + 2, n, d, d, u1, ld, 1, du, ld, dz, ld);
            DENSEB(base + 0, n, d, d, x, ld, 0, dz, ld, dx, ld);
        }
        for (size_t q = 0; q < nl; q++)
            w->dte[q] += dx[q];
    }
    /* node transform */
    DENSEB(P_T2, n, d, d, w->t2, ld, 1, w->dte, ld, w->du, ld);
    DENSEB(P_T1, n, d, d, w->t1, ld, 1, w->du, ld, w->dx, ld);
    DENSEB(P_T0, n, F, d, w->e, F, 0, w->dx, ld, NULL, 0);
}

/* ---- every node's head at once (policy_forward_all) ----
 * The embedding H once, then per set s the pooling layers f0, f1 of every
 * row (a1, a2: n x ld2), per node v the sum of a2 over v's set (the rows in
 * increasing order, as FN(forward) adds them), the g layers and the head,
 * each one product over the n nodes' rows. */
struct WORKB {
    struct WORK *w;                    /* the embedding's (H, dH and the message passing) */
    int p8, p16, pD;
    R *a1[3], *a2[3], *sum[3], *b1[3], *b2[3]; /* n x ld2 each */
    R *cat, *h1, *h2, *logits;         /* n x p8, n x p16, n x p8, n x pD */
    R *dlog, *dh1, *dh2, *dcat;        /* n x pD, n x p16, n x p8, n x p8 */
    R *db1, *db2, *dsum[3], *da[3], *dx; /* n x ld2 each */
    R *mem;
};

static struct WORKB *FN(batch_new)(const PolicyArch *a, const PolicyGraph *pg)
{
    struct WORKB *b = xcalloc(1, sizeof *b);
    b->w = FN(work_new)(a, pg);
    b->p8 = nn_pad(8 * a->d);
    b->p16 = nn_pad(16 * a->d);
    b->pD = nn_pad(a->n_devices);
    size_t n = (size_t)pg->n, nl2 = n * (size_t)b->w->ld2;
    size_t total = 24 * nl2 + n * (size_t)(b->p8 * 4 + b->p16 * 2 + b->pD * 2) + 1;
    R *p = b->mem = xcalloc(total, sizeof *p);
#define TAKE(ptr, count) (ptr = p, p += (count))
    for (int s = 0; s < 3; s++) {
        TAKE(b->a1[s], nl2);
        TAKE(b->a2[s], nl2);
        TAKE(b->sum[s], nl2);
        TAKE(b->b1[s], nl2);
        TAKE(b->b2[s], nl2);
        TAKE(b->dsum[s], nl2);
        TAKE(b->da[s], nl2);
    }
    TAKE(b->cat, n * (size_t)b->p8);
    TAKE(b->h1, n * (size_t)b->p16);
    TAKE(b->h2, n * (size_t)b->p8);
    TAKE(b->logits, n * (size_t)b->pD);
    TAKE(b->dlog, n * (size_t)b->pD);
    TAKE(b->dh1, n * (size_t)b->p16);
    TAKE(b->dh2, n * (size_t)b->p8);
    TAKE(b->dcat, n * (size_t)b->p8);
    TAKE(b->db1, nl2);
    TAKE(b->db2, nl2);
    TAKE(b->dx, nl2);
#undef TAKE
    return b;
}

static void FN(batch_free)(struct WORKB *b)
{
    if (!b)
        return;
    FN(work_free)(b->w);
    free(b->mem);
    free(b);
}

/* The set of node v that node j is in: 0 its ancestors, 1 its
 * descendants, 2 the parallel nodes, -1 for v itself. */
static inline int FN(set_of)(const PolicyGraph *pg, int v, int j)
{
    return policy_graph_is_anc(pg, v, j) ? 0 : policy_graph_is_desc(pg, v, j) ? 1 : j != v ? 2 : -1;
}

static void FN(forward_all)(const Policy *pol, const R *W, const PolicyGraph *pg, struct WORKB *b, const R *feats)
{
    const NnTensor *T = pol->p.t;
    struct WORK *w = b->w;
    int n = w->n, d = w->d, D = w->D, d2 = 2 * d, ld2 = w->ld2, p8 = b->p8, p16 = b->p16, pD = b->pD;
    size_t nl2 = (size_t)n * (size_t)ld2;
    FN(embed)(pol, W, pg, w, feats);
    for (int s = 0; s < 3; s++) {
        DENSE(P_POOL + 8 * s + 0, n, d2, d2, w->H, ld2, 1, b->a1[s], ld2);
        DENSE(P_POOL + 8 * s + 2, n, d2, d2, b->a1[s], ld2, 1, b->a2[s], ld2);
        memset(b->sum[s], 0, nl2 * sizeof *b->sum[s]);
    }
    for (int v = 0; v < n; v++)
        for (int j = 0; j < n; j++) {
            int s = FN(set_of)(pg, v, j);
            if (s < 0)
                continue;
            R *sum = b->sum[s] + (size_t)v * (size_t)ld2;
            const R *a2 = b->a2[s] + (size_t)j * (size_t)ld2;
            for (int c = 0; c < ld2; c++)
                sum[c] += a2[c];
        }
    for (int s = 0; s < 3; s++) {
        DENSE(P_POOL + 8 * s + 4, n, d2, d2, b->sum[s], ld2, 1, b->b1[s], ld2);
        DENSE(P_POOL + 8 * s + 6, n, d2, d2, b->b1[s], ld2, 1, b->b2[s], ld2);
        for (int v = 0; v < n; v++)
            memcpy(b->cat + (size_t)v * (size_t)p8 + (size_t)(s * d2), b->b2[s] + (size_t)v * (size_t)ld2,
                   (size_t)d2 * sizeof *b->cat);
    }
    for (int v = 0; v < n; v++)
        memcpy(b->cat + (size_t)v * (size_t)p8 + 3 * (size_t)d2, w->H + (size_t)v * (size_t)ld2,
               (size_t)d2 * sizeof *b->cat);
    DENSE(P_HEAD + 0, n, 8 * d, 16 * d, b->cat, p8, 1, b->h1, p16);
    DENSE(P_HEAD + 2, n, 16 * d, 8 * d, b->h1, p16, 1, b->h2, p8);
    DENSE(P_HEAD + 4, n, 8 * d, D, b->h2, p8, 0, b->logits, pD);
}

/* The backward pass of the last FN(forward_all) on b for dL/dlogits
 * dlogits [n x D] (row v: node v's logits). */
static void FN(backward_all)(const Policy *pol, const R *W, const PolicyGraph *pg, struct WORKB *b,
                             const R *dlogits, R *G)
{
    const NnTensor *T = pol->p.t;
    struct WORK *w = b->w;
    int n = w->n, d = w->d, D = w->D, d2 = 2 * d, ld2 = w->ld2, p8 = b->p8, p16 = b->p16, pD = b->pD;
    size_t nl2 = (size_t)n * (size_t)ld2;
    memset(b->dlog, 0, (size_t)n * (size_t)pD * sizeof *b->dlog);
    for (int v = 0; v < n; v++)
        memcpy(b->dlog + (size_t)v * (size_t)pD, dlogits + (size_t)v * (size_t)D, (size_t)D * sizeof *b->dlog);
    DENSEB(P_HEAD + 4, n, 8 * d, D, b->h2, p8, 1, b->dlog, pD, b->dh2, p8);
    DENSEB(P_HEAD + 2, n, 16 * d, 8 * d, b->h1, p16, 1, b->dh2, p8, b->dh1, p16);
    DENSEB(P_HEAD + 0, n, 8 * d, 16 * d, b->cat, p8, 0, b->dh1, p16, b->dcat, p8);
    memset(w->dH, 0, nl2 * sizeof *w->dH);
    for (int v = 0; v < n; v++)
        for (int c = 0; c < d2; c++)
            w->dH[(size_t)v * (size_t)ld2 + (size_t)c] += b->dcat[(size_t)v * (size_t)p8 + (size_t)(3 * d2 + c)];
    for (int s = 0; s < 3; s++) {
        int base = P_POOL + 8 * s;
        memset(b->db2, 0, nl2 * sizeof *b->db2);
        for (int v = 0; v < n; v++)
            memcpy(b->db2 + (size_t)v * (size_t)ld2, b->dcat + (size_t)v * (size_t)p8 + (size_t)(s * d2),
                   (size_t)d2 * sizeof *b->db2);
        RELUB(b->b2[s], b->db2, nl2);
        DENSEB(base + 6, n, d2, d2, b->b1[s], ld2, 1, b->db2, ld2, b->db1, ld2);
        DENSEB(base + 4, n, d2, d2, b->sum[s], ld2, 0, b->db1, ld2, b->dsum[s], ld2);
        memset(b->da[s], 0, nl2 * sizeof *b->da[s]);
    }
    /* every a2 row receives the sums' gradients of the nodes whose set holds it */
    for (int v = 0; v < n; v++)
        for (int j = 0; j < n; j++) {
            int s = FN(set_of)(pg, v, j);
            if (s < 0)
                continue;
            R *da = b->da[s] + (size_t)j * (size_t)ld2;
            const R *ds = b->dsum[s] + (size_t)v * (size_t)ld2;
            for (int c = 0; c < ld2; c++)
                da[c] += ds[c];
        }
    for (int s = 0; s < 3; s++) {
        int base = P_POOL + 8 * s;
        RELUB(b->a2[s], b->da[s], nl2);
        DENSEB(base + 2, n, d2, d2, b->a1[s], ld2, 1, b->da[s], ld2, b->db1, ld2);
        DENSEB(base + 0, n, d2, d2, w->H, ld2, 0, b->db1, ld2, b->dx, ld2);
        for (size_t q = 0; q < nl2; q++)
            w->dH[q] += b->dx[q];
    }
    FN(embed_backward)(pol, W, pg, w, G);
}

#undef DENSE
#undef DENSEB
#undef RELUB
