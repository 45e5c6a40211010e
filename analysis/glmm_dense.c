/*
** The dense products of the blocked factor (glmm_block.c) when every
** level of B has every R effect: the rank update of S and the product of
** the R block of M^-1 with the levels' rows, in tiles held in registers:
** 8 x 4 with AVX2 and FMA where the processor has them (chosen at run
** time), else 4 x 4 with GCC's and clang's vector extensions (two doubles
** per operation on any x86-64 or ARM64). Each entry is summed over the
** rows in order, in blocks that stay in the cache. Also exp and log of
** the passes' rows four at a time (glibc's libmvec) with AVX2.
*/
#include <math.h>
#include <string.h>

#include "analysis/glmm_int.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_AVX2 1
#else
#define HAVE_AVX2 0
#endif

typedef double V2 __attribute__((vector_size(16)));

#define ROW_BLOCK 256 /* rows of L summed per pass over a band */

static inline V2 load2(const double *p)
{
    V2 v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline V2 splat(double x)
{
    V2 v = {x, x};
    return v;
}

/* acc[c][h] (c: column b0 + c, h: rows a0 + 2h, a0 + 2h + 1) = sum over
** rows r of L[r][a0..a0+3] L[r][b0 + c]. */
static void tile_syrk(const double *L, size_t ld, size_t r0, size_t r1, int a0,
                      int b0, V2 acc[4][2])
{
    V2 s00 = splat(0), s01 = s00, s10 = s00, s11 = s00, s20 = s00, s21 = s00,
       s30 = s00, s31 = s00;
    for (size_t r = r0; r < r1; r++) {
        const double *x = L + r * ld;
        V2 x0 = load2(x + a0), x1 = load2(x + a0 + 2);
        V2 y0 = splat(x[b0]), y1 = splat(x[b0 + 1]), y2 = splat(x[b0 + 2]),
           y3 = splat(x[b0 + 3]);
        s00 += x0 * y0;
        s01 += x1 * y0;
        s10 += x0 * y1;
        s11 += x1 * y1;
        s20 += x0 * y2;
        s21 += x1 * y2;
        s30 += x0 * y3;
        s31 += x1 * y3;
    }
    acc[0][0] = s00;
    acc[0][1] = s01;
    acc[1][0] = s10;
    acc[1][1] = s11;
    acc[2][0] = s20;
    acc[2][1] = s21;
    acc[3][0] = s30;
    acc[3][1] = s31;
}

static void syrk_v2(const double *L, size_t ld, size_t nrows, int n, double *S,
                    size_t lds, int a0, int a1)
{
    for (size_t r0 = 0; r0 < nrows; r0 += ROW_BLOCK) {
        size_t r1 = r0 + ROW_BLOCK < nrows ? r0 + ROW_BLOCK : nrows;
        for (int ta = a0 - a0 % 4; ta < a1; ta += 4) {
            for (int tb = 0; tb <= ta; tb += 4) {
                V2 acc[4][2];
                tile_syrk(L, ld, r0, r1, ta, tb, acc);
                for (int c = 0; c < 4; c++) {
                    for (int h = 0; h < 4; h++) {
                        int a = ta + h, b = tb + c;
                        if (a >= a0 && a < a1 && a < n && b <= a) {
                            S[(size_t)a * lds + (size_t)b] -=
                                acc[c][h / 2][h % 2];
                        }
                    }
                }
            }
        }
    }
}

/* acc[k][h] = sum over b < n of A[b][a0 + 2h..] L[r0 + k][b]. */
static void tile_gemm(const double *A, size_t lda, int n, const double *L,
                      size_t ld, size_t r0, int a0, V2 acc[4][2])
{
    V2 s00 = splat(0), s01 = s00, s10 = s00, s11 = s00, s20 = s00, s21 = s00,
       s30 = s00, s31 = s00;
    const double *l0 = L + r0 * ld, *l1 = l0 + ld, *l2 = l1 + ld, *l3 = l2 + ld;
    for (int b = 0; b < n; b++) {
        const double *ab = A + (size_t)b * lda + a0;
        V2 x0 = load2(ab), x1 = load2(ab + 2);
        V2 y0 = splat(l0[b]), y1 = splat(l1[b]), y2 = splat(l2[b]),
           y3 = splat(l3[b]);
        s00 += x0 * y0;
        s01 += x1 * y0;
        s10 += x0 * y1;
        s11 += x1 * y1;
        s20 += x0 * y2;
        s21 += x1 * y2;
        s30 += x0 * y3;
        s31 += x1 * y3;
    }
    acc[0][0] = s00;
    acc[0][1] = s01;
    acc[1][0] = s10;
    acc[1][1] = s11;
    acc[2][0] = s20;
    acc[2][1] = s21;
    acc[3][0] = s30;
    acc[3][1] = s31;
}

static void gemm_v2(const double *A, size_t lda, int n, const double *L,
                    size_t ld, size_t r0, size_t r1, double *T, size_t ldt)
{
    size_t r = r0;
    for (; r + 4 <= r1; r += 4) {
        for (int a0 = 0; a0 < n; a0 += 4) {
            V2 acc[4][2];
            tile_gemm(A, lda, n, L, ld, r, a0, acc);
            for (int k = 0; k < 4; k++) {
                for (int h = 0; h < 4 && a0 + h < n; h++) {
                    T[(r + (size_t)k) * ldt + (size_t)(a0 + h)] =
                        acc[k][h / 2][h % 2];
                }
            }
        }
    }
    for (; r < r1; r++) { /* the last rows one by one */
        const double *l = L + r * ld;
        for (int a = 0; a < n; a++) {
            double v = 0;
            for (int b = 0; b < n; b++) {
                v += A[(size_t)b * lda + (size_t)a] * l[b];
            }
            T[r * ldt + (size_t)a] = v;
        }
    }
}

#if HAVE_AVX2
#define AVX2 __attribute__((target("avx2,fma")))

/* acc[c][h] = sum over rows r of L[r][a0 + 4h..a0 + 4h + 3] L[r][b0 + c]. */
AVX2 static void tile_syrk8(const double *L, size_t ld, size_t r0, size_t r1,
                            int a0, int b0, __m256d acc[4][2])
{
    __m256d s00 = _mm256_setzero_pd(), s01 = s00, s10 = s00, s11 = s00,
            s20 = s00, s21 = s00, s30 = s00, s31 = s00;
    for (size_t r = r0; r < r1; r++) {
        const double *x = L + r * ld;
        __m256d x0 = _mm256_loadu_pd(x + a0), x1 = _mm256_loadu_pd(x + a0 + 4);
        __m256d y0 = _mm256_broadcast_sd(x + b0);
        __m256d y1 = _mm256_broadcast_sd(x + b0 + 1);
        __m256d y2 = _mm256_broadcast_sd(x + b0 + 2);
        __m256d y3 = _mm256_broadcast_sd(x + b0 + 3);
        s00 = _mm256_fmadd_pd(x0, y0, s00);
        s01 = _mm256_fmadd_pd(x1, y0, s01);
        s10 = _mm256_fmadd_pd(x0, y1, s10);
        s11 = _mm256_fmadd_pd(x1, y1, s11);
        s20 = _mm256_fmadd_pd(x0, y2, s20);
        s21 = _mm256_fmadd_pd(x1, y2, s21);
        s30 = _mm256_fmadd_pd(x0, y3, s30);
        s31 = _mm256_fmadd_pd(x1, y3, s31);
    }
    acc[0][0] = s00;
    acc[0][1] = s01;
    acc[1][0] = s10;
    acc[1][1] = s11;
    acc[2][0] = s20;
    acc[2][1] = s21;
    acc[3][0] = s30;
    acc[3][1] = s31;
}

AVX2 static void syrk_avx2(const double *L, size_t ld, size_t nrows, int n,
                           double *S, size_t lds, int a0, int a1)
{
    for (size_t r0 = 0; r0 < nrows; r0 += ROW_BLOCK) {
        size_t r1 = r0 + ROW_BLOCK < nrows ? r0 + ROW_BLOCK : nrows;
        for (int ta = a0 - a0 % 4; ta < a1; ta += 8) {
            for (int tb = 0; tb <= ta + 7 && tb < n; tb += 4) {
                __m256d acc[4][2];
                double v[4][8];
                tile_syrk8(L, ld, r0, r1, ta, tb, acc);
                for (int c = 0; c < 4; c++) {
                    _mm256_storeu_pd(v[c], acc[c][0]);
                    _mm256_storeu_pd(v[c] + 4, acc[c][1]);
                }
                for (int c = 0; c < 4; c++) {
                    for (int h = 0; h < 8; h++) {
                        int a = ta + h, b = tb + c;
                        if (a >= a0 && a < a1 && a < n && b <= a) {
                            S[(size_t)a * lds + (size_t)b] -= v[c][h];
                        }
                    }
                }
            }
        }
    }
}

/* acc[k][h] = sum over b < n of A[b][a0 + 4h..] L[r0 + k][b]. */
AVX2 static void tile_gemm8(const double *A, size_t lda, int n, const double *L,
                            size_t ld, size_t r0, int a0, __m256d acc[4][2])
{
    __m256d s00 = _mm256_setzero_pd(), s01 = s00, s10 = s00, s11 = s00,
            s20 = s00, s21 = s00, s30 = s00, s31 = s00;
    const double *l0 = L + r0 * ld, *l1 = l0 + ld, *l2 = l1 + ld, *l3 = l2 + ld;
    for (int b = 0; b < n; b++) {
        const double *ab = A + (size_t)b * lda + a0;
        __m256d x0 = _mm256_loadu_pd(ab), x1 = _mm256_loadu_pd(ab + 4);
        __m256d y0 = _mm256_broadcast_sd(l0 + b);
        __m256d y1 = _mm256_broadcast_sd(l1 + b);
        __m256d y2 = _mm256_broadcast_sd(l2 + b);
        __m256d y3 = _mm256_broadcast_sd(l3 + b);
        s00 = _mm256_fmadd_pd(x0, y0, s00);
        s01 = _mm256_fmadd_pd(x1, y0, s01);
        s10 = _mm256_fmadd_pd(x0, y1, s10);
        s11 = _mm256_fmadd_pd(x1, y1, s11);
        s20 = _mm256_fmadd_pd(x0, y2, s20);
        s21 = _mm256_fmadd_pd(x1, y2, s21);
        s30 = _mm256_fmadd_pd(x0, y3, s30);
        s31 = _mm256_fmadd_pd(x1, y3, s31);
    }
    acc[0][0] = s00;
    acc[0][1] = s01;
    acc[1][0] = s10;
    acc[1][1] = s11;
    acc[2][0] = s20;
    acc[2][1] = s21;
    acc[3][0] = s30;
    acc[3][1] = s31;
}

AVX2 static void gemm_avx2(const double *A, size_t lda, int n, const double *L,
                           size_t ld, size_t r0, size_t r1, double *T,
                           size_t ldt)
{
    size_t r = r0;
    for (; r + 4 <= r1; r += 4) {
        for (int a0 = 0; a0 < n; a0 += 8) {
            __m256d acc[4][2];
            double v[4][8];
            tile_gemm8(A, lda, n, L, ld, r, a0, acc);
            for (int k = 0; k < 4; k++) {
                _mm256_storeu_pd(v[k], acc[k][0]);
                _mm256_storeu_pd(v[k] + 4, acc[k][1]);
                for (int h = 0; h < 8 && a0 + h < n; h++) {
                    T[(r + (size_t)k) * ldt + (size_t)(a0 + h)] = v[k][h];
                }
            }
        }
    }
    if (r < r1) { /* the last rows as the generic code does them */
        gemm_v2(A, lda, n, L, ld, r, r1, T, ldt);
    }
}

static int have_avx2(void)
{
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

/* glibc's libmvec: exp and log of four doubles (AVX2 variants, within 4
** ulp) */
AVX2 __m256d _ZGVdN4v_exp(__m256d x);
AVX2 __m256d _ZGVdN4v_log(__m256d x);

/* x[k] = exp or log (log_of) of x[k] for k < n, four at a time (the last
** ones padded), so that a value never depends on where its block starts. */
AVX2 static void map_avx2(double *x, int n, int log_of)
{
    int k = 0;
    for (; k + 4 <= n; k += 4) {
        __m256d v = _mm256_loadu_pd(x + k);
        _mm256_storeu_pd(x + k, log_of ? _ZGVdN4v_log(v) : _ZGVdN4v_exp(v));
    }
    if (k < n) {
        double t[4] = {1, 1, 1, 1};
        memcpy(t, x + k, (size_t)(n - k) * sizeof(double));
        __m256d v = _mm256_loadu_pd(t);
        _mm256_storeu_pd(t, log_of ? _ZGVdN4v_log(v) : _ZGVdN4v_exp(v));
        memcpy(x + k, t, (size_t)(n - k) * sizeof(double));
    }
}
#endif

/* map_avx2() where the processor can, else libm's one by one. */
static void map_values(double *x, int n, int log_of)
{
#if HAVE_AVX2
    if (have_avx2()) {
        map_avx2(x, n, log_of);
        return;
    }
#endif
    for (int k = 0; k < n; k++) {
        x[k] = log_of ? log(x[k]) : exp(x[k]);
    }
}

void glmm_dense_exp(double *x, int n)
{
    map_values(x, n, 0);
}

void glmm_dense_log(double *x, int n)
{
    map_values(x, n, 1);
}

void glmm_dense_syrk(const double *L, size_t ld, size_t nrows, int n, double *S,
                     size_t lds, int a0, int a1)
{
#if HAVE_AVX2
    if (have_avx2()) {
        syrk_avx2(L, ld, nrows, n, S, lds, a0, a1);
        return;
    }
#endif
    syrk_v2(L, ld, nrows, n, S, lds, a0, a1);
}

void glmm_dense_gemm(const double *A, size_t lda, int n, const double *L,
                     size_t ld, size_t r0, size_t r1, double *T, size_t ldt)
{
#if HAVE_AVX2
    if (have_avx2()) {
        gemm_avx2(A, lda, n, L, ld, r0, r1, T, ldt);
        return;
    }
#endif
    gemm_v2(A, lda, n, L, ld, r0, r1, T, ldt);
}
