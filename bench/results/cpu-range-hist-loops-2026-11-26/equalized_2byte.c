/* prototype: equalized grid, 2-byte cells (delta from j/2 and the split's fraction), u16 counts */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&t);return t.tv_sec+1e-9*t.tv_nsec;}
#define BLK 256
#define P 16
static float B[P + 1], S[P], O[P + 1];
static uint32_t C, fb, cbits, nb;
static inline uint32_t fbits(float f){uint32_t u;memcpy(&u,&f,4);return u;}
/* scalar T word: same operations as the vector */
static uint32_t word_s(float x)
{
    uint32_t p = 0;
    for (uint32_t s = P / 2; s; s >>= 1) if (x >= B[p + s]) p += s; /* B[p+s] for p+s <= 15 */
    float t = (x - B[p]) * S[p];
    t = t + O[p];
    t = t > O[p] ? t : O[p];
    t = t < O[p + 1] ? t : O[p + 1];
    return fbits(t) - cbits;
}
__attribute__((target("avx512f,avx512bw,avx512dq"))) static void words(const float *x, uint32_t *w)
{
    const __m512 vB = _mm512_loadu_ps(B), vS = _mm512_loadu_ps(S), vO = _mm512_loadu_ps(O), vO1 = _mm512_loadu_ps(O + 1);
    const __m512i cb = _mm512_set1_epi32((int)cbits);
    for (int i = 0; i < BLK; i += 16) {
        const __m512 v = _mm512_loadu_ps(x + i);
        __m512i p = _mm512_setzero_si512();
        for (int s = P / 2; s; s >>= 1) {
            const __m512i c = _mm512_add_epi32(p, _mm512_set1_epi32(s));
            p = _mm512_mask_mov_epi32(p, _mm512_cmp_ps_mask(v, _mm512_permutexvar_ps(c, vB), _CMP_GE_OQ), c);
        }
        const __m512 o = _mm512_permutexvar_ps(p, vO);
        __m512 t = _mm512_mul_ps(_mm512_sub_ps(v, _mm512_permutexvar_ps(p, vB)), _mm512_permutexvar_ps(p, vS));
        t = _mm512_add_ps(t, o);
        t = _mm512_min_ps(_mm512_max_ps(t, o), _mm512_permutexvar_ps(p, vO1));
        _mm512_storeu_si512(w + i, _mm512_sub_epi32(_mm512_castps_si512(t), cb));
    }
}
static uint16_t *tab; static uint32_t SL; /* SL: the redo slot */
__attribute__((target("avx512f,avx512bw,avx512dq"))) static void look(const uint32_t *w, uint32_t *idx)
{
    const __m512i qm = _mm512_set1_epi32((1 << fb) - 1), fm = _mm512_set1_epi32((2 << fb) - 1), vS = _mm512_set1_epi32((int)SL);
    const __m512i m16 = _mm512_set1_epi32(0xFFFF);
    for (int i = 0; i < BLK; i += 16) {
        const __m512i wv = _mm512_loadu_si512(w + i);
        const __m512i j = _mm512_srli_epi32(wv, fb);
        const __m512i e = _mm512_and_si512(_mm512_i32gather_epi32(j, (const int *)tab, 2), m16);
        const __m512i qx = _mm512_and_si512(wv, qm), qs = _mm512_and_si512(e, fm);
        /* delta: the high bits of e, signed: (e >> (fb+1)) - 16 */
        __m512i slot = _mm512_add_epi32(_mm512_srli_epi32(j, 1), _mm512_sub_epi32(_mm512_srli_epi32(e, fb + 1), _mm512_set1_epi32(16)));
        slot = _mm512_mask_add_epi32(slot, _mm512_cmpgt_epu32_mask(qx, qs), slot, _mm512_set1_epi32(1));
        slot = _mm512_mask_mov_epi32(slot, _mm512_cmpeq_epi32_mask(qx, qs), vS);
        _mm512_storeu_si512(idx + i, slot);
    }
}
static float *key;
static uint32_t exact_slot(float x){ if (x != x) return 0; uint32_t lo = 0, hi = nb + 1; while (lo < hi) { uint32_t m = (lo + hi) / 2; if (key[m] <= x) lo = m + 1; else hi = m; } return lo; }
int main(int argc, char **argv)
{
    nb = 4096; const int cpb = argc > 1 ? atoi(argv[1]) : 2; size_t n = 1 << 24;
    C = 1; while (C < cpb * nb) C *= 2; fb = 23 - __builtin_ctz(C); const float Cf = (float)C; cbits = fbits(Cf);
    key = malloc((nb + 1) * 4);
    for (uint32_t k = 0; k <= nb; k++) { double f = (double)k / nb; key[k] = k == nb ? 1.0f : (float)(-1.0 + 2.0 * f * f); }
    for (int p = 0; p <= P; p++) { B[p] = key[(size_t)p * nb / P]; O[p] = Cf + (float)((size_t)p * C / P); }
    for (int p = 0; p < P; p++) S[p] = (float)(C / P) / (B[p + 1] - B[p]);
    /* cells: edges per cell */
    uint32_t *cnt = calloc(C + 1, 4), *first = calloc(C + 1, 4);
    for (uint32_t k = 0; k <= nb; k++) { uint32_t wk = word_s(key[k]), j = wk >> fb; if (!cnt[j]++) first[j] = k; }
    tab = calloc(C + 2, 2); SL = nb + 2; uint32_t base = 0, multi = 0, dover = 0;
    for (uint32_t j = 0; j <= C; j++) {
        int d = (int)base - (int)(j >> 1);
        uint32_t qs = 1u << fb; /* never */
        int bad = cnt[j] > 1 || d < -16 || d > 15 || (16 - fb - 1) < 5;
        if (cnt[j] == 1) qs = word_s(key[first[j]]) & ((1u << fb) - 1);
        if (bad) { multi += cnt[j] > 1; dover += !(cnt[j] > 1); d = 0; qs = 0; /* qx==0 redo? use eq trick: force redo below */ }
        tab[j] = (uint16_t)(((uint32_t)(d + 16) << (fb + 1)) | qs);
        if (bad) tab[j] = 0xFFFF; /* flagged: decoded slot garbage; handled by a flag check (prototype: count) */
        base += cnt[j];
    }
    printf("C %u fb %u: cells with >1 edge %u, delta out of range %u\n", C, fb, multi, dover);
    float *x = aligned_alloc(64, n * 4); uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; x[i] = (float)(-1.0 + 2.0 * ((s >> 40) / (double)(1ull << 24))); }
    /* exactness of the fast path and the redo rate */
    uint32_t w[BLK], idx[BLK]; size_t redo = 0, wrong = 0;
    for (size_t b = 0; b < n; b += BLK) { words(x + b, w); look(w, idx);
        for (int i = 0; i < BLK; i++) { uint32_t j = w[i] >> fb; int flagged = tab[j] == 0xFFFF || idx[i] == SL;
            if (flagged) { redo++; continue; } /* here: the exact search */
            if (w[i] != word_s(x[b + i])) wrong++;
            if (idx[i] != exact_slot(x[b + i])) wrong++; } }
    printf("redo %.5f of the samples, wrong %zu\n", (double)redo / n, wrong);
    uint16_t *t16 = calloc(8192, 2); uint32_t *tot = calloc(8192, 4); double best = 1e9;
    for (int r = 0; r < 9; r++) { double t0 = now();
        for (size_t b = 0; b < n; b += BLK) { words(x + b, w); look(w, idx);
            for (int i = 0; i < BLK; i++) t16[idx[i]]++;
            if ((b & 32767) == 32768 - BLK) { for (int k = 0; k < 8192; k++) { tot[k] += t16[k]; t16[k] = 0; } } }
        double t = now() - t0; if (t < best) best = t; }
    printf("C %u: %.3f ns/sample (u16 cells %u KiB)\n", C, best * 1e9 / n, (C + 2) * 2 / 1024);
    return 0;
}
