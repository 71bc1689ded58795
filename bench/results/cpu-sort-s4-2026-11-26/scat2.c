#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <immintrin.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec*1e-6;}
static uint64_t sm(uint64_t x){x+=0x9e3779b97f4a7c15ull;x=(x^(x>>30))*0xbf58476d1ce4e5b9ull;x=(x^(x>>27))*0x94d049bb133111ebull;return x^(x>>31);}
static void *big(size_t b){void*p=mmap(0,b,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); madvise(p,b,MADV_HUGEPAGE); memset(p,0,b); return p;}
static inline void put64(uint32_t*d,const uint32_t*s){__m128i*dd=(__m128i*)d;const __m128i*ss=(const __m128i*)s;
 _mm_stream_si128(dd,_mm_load_si128(ss));_mm_stream_si128(dd+1,_mm_load_si128(ss+1));_mm_stream_si128(dd+2,_mm_load_si128(ss+2));_mm_stream_si128(dd+3,_mm_load_si128(ss+3));}
#define DEF(L) \
static void swc##L(const uint32_t*ks,uint32_t*kd,size_t n,int sh,uint64_t*off){ \
 static _Alignas(64) uint32_t kb[256][L]; static unsigned fill[256],first[256]; static uint64_t base[256]; \
 for(unsigned d=0;d<256;++d){unsigned f=off[d]%16; first[d]=fill[d]=f; base[d]=off[d]-f;} \
 for(size_t i=0;i<n;++i){uint32_t k=ks[i];unsigned d=(k>>sh)&255;unsigned f=fill[d];kb[d][f]=k; \
  if(f+1<L){fill[d]=f+1;continue;} \
  unsigned a=first[d]; \
  if(a==0) put64(kd+base[d],kb[d]); else memcpy(kd+base[d]+a,&kb[d][a],(16-a)*4); \
  for(unsigned j=16;j<L;j+=16) put64(kd+base[d]+j,kb[d]+j); \
  base[d]+=L;fill[d]=first[d]=0;} \
 _mm_sfence(); \
 for(unsigned d=0;d<256;++d){unsigned a=first[d],f=fill[d]; if(f>a) memcpy(kd+base[d]+a,&kb[d][a],(f-a)*4);} }
DEF(16) DEF(32) DEF(64)
static uint32_t nc[16*256]; static int UNR;
/* L32 + per-line count of the next digit (block of the position by shift bs) */
static void swcL(const uint32_t*ks,uint32_t*kd,size_t n,int sh,uint64_t*off,int sh2,int bs){
 enum{L=32}; static _Alignas(64) uint32_t kb[256][L]; static unsigned fill[256],first[256]; static uint64_t base[256];
 for(unsigned d=0;d<256;++d){unsigned f=off[d]%16; first[d]=fill[d]=f; base[d]=off[d]-f;}
 for(size_t i=0;i<n;++i){uint32_t k=ks[i];unsigned d=(k>>sh)&255;unsigned f=fill[d];kb[d][f]=k;
  if(f+1<L){fill[d]=f+1;continue;}
  unsigned a=first[d]; uint64_t q=base[d]+a; uint32_t*c=nc+(q>>bs)*256;
  if(a==0&&(q>>bs)==((base[d]+L-1)>>bs)) { if(UNR) { _Pragma("GCC unroll 32") for(unsigned j=0;j<L;++j) ++c[(kb[d][j]>>sh2)&255]; } else for(unsigned j=0;j<L;++j) ++c[(kb[d][j]>>sh2)&255]; }
  else if((q>>bs)==((base[d]+L-1)>>bs)) for(unsigned j=a;j<L;++j) ++c[(kb[d][j]>>sh2)&255]; else for(unsigned j=a;j<L;++j,++q) ++nc[(q>>bs)*256+((kb[d][j]>>sh2)&255)];
  if(a==0) {put64(kd+base[d],kb[d]);put64(kd+base[d]+16,kb[d]+16);} else memcpy(kd+base[d]+a,&kb[d][a],(L-a)*4);
  base[d]+=L;fill[d]=first[d]=0;}
 _mm_sfence();
 for(unsigned d=0;d<256;++d){unsigned a=first[d],f=fill[d]; if(f>a) memcpy(kd+base[d]+a,&kb[d][a],(f-a)*4);} }
/* L32 + inline count per key */
static void swcI(const uint32_t*ks,uint32_t*kd,size_t n,int sh,uint64_t*off,int sh2,int bs){
 enum{L=32}; static _Alignas(64) uint32_t kb[256][L]; static unsigned fill[256],first[256]; static uint64_t base[256];
 for(unsigned d=0;d<256;++d){unsigned f=off[d]%16; first[d]=fill[d]=f; base[d]=off[d]-f;}
 for(size_t i=0;i<n;++i){uint32_t k=ks[i];unsigned d=(k>>sh)&255;unsigned f=fill[d];kb[d][f]=k;
  ++nc[((base[d]+f)>>bs)*256+((k>>sh2)&255)];
  if(f+1<L){fill[d]=f+1;continue;}
  unsigned a=first[d];
  if(a==0) {put64(kd+base[d],kb[d]);put64(kd+base[d]+16,kb[d]+16);} else memcpy(kd+base[d]+a,&kb[d][a],(L-a)*4);
  base[d]+=L;fill[d]=first[d]=0;}
 _mm_sfence();
 for(unsigned d=0;d<256;++d){unsigned a=first[d],f=fill[d]; if(f>a) memcpy(kd+base[d]+a,&kb[d][a],(f-a)*4);} }

int main(){size_t n=1ull<<26; uint32_t*a=big(n*4),*b=big(n*4); for(size_t i=0;i<n;++i)a[i]=(uint32_t)sm(i);
 static uint64_t c[256],off[256]; for(size_t i=0;i<n;++i) ++c[a[i]&255];
 for(int r=0;r<3;++r){ double t; 
  #define OFF {uint64_t s=0;for(unsigned d=0;d<256;++d){off[d]=s;s+=c[d];}}
  OFF t=now(); swc16(a,b,n,0,off); printf("L16 %.1f ",now()-t);
  OFF t=now(); swc32(a,b,n,0,off); printf("L32 %.1f ",now()-t);
  OFF t=now(); swc64(a,b,n,0,off); printf("L64 %.1f ",now()-t);
  OFF t=now(); swcL(a,b,n,0,off,8,22); printf("L32+linecount %.1f ",now()-t);
  OFF t=now(); swcI(a,b,n,0,off,8,22); printf("L32+inlinecount %.1f ",now()-t);
  UNR=1; OFF t=now(); swcL(a,b,n,0,off,8,22); printf("L32+linecount-unrolled %.1f\n",now()-t); UNR=0;
  for(size_t i=1;i<n;++i) if((b[i-1]&255)>(b[i]&255)){printf("BAD\n");break;}
 }}
