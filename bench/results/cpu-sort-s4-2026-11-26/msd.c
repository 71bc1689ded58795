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
static void put(uint32_t*d,const uint32_t*s){__m128i*dd=(__m128i*)d;const __m128i*ss=(const __m128i*)s;
 _mm_stream_si128(dd,_mm_load_si128(ss));_mm_stream_si128(dd+1,_mm_load_si128(ss+1));_mm_stream_si128(dd+2,_mm_load_si128(ss+2));_mm_stream_si128(dd+3,_mm_load_si128(ss+3));}
static void swc(const uint32_t*ks,uint32_t*kd,size_t n,int B,int sh,uint64_t*off){
 const unsigned R=1u<<B,m=R-1; static _Alignas(64) uint32_t kb[2048][L]; static unsigned fill[2048],first[2048]; static uint64_t base[2048];
 for(unsigned d=0;d<R;++d){first[d]=fill[d]=off[d]%L;base[d]=off[d]-first[d];}
 for(size_t i=0;i<n;++i){uint32_t k=ks[i];unsigned d=(k>>sh)&m;unsigned f=fill[d];kb[d][f]=k;
  if(f+1<L){fill[d]=f+1;continue;}
  unsigned a=first[d];
  if(a==0) put(kd+base[d],kb[d]); else memcpy(kd+base[d]+a,&kb[d][a],(L-a)*4);
  base[d]+=L;fill[d]=first[d]=0;}
 _mm_sfence();
 for(unsigned d=0;d<R;++d){unsigned a=first[d],f=fill[d]; if(f>a) memcpy(kd+base[d]+a,&kb[d][a],(f-a)*4);}
}
/* bucket LSD: digits of widths w[0..P) from bit 0; src -> dst, tmp; P passes alternate so last lands in dst */
static void bucket(const uint32_t*src,uint32_t*dst,uint32_t*tmp,size_t m,int P,const int*w,int swcw){
 static uint32_t c[4][4096]; int sh[4]; int s=0; for(int p=0;p<P;++p){sh[p]=s;s+=w[p]; memset(c[p],0,4u<<w[p]);}
 for(size_t i=0;i<m;++i){uint32_t k=src[i]; for(int p=0;p<P;++p) ++c[p][(k>>sh[p])&((1u<<w[p])-1)];}
 const uint32_t*a=src;
 for(int p=0;p<P;++p){uint32_t*b=((P-1-p)&1)?tmp:dst; uint32_t o[4096]; uint32_t t=0; unsigned mk=(1u<<w[p])-1;
  for(unsigned d=0;d<=mk;++d){o[d]=t;t+=c[p][d];}
  int shp=sh[p];
  for(size_t i=0;i<m;++i){uint32_t k=a[i]; b[o[(k>>shp)&mk]++]=k;}
  a=b;}
}
int main(int argc,char**argv){size_t n=1ull<<26; int huge=argc>1?atoi(argv[1]):0;
 uint32_t*a=big(n*4,huge),*x=big(n*4,huge),*out=big(n*4,huge); for(size_t i=0;i<n;++i)a[i]=(uint32_t)sm(i);
 static uint64_t off[2048]; static uint64_t c[2048]; uint32_t*tmp=big(4<<20,huge);
 int W8[3]={8,8,8}, W11a[3]={7,7,7}, W11b[2]={11,10}, W8b[2]={12,12};
 for(int rep=0;rep<3;++rep) for(int v=0;v<4;++v){
  int B = v<2?8:11; double t0=now();
  memset(c,0,sizeof c); unsigned sh=32-B; for(size_t i=0;i<n;++i) ++c[a[i]>>sh];
  double t1=now(); uint64_t s=0; for(unsigned d=0;d<(1u<<B);++d){off[d]=s;s+=c[d];}
  swc(a,x,n,B,sh,off); double t2=now();
  s=0; for(unsigned d=0;d<(1u<<B);++d){size_t m=c[d]; if(v==0) bucket(x+s,out+s,tmp,m,3,W8,0); else if(v==1) bucket(x+s,out+s,tmp,m,2,W8b,0); else if(v==2) bucket(x+s,out+s,tmp,m,3,W11a,0); else bucket(x+s,out+s,tmp,m,2,W11b,0); s+=m;}
  double t3=now();
  for(size_t i=1;i<n;++i) if(out[i-1]>out[i]){printf("BAD %zu\n",i);break;}
  printf("v%d MSD%d count %.1f scatter %.1f buckets %.1f total %.1f\n",v,B,t1-t0,t2-t1,t3-t2,t3-t0);
 }
 return 0;}
