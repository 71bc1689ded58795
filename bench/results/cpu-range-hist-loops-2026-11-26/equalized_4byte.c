#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&t);return t.tv_sec+1e-9*t.tv_nsec;}
#define BLK 256
typedef struct { __m512 B, S, O, O1; uint32_t C, fb, cbits; uint32_t *tab; } G;
/* words: T in [C, 2C], w = bits(T) - bits(C) */
__attribute__((target("avx512f,avx512bw,avx512dq"))) static void words(const G *g, const float *x, uint32_t *w)
{
    const __m512i cb = _mm512_set1_epi32((int)g->cbits);
    for (int i = 0; i < BLK; i += 16) {
        const __m512 v = _mm512_loadu_ps(x + i);
        __m512i p = _mm512_setzero_si512();
        for (int s = 8; s; s >>= 1) {
            const __m512i c = _mm512_add_epi32(p, _mm512_set1_epi32(s));
            const __m512 b = _mm512_permutexvar_ps(c, g->B);
            p = _mm512_mask_mov_epi32(p, _mm512_cmp_ps_mask(v, b, _CMP_GE_OQ), c);
        }
        __m512 t = _mm512_mul_ps(_mm512_sub_ps(v, _mm512_permutexvar_ps(p, g->B)), _mm512_permutexvar_ps(p, g->S));
        t = _mm512_add_ps(t, _mm512_permutexvar_ps(p, g->O));
        t = _mm512_min_ps(_mm512_max_ps(t, _mm512_permutexvar_ps(p, g->O)), _mm512_permutexvar_ps(p, g->O1));
        _mm512_storeu_si512(w + i, _mm512_sub_epi32(_mm512_castps_si512(t), cb));
    }
}
__attribute__((target("avx512f,avx512bw,avx512dq"))) static void lookv(const G *g, const uint32_t *w, uint32_t *idx)
{
    const __m512i qm = _mm512_set1_epi32((1 << g->fb) - 1), fm = _mm512_set1_epi32((2 << g->fb) - 1), S = _mm512_set1_epi32(4098);
    for (int i = 0; i < BLK; i += 16) {
        const __m512i wv = _mm512_loadu_si512(w + i);
        const __m512i e = _mm512_i32gather_epi32(_mm512_srli_epi32(wv, g->fb), (const int *)g->tab, 4);
        const __m512i qx = _mm512_and_si512(wv, qm), qs = _mm512_and_si512(e, fm);
        __m512i slot = _mm512_srli_epi32(e, g->fb + 1);
        slot = _mm512_mask_add_epi32(slot, _mm512_cmpgt_epu32_mask(qx, qs), slot, _mm512_set1_epi32(1));
        slot = _mm512_mask_mov_epi32(slot, _mm512_cmpeq_epi32_mask(qx, qs), S);
        _mm512_storeu_si512(idx + i, slot);
    }
}
int main(int argc,char**argv){
  int mode=atoi(argv[1]); uint32_t C=argc>2?atoi(argv[2]):8192; size_t n=1<<24;
  float*x=aligned_alloc(64,n*4); uint64_t s=88172645463325252ull;
  for(size_t i=0;i<n;i++){s^=s<<13;s^=s>>7;s^=s<<17; x[i]=(float)(-1.0+2.0*((s>>40)/(double)(1ull<<24)));}
  G g; g.C=C; g.fb=23-__builtin_ctz(C); float Cf=(float)C; memcpy(&g.cbits,&Cf,4);
  float B[16],S[16],O[16],O1[16]; for(int p=0;p<16;p++){ B[p]=-1+2*(p/16.0f)*(p/16.0f); }
  for(int p=0;p<16;p++){ float b1=p==15?1.0f:B[p+1]; O[p]=C+p*(C/16); O1[p]=C+(p+1)*(C/16); S[p]=(C/16)/(b1-B[p]); }
  g.B=_mm512_loadu_ps(B); g.S=_mm512_loadu_ps(S); g.O=_mm512_loadu_ps(O); g.O1=_mm512_loadu_ps(O1);
  g.tab=aligned_alloc(64,(C+2)*4); for(uint32_t j=0;j<C+2;j++) g.tab[j]=((j/2)<<(g.fb+1))|((j*37)&((1<<g.fb)-1));
  uint32_t *t32=aligned_alloc(64,8192*4); memset(t32,0,8192*4); uint16_t *t16=(uint16_t*)t32;
  uint32_t w[BLK], idx[BLK]; double best=1e9;
  for(int r=0;r<7;r++){ double t0=now();
   for(size_t b=0;b<n;b+=BLK){ words(&g,x+b,w);
     if(mode==0){ t32[w[7]&4095]++; }
     else if(mode==1){ lookv(&g,w,idx); for(int i=0;i<BLK;i++) t32[idx[i]]++; }
     else if(mode==2){ lookv(&g,w,idx); for(int i=0;i<BLK;i++) t16[idx[i]]++; }
     else if(mode==3){ const uint32_t qm=(1u<<g.fb)-1, fm=(2u<<g.fb)-1; for(int i=0;i<BLK;i++){ uint32_t q=w[i], e=g.tab[q>>g.fb]; uint32_t qx=q&qm, qs=e&fm; uint32_t sl=(e>>(g.fb+1))+(qx>qs); sl = qx==qs?4098:sl; t16[sl]++; } }
   }
   double t=now()-t0; if(t<best)best=t;}
  printf("mode %d C %u: %.3f ns/sample\n",mode,C,best*1e9/n);
}
