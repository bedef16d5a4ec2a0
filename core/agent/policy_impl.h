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

struct WORK {
    int n, F, d, k, D, v;
    R *e, *t1, *t2, *te;               /* n x F, n x d (3) */
    R *x[2], *u1[2], *u2[2], *msg[2], *z1[2], *z2[2]; /* per direction, per round */
    R *H;                              /* n x 2d */
    unsigned char *in_set[3];          /* n each */
    int set_size[3];
    R *a1[3], *a2[3];                  /* n x 2d */
    R *sum[3], *b1[3], *b2[3];         /* 2d */
    R *cat, *h1, *h2, *logits;         /* 8d, 16d, 8d, D */
    /* backward scratch */
    R *dH, *dA, *dB, *dte, *dx, *du, *dv2; /* n x 2d (3), n x d (4) */
    R *dsmall;                         /* 2 * 16d */
    R *dcat;                           /* 8d */
    R *mem;
};

static struct WORK *FN(work_new)(const PolicyArch *a, const PolicyGraph *pg)
{
    struct WORK *w = xcalloc(1, sizeof *w);
    size_t n = (size_t)pg->n, F = (size_t)a->n_features, d = (size_t)a->d, k = (size_t)a->rounds;
    size_t D = (size_t)a->n_devices;
    w->n = pg->n;
    w->F = a->n_features;
    w->d = a->d;
    w->k = a->rounds;
    w->D = a->n_devices;
    size_t total = n * F + 3 * n * d + 2 * ((k + 1) * n * d + 5 * k * n * d) + n * 2 * d +
                   3 * (2 * n * 2 * d + 3 * 2 * d) + 8 * d + 16 * d + 8 * d + D +
                   3 * n * 2 * d + 4 * n * d + 2 * 16 * d + 8 * d;
    R *p = w->mem = xcalloc(total + 1, sizeof *p);
#define TAKE(ptr, count) (ptr = p, p += (count))
    TAKE(w->e, n * F);
    TAKE(w->t1, n * d);
    TAKE(w->t2, n * d);
    TAKE(w->te, n * d);
    for (int dir = 0; dir < 2; dir++) {
        TAKE(w->x[dir], (k + 1) * n * d);
        TAKE(w->u1[dir], k * n * d);
        TAKE(w->u2[dir], k * n * d);
        TAKE(w->msg[dir], k * n * d);
        TAKE(w->z1[dir], k * n * d);
        TAKE(w->z2[dir], k * n * d);
    }
    TAKE(w->H, n * 2 * d);
    for (int s = 0; s < 3; s++) {
        TAKE(w->a1[s], n * 2 * d);
        TAKE(w->a2[s], n * 2 * d);
        TAKE(w->sum[s], 2 * d);
        TAKE(w->b1[s], 2 * d);
        TAKE(w->b2[s], 2 * d);
        w->in_set[s] = xcalloc(n + 1, 1);
    }
    TAKE(w->cat, 8 * d);
    TAKE(w->h1, 16 * d);
    TAKE(w->h2, 8 * d);
    TAKE(w->logits, D);
    TAKE(w->dH, n * 2 * d);
    TAKE(w->dA, n * 2 * d);
    TAKE(w->dB, n * 2 * d);
    TAKE(w->dte, n * d);
    TAKE(w->dx, n * d);
    TAKE(w->du, n * d);
    TAKE(w->dv2, n * d);
    TAKE(w->dsmall, 2 * 16 * d);
    TAKE(w->dcat, 8 * d);
#undef TAKE
    return w;
}

static void FN(work_free)(struct WORK *w)
{
    if (!w)
        return;
    for (int s = 0; s < 3; s++)
        free(w->in_set[s]);
    free(w->mem);
    free(w);
}

/* Y = relu(X W + b) or without the ReLU. */
#define LIN(idx, rows, in, out, X, Y)                                                       \
    NN_CAT(nn_linear_fwd_, S)(pol->blas, rows, in, out, X, W + T[idx].off, W + T[(idx) + 1].off, Y)
#define LINB(idx, rows, in, out, X, dY, dX)                                                  \
    NN_CAT(nn_linear_bwd_, S)(pol->blas, rows, in, out, X, W + T[idx].off, dY, dX,          \
                             G + T[idx].off, G + T[(idx) + 1].off)
#define RELU(Y, count) NN_CAT(nn_relu_, S)(Y, (size_t)(count))
#define RELUB(Y, dY, count) NN_CAT(nn_relu_bwd_, S)(Y, dY, (size_t)(count))

