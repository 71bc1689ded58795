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
static void *big(size_t b,int huge){void*p=mmap(0,b,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); if(huge) madvise(p,b,MADV_HUGEPAGE); memset(p,0,b); return p;}
#define L 16
__attribute__((target("avx512f"))) static inline void put(uint32_t*d,const uint32_t*s,int nt){ if(nt==1){__m128i*dd=(__m128i*)d;const __m128i*ss=(const __m128i*)s;
 _mm_stream_si128(dd,_mm_load_si128(ss));_mm_stream_si128(dd+1,_mm_load_si128(ss+1));_mm_stream_si128(dd+2,_mm_load_si128(ss+2));_mm_stream_si128(dd+3,_mm_load_si128(ss+3));}
 else if(nt==2){ _mm512_stream_si512((void*)d,_mm512_load_si512((const void*)s)); }
 else memcpy(d,s,64);}
/* generic SWC scatter, B-bit digit at shift sh; cntnext: count the next digit (sh2) per line */
__attribute__((target("avx512f"))) static void swc(const uint32_t*ks,uint32_t*kd,size_t n,int B,int sh,uint64_t*off,int nt,int cnt,int sh2,uint64_t*nc){
 const unsigned R=1u<<B,m=R-1; static _Alignas(64) uint32_t kb[2048][L]; static unsigned fill[2048],first[2048]; static uint64_t base[2048];
 for(unsigned d=0;d<R;++d){first[d]=fill[d]=off[d]%L;base[d]=off[d]-first[d];}
 for(size_t i=0;i<n;++i){uint32_t k=ks[i];unsigned d=(k>>sh)&m;unsigned f=fill[d];kb[d][f]=k;
  if(f+1<L){fill[d]=f+1;continue;}
  unsigned a=first[d];
  if(cnt) for(unsigned j=a;j<L;++j) ++nc[(kb[d][j]>>sh2)&m];
  if(a==0) put(kd+base[d],kb[d],nt); else memcpy(kd+base[d]+a,&kb[d][a],(L-a)*4);
  base[d]+=L;fill[d]=first[d]=0;}
 _mm_sfence();
 for(unsigned d=0;d<R;++d){unsigned a=first[d],f=fill[d]; if(f>a) memcpy(kd+base[d]+a,&kb[d][a],(f-a)*4);}
}
static void direct(const uint32_t*ks,uint32_t*kd,size_t n,int B,int sh,uint64_t*off){unsigned m=(1u<<B)-1; for(size_t i=0;i<n;++i){uint32_t k=ks[i];kd[off[(k>>sh)&m]++]=k;}}
static void countall(const uint32_t*ks,size_t n,int B,int P,uint64_t*c){unsigned m=(1u<<B)-1; memset(c,0,P*(1u<<B)*8);
 for(size_t i=0;i<n;++i){uint32_t k=ks[i]; for(int p=0;p<P;++p) ++c[(p<<B)+((k>>(p*B))&m)];}}
static void countall32(const uint32_t*ks,size_t n,int B,int P,uint32_t*c){unsigned m=(1u<<B)-1; memset(c,0,P*(1u<<B)*4);
 for(size_t i=0;i<n;++i){uint32_t k=ks[i]; for(int p=0;p<P;++p) ++c[(p<<B)+((k>>(p*B))&m)];}}
int main(int argc,char**argv){size_t n=1ull<<26; int huge=argc>1?atoi(argv[1]):0;
 uint32_t*a=big(n*4,huge),*b=big(n*4,huge); for(size_t i=0;i<n;++i)a[i]=(uint32_t)sm(i);
 static uint64_t c[4*2048],off[2048],nc[2048]; static uint32_t c32[4*2048];
 for(int rep=0;rep<2;++rep){
 double t;
 t=now();countall(a,n,8,4,c);printf("count 8bit x4 u64 %.1f\n",now()-t);
 t=now();countall32(a,n,8,4,c32);printf("count 8bit x4 u32 %.1f\n",now()-t);
 t=now();countall(a,n,11,3,c);printf("count 11bit x3 u64 %.1f\n",now()-t);
 for(int B=8;B<=11;B+=3){ countall(a,n,B,1,c);
  #define OFF {uint64_t s=0;for(unsigned d=0;d<(1u<<B);++d){off[d]=s;s+=c[d];}}
  OFF t=now();direct(a,b,n,B,0,off);printf("B%d direct %.1f\n",B,now()-t);
  OFF t=now();swc(a,b,n,B,0,off,0,0,0,nc);printf("B%d swc memcpy %.1f\n",B,now()-t);
  OFF t=now();swc(a,b,n,B,0,off,1,0,0,nc);printf("B%d swc nt128 %.1f\n",B,now()-t);
  OFF t=now();swc(a,b,n,B,0,off,2,0,0,nc);printf("B%d swc nt512 %.1f\n",B,now()-t);
  OFF t=now();swc(a,b,n,B,0,off,1,1,B,nc);printf("B%d swc nt128+count %.1f\n",B,now()-t);
 }}
 t: ;
 return 0;}
