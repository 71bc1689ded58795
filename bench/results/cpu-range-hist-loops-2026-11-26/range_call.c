#define PP_EXPERIMENTAL 1
#include <parprim.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <stdint.h>
#include <string.h>
static double now(int thread){struct timespec t;clock_gettime(thread?CLOCK_PROCESS_CPUTIME_ID:CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc,char**argv){
  size_t n=(size_t)1<<(argc>1?atoi(argv[1]):24); int reps=argc>2?atoi(argv[2]):15; size_t nb=argc>3?atoi(argv[3]):4096;
  float*x=malloc(n*4); uint64_t s=88172645463325252ull;
  for(size_t i=0;i<n;i++){s^=s<<13;s^=s>>7;s^=s<<17; x[i]=(float)(-1.0+2.0*((s>>40)/(double)(1ull<<24)));}
  double*e=malloc((nb+1)*8); for(size_t k=0;k<=nb;k++){double f=(double)k/nb; e[k]=k==nb?1.0:(float)(-1.0+2.0*f*f);}
  uint32_t*c=malloc(nb*4); pp_context*ctx; if(pp_context_create(&ctx,PP_BACKEND_CPU,0)!=PP_OK) return 1;
  double bw=1e9,bc=1e9;
  for(int r=0;r<reps;r++){double w0=now(0),c0=now(1); if(pp_histogram_range(ctx,x,n,PP_F32,e,nb,c,PP_U32)!=PP_OK){puts(pp_context_last_error(ctx));return 1;} double w=now(0)-w0,cc=now(1)-c0; if(w<bw)bw=w; if(cc<bc)bc=cc;}
  uint64_t tot=0; for(size_t k=0;k<nb;k++) tot+=c[k];
  printf("n 2^%d: best wall %.2f ms, best cpu %.2f ms, cpu ns/sample %.3f (sum %llu)\n",__builtin_ctzll(n),bw*1e3,bc*1e3,bc*1e9/n,(unsigned long long)tot);
  return 0;}
