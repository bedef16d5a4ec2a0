/* gradref: the gradient checker and the reference files of the networks'
 * unit tests (gradref.h). */
#include "gradref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "util.h"

double gradref_compare(const double *a, const double *num, size_t m, double floor, size_t *at)
{
    double worst = 0;
    for (size_t i = 0; i < m; i++) {
        double err = fabs(a[i] - num[i]) / fmax(floor, fabs(a[i]) + fabs(num[i]));
        if (err > worst) {
            worst = err;
            *at = i;
        }
    }
    return worst;
}

int gradref_check_tensor(const char *label, const char *name, const double *a, const double *nu, size_t m,
                         double floor, double tol)
{
    size_t at = 0, big = 0;
    double worst = gradref_compare(a, nu, m, floor, &at);
    CHECK_MSG(worst < tol, "%s: tensor %s: relative error %.3g at entry %zu (analytic %.12g, numeric %.12g)", label,
              name, worst, at, a[at], nu[at]);
    for (size_t i = 1; i < m; i++)
        if (fabs(a[i]) > fabs(a[big]))
            big = i;
    if (fabs(a[big]) < 10 * floor)
        return 0;
    double *mut = XMALLOC(double, m);
    for (int kind = 0; kind < 2; kind++) {
        memcpy(mut, a, m * sizeof *mut);
        mut[big] = kind ? -mut[big] : 1.01 * mut[big];
        size_t at2 = 0, at3 = 0;
        double e2 = gradref_compare(mut, nu, m, floor, &at2), e3 = gradref_compare(mut + big, nu + big, 1, floor, &at3);
        CHECK_MSG(e2 >= tol && e3 >= tol, "%s: tensor %s: the checker passes a gradient with entry %zu %s", label,
                  name, big, kind ? "sign-flipped" : "scaled by 1.01");
    }
    free(mut);
    return 1;
}

size_t gradref_float_off(const float *gf, const double *gd, size_t n, double rel)
{
    double gmax = 0;
    for (size_t i = 0; i < n; i++)
        gmax = fmax(gmax, fabs(gd[i]));
    size_t off = 0;
    for (size_t i = 0; i < n; i++)
        off += !(fabs(gf[i] - gd[i]) <= rel * gmax);
    return gmax > 0 ? off : n + 1;
}

void gradref_write_array(FILE *f, const char *name, const double *x, int n, int last)
{
    fprintf(f, "  \"%s\": [", name);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%.9g", i ? ", " : "", x[i]);
    fprintf(f, "]%s\n", last ? "" : ",");
}

void gradref_check_array(const cJSON *root, const char *path, const char *name, const double *x, int n, double rel,
                         double floor)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, name);
    REQUIRE_MSG(cJSON_IsArray(a) && cJSON_GetArraySize(a) == n, "%s: expected %d numbers in %s", name, n, path);
    for (int i = 0; i < n; i++) {
        double want = cJSON_GetArrayItem(a, i)->valuedouble;
        CHECK_MSG(fabs(x[i] - want) <= rel * fmax(floor, fabs(want)), "%s[%d] = %.9g, reference %.9g", name, i, x[i],
                  want);
    }
}

cJSON *gradref_load(const char *path)
{
    Err e = {{0}};
    size_t len;
    char *text = util_read_file(path, &len, &e);
    CHECK_MSG(text != NULL, "%s", e.msg);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    CHECK_MSG(text == NULL || root != NULL, "%s: not JSON", path);
    free(text);
    return root;
}
