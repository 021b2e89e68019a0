/* Least-squares fit of one cost entry (calibrate.h; the fit of lg_calibrate). */
#include "passes/calibrate.h"

#include <math.h>
#include <string.h>

/* Features of a sample: 1, bytes, flops (or spilled bytes of a memory-bound
 * step), spilled bytes of a step with flops. */
#define NF 4

/* Solve the k x k system a x = b (Gaussian elimination, partial pivoting);
 * false if singular. */
static bool solve(int k, double a[NF][NF], double b[NF], double x[NF]) {
    for (int c = 0; c < k; c++) {
        int piv = c;
        for (int r = c + 1; r < k; r++)
            if (fabs(a[r][c]) > fabs(a[piv][c])) piv = r;
        if (fabs(a[piv][c]) < 1e-300) return false;
        for (int j = 0; j < k; j++) {
            double t = a[c][j];
            a[c][j] = a[piv][j];
            a[piv][j] = t;
        }
        double t = b[c];
        b[c] = b[piv];
        b[piv] = t;
        for (int r = c + 1; r < k; r++) {
            double f = a[r][c] / a[c][c];
            for (int j = c; j < k; j++) a[r][j] -= f * a[c][j];
            b[r] -= f * b[c];
        }
    }
    for (int c = k - 1; c >= 0; c--) {
        double s = b[c];
        for (int j = c + 1; j < k; j++) s -= a[c][j] * x[j];
        x[c] = s / a[c][c];
    }
    return true;
}

/* Weighted residual sum of squares (relative errors) of coefs x. */
static double rss(const lg__calib_sample *s, int n, const double x[NF]) {
    double r = 0;
    for (int i = 0; i < n; i++) {
        double p = x[0] + x[1] * s[i].bytes + x[2] * s[i].flops + x[3] * s[i].spill;
        double e = (p - s[i].ns) / s[i].ns;
        r += e * e;
    }
    return r;
}

/* Least squares over the coefficients idx[0..k) (features scaled by
 * scale) of the samples' times minus a fixed cost c0 (relative errors);
 * writes them into x (x[0] = c0 when fixed is not among idx). False when
 * singular or a coefficient is negative. */
static bool solve_subset(const lg__calib_sample *s, int n, const int *idx, int k,
                         const double scale[NF], double c0, double x[NF]) {
    double a[NF][NF] = {{0}}, b[NF] = {0}, y[NF] = {0};
    for (int i = 0; i < n; i++) {
        double f[NF] = {1, s[i].bytes / fmax(scale[1], 1), s[i].flops / fmax(scale[2], 1),
                        s[i].spill / fmax(scale[3], 1)};
        double w = 1.0 / (s[i].ns * s[i].ns);
        for (int p = 0; p < k; p++) {
            for (int q = 0; q < k; q++) a[p][q] += w * f[idx[p]] * f[idx[q]];
            b[p] += w * f[idx[p]] * (s[i].ns - c0);
        }
    }
    if (!solve(k, a, b, y)) return false;
    memset(x, 0, NF * sizeof *x);
    x[0] = c0;
    for (int p = 0; p < k; p++) {
        int j = idx[p];
        x[j] = j == 0 ? y[p] : y[p] / fmax(scale[j], 1);
        if (x[j] < 0) return false;
    }
    return true;
}

static void fit_once(const lg__calib_sample *s, int n, lg__cost_entry *e) {
    /* Relative least squares: minimise sum ((pred - t) / t)^2 over the
     * non-negative (fixed, at most LG_CALIB_FIXED_MAX_NS; per byte, per flop,
     * per spilled byte), trying
     * every subset of free coefficients and keeping the best feasible one.
     * Features are scaled to comparable sizes first. */
    double scale[NF] = {1, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        scale[1] = fmax(scale[1], s[i].bytes);
        scale[2] = fmax(scale[2], s[i].flops);
        scale[3] = fmax(scale[3], s[i].spill);
    }
    double best = INFINITY, bx[NF] = {0, 0, 0, 0};
    for (int mask = 1; mask < (1 << NF); mask++) {
        int idx[NF], k = 0;
        bool absent = false;
        for (int j = 0; j < NF; j++)
            if ((mask >> j) & 1) {
                if (scale[j] > 0)
                    idx[k++] = j;
                else
                    absent = true;
            }
        /* Fewer than 3 samples: no fixed term (it would not extrapolate).
         * The main term (per flop when the samples compute, else per byte)
         * always stays: a fit without it would make big steps free, and
         * OPTIMAL exploits any such hole. The spill term needs at least 2
         * samples that spill. */
        int main_bit = scale[2] > 0 ? 4 : 2, spilled = 0;
        for (int i = 0; i < n; i++) spilled += s[i].spill > 0;
        if (absent || k == 0 || k > n || ((mask & 1) && n < 3) || !(mask & main_bit) ||
            ((mask & 8) && spilled < 2))
            continue;
        double x[NF] = {0, 0, 0, 0};
        if (!solve_subset(s, n, idx, k, scale, 0, x)) continue;
        /* A fixed cost above the bound: held at the bound, the other
         * coefficients refitted. */
        if ((mask & 1) && x[0] > LG_CALIB_FIXED_MAX_NS &&
            (k == 1 || !solve_subset(s, n, idx + 1, k - 1, scale, LG_CALIB_FIXED_MAX_NS, x)))
            continue;
        double r = rss(s, n, x);
        if (r < best) {
            best = r;
            memcpy(bx, x, sizeof bx);
        }
    }
    e->fixed_ns = bx[0];
    e->ns_per_byte = bx[1];
    e->ns_per_flop = bx[2];
    e->ns_per_spill = bx[3];
    e->samples = n;
    e->rms_rel_err = n > 0 && isfinite(best) ? sqrt(best / n) : 0;
}

void lg__calib_fit(const lg__calib_sample *s, int n, lg__cost_entry *e) {
    fit_once(s, n, e);
    if (n < 4) return;
    /* Once more without the samples far above the fit (a step that waited
     * for a descheduled thread on the shared machine), when few. */
    lg__calib_sample *k = lg__malloc((size_t)n * sizeof *k);
    if (!k) return;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (s[i].ns <= 2.5 * lg__cost_eval(e, s[i].bytes, s[i].flops, s[i].spill)) k[m++] = s[i];
    if (m < n && m >= 3 && m >= n * 3 / 4) fit_once(k, m, e);
    lg__free(k);
}
