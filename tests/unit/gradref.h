/* gradref: helpers shared by the networks' unit tests: the gradient
 * checker (analytic against numeric gradients, with the proof that the
 * comparison can fail) and the fixed-seed reference files (arrays of
 * numbers in a JSON object, rewritten with PLACETO_UPDATE_REFERENCE=1). */
#ifndef PLACETO_GRADREF_H
#define PLACETO_GRADREF_H

#include <stddef.h>
#include <stdio.h>

#include <cJSON.h>

/* The largest relative error (with an absolute floor) between analytic a[]
 * and numeric num[] over m entries, and where. */
double gradref_compare(const double *a, const double *num, size_t m, double floor, size_t *at);
/* Compares one tensor's analytic and numeric gradients (a failure when the
 * error reaches tol) and shows that the comparison rejects one entry
 * scaled by 1.01 and one sign-flipped; returns 1 when the tensor had a
 * gradient to check (0: all below the floor). */
int gradref_check_tensor(const char *label, const char *name, const double *a, const double *nu, size_t m,
                         double floor, double tol);
/* The entries of the float gradient gf farther than rel * max |gd| from
 * the double one gd (n entries); n + 1 when gd is all zero. */
size_t gradref_float_off(const float *gf, const double *gd, size_t n, double rel);

/* Writes `  "name": [x0, x1, ...]` (and a comma unless last) with 9 digits. */
void gradref_write_array(FILE *f, const char *name, const double *x, int n, int last);
/* Checks that root's array name holds n numbers within rel * max(floor,
 * |reference|) of x (path names the file in the messages). */
void gradref_check_array(const cJSON *root, const char *path, const char *name, const double *x, int n, double rel,
                         double floor);
/* The reference file parsed (NULL, a failed check, when unreadable). */
cJSON *gradref_load(const char *path);

#endif