static void FN(forward)(const Policy *pol, const R *W, const PolicyGraph *pg, struct WORK *w,
                        const R *feats, int v)
{
    const NnTensor *T = pol->p.t;
    int n = w->n, F = w->F, d = w->d, k = w->k, D = w->D, d2 = 2 * d;
    size_t nd = (size_t)n * (size_t)d;
    w->v = v;
    memcpy(w->e, feats, (size_t)n * (size_t)F * sizeof *w->e);
    LIN(P_T0, n, F, d, w->e, w->t1);
    RELU(w->t1, nd);
    LIN(P_T1, n, d, d, w->t1, w->t2);
    RELU(w->t2, nd);
    LIN(P_T2, n, d, d, w->t2, w->te);
    for (int dir = 0; dir < 2; dir++) {
        int base = P_MP + 8 * dir;
        const int *off = dir ? pg->ch_off : pg->par_off, *nb = dir ? pg->ch : pg->par;
        memcpy(w->x[dir], w->te, nd * sizeof *w->te);
        for (int r = 0; r < k; r++) {
            R *x = w->x[dir] + (size_t)r * nd, *xn = x + nd;
            R *u1 = w->u1[dir] + (size_t)r * nd, *u2 = w->u2[dir] + (size_t)r * nd;
            R *msg = w->msg[dir] + (size_t)r * nd, *z1 = w->z1[dir] + (size_t)r * nd;
            R *z2 = w->z2[dir] + (size_t)r * nd;
            LIN(base + 0, n, d, d, x, u1);
            RELU(u1, nd);
            LIN(base + 2, n, d, d, u1, u2);
            RELU(u2, nd);
            memset(msg, 0, nd * sizeof *msg);
            for (int i = 0; i < n; i++)
                for (int q = off[i]; q < off[i + 1]; q++) {
                    const R *src = u2 + (size_t)nb[q] * (size_t)d;
                    R *dst = msg + (size_t)i * (size_t)d;
                    for (int c = 0; c < d; c++)
                        dst[c] += src[c];
                }
            LIN(base + 4, n, d, d, msg, z1);
            RELU(z1, nd);
            LIN(base + 6, n, d, d, z1, z2);
            RELU(z2, nd);
            for (int i = 0; i < n; i++) {
                int has = off[i + 1] > off[i];
                for (int c = 0; c < d; c++) {
                    size_t o = (size_t)i * (size_t)d + (size_t)c;
                    xn[o] = (has ? z2[o] : 0) + w->te[o];
                }
            }
        }
        const R *xk = w->x[dir] + (size_t)k * nd;
        for (int i = 0; i < n; i++)
            memcpy(w->H + (size_t)i * (size_t)d2 + (size_t)(dir * d), xk + (size_t)i * (size_t)d,
                   (size_t)d * sizeof *xk);
    }
    /* the three sets of v */
    for (int s = 0; s < 3; s++)
        w->set_size[s] = 0;
    for (int j = 0; j < n; j++) {
        int an = policy_graph_is_anc(pg, v, j), de = policy_graph_is_desc(pg, v, j);
        w->in_set[0][j] = (unsigned char)an;
        w->in_set[1][j] = (unsigned char)de;
        w->in_set[2][j] = (unsigned char)(j != v && !an && !de);
        for (int s = 0; s < 3; s++)
            w->set_size[s] += w->in_set[s][j];
    }
    size_t n2 = (size_t)n * (size_t)d2;
    for (int s = 0; s < 3; s++) {
        int base = P_POOL + 8 * s;
        memset(w->sum[s], 0, (size_t)d2 * sizeof *w->sum[s]);
        if (w->set_size[s] > 0) {
            LIN(base + 0, n, d2, d2, w->H, w->a1[s]);
            RELU(w->a1[s], n2);
            LIN(base + 2, n, d2, d2, w->a1[s], w->a2[s]);
            RELU(w->a2[s], n2);
            for (int j = 0; j < n; j++)
                if (w->in_set[s][j])
                    for (int c = 0; c < d2; c++)
                        w->sum[s][c] += w->a2[s][(size_t)j * (size_t)d2 + (size_t)c];
        }
        LIN(base + 4, 1, d2, d2, w->sum[s], w->b1[s]);
        RELU(w->b1[s], d2);
        LIN(base + 6, 1, d2, d2, w->b1[s], w->b2[s]);
        RELU(w->b2[s], d2);
        memcpy(w->cat + (size_t)(s * d2), w->b2[s], (size_t)d2 * sizeof *w->cat);
    }
    memcpy(w->cat + 3 * (size_t)d2, w->H + (size_t)v * (size_t)d2, (size_t)d2 * sizeof *w->cat);
    LIN(P_HEAD + 0, 1, 8 * d, 16 * d, w->cat, w->h1);
    RELU(w->h1, 16 * d);
    LIN(P_HEAD + 2, 1, 16 * d, 8 * d, w->h1, w->h2);
    RELU(w->h2, 8 * d);
    LIN(P_HEAD + 4, 1, 8 * d, D, w->h2, w->logits);
}

