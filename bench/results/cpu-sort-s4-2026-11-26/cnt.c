#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec*1e-6;}
static uint64_t sm(uint64_t x){x+=0x9e3779b97f4a7c15ull;x=(x^(x>>30))*0xbf58476d1ce4e5b9ull;x=(x^(x>>27))*0x94d049bb133111ebull;return x^(x>>31);}
__attribute__((noinline)) static void gen(const uint32_t*ks,size_t n,int P,const int*sh,const unsigned*mk,uint64_t*c){memset(c,0,P*256*8);
 for(size_t i=0;i<n;++i){uint32_t k=ks[i]; for(int p=0;p<P;++p) ++c[p*256+((k>>sh[p])&mk[p])];}}
__attribute__((noinline)) static void spec4(const uint32_t*ks,size_t n,uint64_t*c){memset(c,0,4*256*8);
 for(size_t i=0;i<n;++i){uint32_t k=ks[i]; ++c[k&255]; ++c[256+((k>>8)&255)]; ++c[512+((k>>16)&255)]; ++c[768+(k>>24)];}}
__attribute__((noinline)) static void spec4u32(const uint32_t*ks,size_t n,uint32_t*c){memset(c,0,4*256*4);
 for(size_t i=0;i<n;++i){uint32_t k=ks[i]; ++c[k&255]; ++c[256+((k>>8)&255)]; ++c[512+((k>>16)&255)]; ++c[768+(k>>24)];}}
__attribute__((noinline)) static void spec4x2(const uint32_t*ks,size_t n,uint32_t*c){memset(c,0,8*256*4);
 size_t i=0; for(;i+1<n;i+=2){uint32_t k=ks[i],j=ks[i+1]; ++c[k&255]; ++c[256+((k>>8)&255)]; ++c[512+((k>>16)&255)]; ++c[768+(k>>24)];
 ++c[1024+(j&255)]; ++c[1280+((j>>8)&255)]; ++c[1536+((j>>16)&255)]; ++c[1792+(j>>24)];}}
int main(){size_t n=1ull<<26; uint32_t*a=malloc(n*4); for(size_t i=0;i<n;++i)a[i]=(uint32_t)sm(i);
 static uint64_t c[4096]; static uint32_t c32[4096]; int sh[4]={0,8,16,24}; unsigned mk[4]={255,255,255,255};
 for(int r=0;r<3;++r){double t=now(); gen(a,n,4,sh,mk,c); double t1=now(); spec4(a,n,c); double t2=now(); spec4u32(a,n,c32); double t3=now(); spec4x2(a,n,c32); double t4=now();
 printf("gen %.1f spec4 %.1f spec4u32 %.1f spec4x2 %.1f\n",t1-t,t2-t1,t3-t2,t4-t3);}
}
