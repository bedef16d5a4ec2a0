/* sample: the categorical sampler (sample.h). */
#include "sample.h"

#define SAMPLE_DEFINE(S, R)                                                                        \
    int sample_draw_##S(const R *p, int n, double u)                                              \
    {                                                                                              \
        double acc = 0;                                                                            \
        for (int i = 0; i < n; i++) {                                                              \
            acc += (double)p[i];                                                                   \
            if (u < acc)                                                                           \
                return i;                                                                          \
        }                                                                                          \
        for (int i = n - 1; i > 0; i--) /* rounding left u past the sum */                         \
            if (p[i] > 0)                                                                          \
                return i;                                                                          \
        return 0;                                                                                  \
    }                                                                                              \
    int sample_argmax_##S(const R *p, int n)                                                      \
    {                                                                                              \
        int a = 0;                                                                                 \
        for (int i = 1; i < n; i++)                                                                \
            if (p[i] > p[a])                                                                       \
                a = i;                                                                             \
        return a;                                                                                  \
    }

SAMPLE_DEFINE(f, float)
SAMPLE_DEFINE(d, double)