static void FN(backward)(const Policy *pol, const R *W, const PolicyGraph *pg, struct WORK *w,
                         const R *dlogits, R *G)
{
    const NnTensor *T = pol->p.t;
    int n = w->n, F = w->F, d = w->d, k = w->k, D = w->D, d2 = 2 * d, v = w->v;
    size_t nd = (size_t)n * (size_t)d, n2 = (size_t)n * (size_t)d2;
    R *dh2 = w->dsmall, *dh1 = w->dsmall + 8 * d; /* 8d, 16d */
    R *dcatp = w->dcat;
    /* head */
    LINB(P_HEAD + 4, 1, 8 * d, D, w->h2, dlogits, dh2);
    RELUB(w->h2, dh2, 8 * d);
    LINB(P_HEAD + 2, 1, 16 * d, 8 * d, w->h1, dh2, dh1);
    RELUB(w->h1, dh1, 16 * d);
    LINB(P_HEAD + 0, 1, 8 * d, 16 * d, w->cat, dh1, dcatp);
    memset(w->dH, 0, n2 * sizeof *w->dH);
    for (int c = 0; c < d2; c++)
        w->dH[(size_t)v * (size_t)d2 + (size_t)c] += dcatp[3 * d2 + c];
    /* pooling */
    for (int s = 0; s < 3; s++) {
        int base = P_POOL + 8 * s;
        R *db2 = dh1, *db1 = dh2, *dsum = dh2 + d2; /* reuse: 2d each */
        memcpy(db2, dcatp + (size_t)(s * d2), (size_t)d2 * sizeof *db2);
        RELUB(w->b2[s], db2, d2);
        LINB(base + 6, 1, d2, d2, w->b1[s], db2, db1);
        RELUB(w->b1[s], db1, d2);
        LINB(base + 4, 1, d2, d2, w->sum[s], db1, dsum);
        if (w->set_size[s] == 0)
            continue;
        for (int j = 0; j < n; j++) {
            R *row = w->dA + (size_t)j * (size_t)d2;
            if (w->in_set[s][j])
                memcpy(row, dsum, (size_t)d2 * sizeof *row);
            else
                memset(row, 0, (size_t)d2 * sizeof *row);
        }
        RELUB(w->a2[s], w->dA, n2);
        LINB(base + 2, n, d2, d2, w->a1[s], w->dA, w->dB);
        RELUB(w->a1[s], w->dB, n2);
        LINB(base + 0, n, d2, d2, w->H, w->dB, w->dA);
        for (size_t q = 0; q < n2; q++)
            w->dH[q] += w->dA[q];
    }
    /* message passing, last round first */
    memset(w->dte, 0, nd * sizeof *w->dte);
    for (int dir = 0; dir < 2; dir++) {
        int base = P_MP + 8 * dir;
        const int *off = dir ? pg->ch_off : pg->par_off, *nb = dir ? pg->ch : pg->par;
        R *dx = w->dx, *du = w->du, *dz = w->dv2, *dm = w->dB; /* dm: n x d in dB */
        for (int i = 0; i < n; i++)
            memcpy(dx + (size_t)i * (size_t)d, w->dH + (size_t)i * (size_t)d2 + (size_t)(dir * d),
                   (size_t)d * sizeof *dx);
        for (int r = k - 1; r >= 0; r--) {
            R *x = w->x[dir] + (size_t)r * nd;
            R *u1 = w->u1[dir] + (size_t)r * nd, *u2 = w->u2[dir] + (size_t)r * nd;
            R *msg = w->msg[dir] + (size_t)r * nd, *z1 = w->z1[dir] + (size_t)r * nd;
            R *z2 = w->z2[dir] + (size_t)r * nd;
            for (size_t q = 0; q < nd; q++)
                w->dte[q] += dx[q];
            for (int i = 0; i < n; i++) {
                int has = off[i + 1] > off[i];
                for (int c = 0; c < d; c++) {
                    size_t o = (size_t)i * (size_t)d + (size_t)c;
                    dz[o] = has ? dx[o] : 0;
                }
            }
            RELUB(z2, dz, nd);
            LINB(base + 6, n, d, d, z1, dz, du);
            RELUB(z1, du, nd);
            LINB(base + 4, n, d, d, msg, du, dm);
            memset(du, 0, nd * sizeof *du); /* du: d u2 */
            for (int i = 0; i < n; i++)
                for (int q = off[i]; q < off[i + 1]; q++) {
                    R *dst = du + (size_t)nb[q] * (size_t)d;
                    const R *src = dm + (size_t)i * (size_t)d;
                    for (int c = 0; c < d; c++)
                        dst[c] += src[c];
                }
            RELUB(u2, du, nd);
            LINB(base + 2, n, d, d, u1, du, dz);
            RELUB(u1, dz, nd);
            LINB(base + 0, n, d, d, x, dz, dx);
        }
        for (size_t q = 0; q < nd; q++)
            w->dte[q] += dx[q];
    }
    /* node transform */
    LINB(P_T2, n, d, d, w->t2, w->dte, w->du);
    RELUB(w->t2, w->du, nd);
    LINB(P_T1, n, d, d, w->t1, w->du, w->dx);
    RELUB(w->t1, w->dx, nd);
    LINB(P_T0, n, F, d, w->e, w->dx, NULL);
}

#undef LIN
#undef LINB
#undef RELU
#undef RELUB
