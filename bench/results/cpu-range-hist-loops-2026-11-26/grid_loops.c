#include <sys/mman.h>
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static inline uint32_t f32_key(uint32_t bits) { return bits ^ ((uint32_t)((int32_t)bits >> 31) | 0x80000000u); }
static inline uint32_t grid_cell_f(float x, float lo, float inv, float top){float t=(x-lo)*inv;t=t>0.0f?t:0.0f;t=t<top?t:top;return (uint32_t)(int32_t)t;}
typedef struct { uint32_t cells, multi; float lo, inv; uint64_t *cell_w; } G;
#define BLK 256
__attribute__((target("avx512f"))) static void words16(const G *g, const float *x, size_t len, uint64_t *w)
{
    const __m512 lo = _mm512_set1_ps(g->lo), inv = _mm512_set1_ps(g->inv);
    const __m512 top = _mm512_set1_ps((float)(g->cells - 1)), zero = _mm512_setzero_ps();
    const __m512i nan_cell = _mm512_set1_epi32((int)g->cells), sign = _mm512_set1_epi32(INT32_MIN);
    for (size_t i = 0; i + 16 <= len; i += 16) {
        const __m512 v = _mm512_loadu_ps(x + i);
        __m512 t = _mm512_mul_ps(_mm512_sub_ps(v, lo), inv);
        t = _mm512_min_ps(_mm512_max_ps(t, zero), top);
        const __mmask16 ok = _mm512_cmp_ps_mask(v, v, _CMP_ORD_Q);
        const __m512i j = _mm512_mask_cvttps_epi32(nan_cell, ok, t);
        const __m512i bits = _mm512_castps_si512(v);
        const __m512i flip = _mm512_or_si512(_mm512_srai_epi32(bits, 31), sign);
        const __m512i key = _mm512_maskz_xor_epi32(ok, bits, flip);
        _mm512_storeu_si512(w + i, _mm512_unpacklo_epi32(j, key));
        _mm512_storeu_si512(w + i + 8, _mm512_unpackhi_epi32(j, key));
    }
}
__attribute__((target("avx512f"))) static uint64_t gath(const uint64_t *cell, const uint64_t *w, uint32_t mask)
{
    __m512i acc = _mm512_setzero_si512(); const __m512i m = _mm512_set1_epi64(mask);
    for (int i = 0; i < BLK; i += 16) {
        __m512i a = _mm512_and_si512(_mm512_loadu_si512(w + i), m), b = _mm512_and_si512(_mm512_loadu_si512(w + i + 8), m);
        __m256i ja = _mm512_cvtepi64_epi32(a), jb = _mm512_cvtepi64_epi32(b);
        acc = _mm512_add_epi64(acc, _mm512_i32gather_epi64(ja, (const long long*)cell, 8));
        acc = _mm512_add_epi64(acc, _mm512_i32gather_epi64(jb, (const long long*)cell, 8));
    }
    return _mm512_reduce_add_epi64(acc);
}
static inline uint32_t slot(const uint64_t *c, uint64_t w){const uint64_t cc=c[(uint32_t)w];return (uint32_t)cc+(uint32_t)((w|0xFFFFFFFFu)>=cc);}
int main(int argc,char**argv){
  int mode=atoi(argv[1]); size_t n=1<<24; int cpb=argc>2?atoi(argv[2]):16; size_t nb=4096;
  float*x=aligned_alloc(64,n*4); uint64_t s=88172645463325252ull;
  for(size_t i=0;i<n;i++){s^=s<<13;s^=s>>7;s^=s<<17; x[i]=(float)(-1.0+2.0*((s>>40)/(double)(1ull<<24)));}
  G g; g.cells=cpb>0? nb*cpb : (uint32_t)(-cpb); g.multi=nb+2; g.lo=-1; g.inv=(float)(g.cells/2.0);
  if(getenv("THP")){ g.cell_w=aligned_alloc(2<<20, 2<<20); madvise(g.cell_w, 2<<20, MADV_HUGEPAGE);} else g.cell_w=aligned_alloc(64,(g.cells+1)*8); for(uint32_t j=0;j<=g.cells;j++) g.cell_w[j]=((uint64_t)(0x80000000u+j*7)<<32)|(j&4095);
  uint32_t *tab=aligned_alloc(64,4*(nb+16)*4); memset(tab,0,4*(nb+16)*4);
  uint32_t*T4=aligned_alloc(64,(size_t)(g.cells+1)*16); memset(T4,0,(size_t)(g.cells+1)*16); uint64_t w[BLK+64]; memset(w,0,sizeof w); double best=1e9;
  for(int r=0;r<7;r++){ double t0=now();
   for(size_t b=0;b<n;b+=BLK){ words16(&g,x+b,BLK,w);
     if(mode==0){ for(int i=0;i<BLK;i++) tab[(uint32_t)w[i] & 4095]++; }
     else if(mode==1){ for(int i=0;i<BLK;i+=4){ tab[slot(g.cell_w,w[i])]++; tab[slot(g.cell_w,w[i+1])]++; tab[slot(g.cell_w,w[i+2])]++; tab[slot(g.cell_w,w[i+3])]++;} }
     else if(mode==2){ uint32_t acc=0; for(int i=0;i<BLK;i++) acc+=slot(g.cell_w,w[i]); tab[acc&4095]++; }
     else if(mode==4){ uint16_t*t16=(uint16_t*)tab; for(int i=0;i<BLK;i+=4){ t16[slot(g.cell_w,w[i])]++; t16[slot(g.cell_w,w[i+1])]++; t16[slot(g.cell_w,w[i+2])]++; t16[slot(g.cell_w,w[i+3])]++;} }
     else if(mode==5){ for(int i=0;i<BLK;i+=4){ __builtin_prefetch(&g.cell_w[(uint32_t)w[i+32]]); tab[slot(g.cell_w,w[i])]++; __builtin_prefetch(&g.cell_w[(uint32_t)w[i+33]]);tab[slot(g.cell_w,w[i+1])]++; __builtin_prefetch(&g.cell_w[(uint32_t)w[i+34]]);tab[slot(g.cell_w,w[i+2])]++; __builtin_prefetch(&g.cell_w[(uint32_t)w[i+35]]);tab[slot(g.cell_w,w[i+3])]++;} }
     else if(mode==6){ uint64_t acc=0; for(int i=0;i<BLK;i++){ acc+=g.cell_w[(uint32_t)w[i]]; __asm__ volatile("" : "+r"(acc)); } tab[acc&4095]++; }
     else if(mode==7){ for(int i=0;i<BLK;i++){ const uint64_t q=w[i]; uint32_t*e=T4+4*(size_t)(uint32_t)q; const uint32_t ge=(uint32_t)(q>>32)>=e[0]; e[2+ge]++; } }
     else if(mode==8){ uint32_t idx[BLK]; for(int i=0;i<BLK;i++) idx[i]=slot(g.cell_w,w[i]); for(int i=0;i<BLK;i++) tab[idx[i]]++; }
     else if(mode==9){ tab[gath(g.cell_w,w,g.cells-1)&4095]++; }
     else if(mode==3){ tab[w[5]&4095]++; }
   }
   double t=now()-t0; if(t<best)best=t;}
  printf("mode %d cpb %d: %.3f ns/sample\n",mode,cpb,best*1e9/n);
}
