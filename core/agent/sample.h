/* sample: the one categorical sampler of every learned placer. A draw takes
 * one uniform u in [0, 1) and walks the running sum of p (in double); when
 * rounding leaves u at or past the sum, it takes the last value with a
 * nonzero probability (never a device the distribution excludes). The
 * argmax is the first largest value. Float (the production path) and
 * double (the gradient checks' twins) alike. Implemented in sample.c. */
#ifndef PLACETO_SAMPLE_H
#define PLACETO_SAMPLE_H

int sample_draw_f(const float *p, int n, double u);
int sample_draw_d(const double *p, int n, double u);
int sample_argmax_f(const float *p, int n);
int sample_argmax_d(const double *p, int n);

#endif
