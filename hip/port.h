/*
 * port.h -- the one portability header of the HIP backend.
 *
 * On AMD it includes <hip/hip_runtime.h>. On NVIDIA (nvcc compiling the .hip files as CUDA) it
 * maps the HIP names the project uses onto CUDA, because the HIP-on-NVIDIA headers Debian
 * ships (HIP 5.2) do not compile against CUDA 13 (removed cudaDeviceProp fields). Only the
 * names used by hip/ and bench/ are mapped; keep them alphabetised within each group.
 *
 * It also defines the compile-time wave width PP_WAVE of each device pass, from the target
 * macros (never __AMDGCN_WAVEFRONT_SIZE, which newer ROCm compilers removed):
 *   gfx9 (CDNA: gfx90a, gfx940)  64
 *   gfx10, gfx11, gfx12 (RDNA)   32 (wave32, the default; build with -mwavefrontsize64 and
 *                                    PP_RDNA_WAVE64 for wave64)
 *   NVIDIA                       32
 * In the host pass PP_WAVE is the *largest* width (64), for sizing only; host code asks the
 * device for its real width (pp_hip_wave_width in backend.hip) where it matters.
 * Lane masks are 64-bit everywhere (pp_lanemask_t); pp_wavemask_t is the wave's own width, for
 * inner loops that only stay within a wave.
 */
#ifndef PP_HIP_PORT_H
#define PP_HIP_PORT_H

#include <stdint.h>

#if defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_HCC__) || defined(__HIPCC__)
#define PP_PORT_AMD 1
#include <hip/hip_runtime.h>
#else
#define PP_PORT_NVIDIA 1
#include <cuda_runtime.h>

/* ---- runtime: types and constants ---- */
#define hipDeviceAttributeComputeCapabilityMajor cudaDevAttrComputeCapabilityMajor
#define hipDeviceAttributeMaxSharedMemoryPerBlock cudaDevAttrMaxSharedMemoryPerBlock
#define hipDeviceAttributeMaxSharedMemoryPerMultiprocessor cudaDevAttrMaxSharedMemoryPerMultiprocessor
#define hipDeviceAttributeMultiprocessorCount cudaDevAttrMultiProcessorCount
#define hipDeviceAttributeSharedMemPerBlockOptin cudaDevAttrMaxSharedMemoryPerBlockOptin
#define hipDeviceAttributeWarpSize cudaDevAttrWarpSize
#define hipDeviceProp_t cudaDeviceProp
#define hipError_t cudaError_t
#define hipErrorInvalidValue cudaErrorInvalidValue
#define hipErrorNoDevice cudaErrorNoDevice
#define hipEvent_t cudaEvent_t
#define hipFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#define hipFuncAttributes cudaFuncAttributes
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemoryTypeDevice cudaMemoryTypeDevice
#define hipMemoryTypeHost cudaMemoryTypeHost
#define hipMemoryTypeManaged cudaMemoryTypeManaged
#define hipPointerAttribute_t cudaPointerAttributes
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipStream_t cudaStream_t
#define hipSuccess cudaSuccess

/* ---- runtime: calls ---- */
#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipEventCreate cudaEventCreate
#define hipEventDestroy cudaEventDestroy
#define hipEventElapsedTime cudaEventElapsedTime
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipFree cudaFree
#define hipFuncGetAttributes cudaFuncGetAttributes
#define hipFuncSetAttribute cudaFuncSetAttribute
#define hipGetDevice cudaGetDevice
#define hipGetDeviceCount cudaGetDeviceCount
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipGetErrorString cudaGetErrorString
#define hipGetLastError cudaGetLastError
#define hipHostFree cudaFreeHost
#define hipHostMalloc(p, bytes, flags) cudaMallocHost((p), (bytes))
#define hipLaunchCooperativeKernel cudaLaunchCooperativeKernel
#define hipMalloc cudaMalloc
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemsetAsync cudaMemsetAsync
#define hipOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor
#define hipPointerGetAttributes cudaPointerGetAttributes
#define hipSetDevice cudaSetDevice
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamSynchronize cudaStreamSynchronize
#endif

/* ---- an allocation's extent ----
 * pp_alloc_extent: the first byte and size of the allocation holding `ptr` where it is one
 * plain device allocation (hipMalloc / cudaMalloc); an error where the runtime cannot tell.
 * AMD: hipMemGetAddressRange. NVIDIA: the driver's cuMemGetAddressRange, fetched once through
 * the runtime (cudaGetDriverEntryPointByVersion) so that the library need not link libcuda,
 * and only for memory that cuMemAlloc handed out whole (the legacy-IPC attribute): for pool
 * (cudaMallocAsync) and virtual-memory (cuMemMap) ranges it can report one physical segment
 * of a larger contiguous range, which would reject valid calls. */
#if defined(PP_PORT_NVIDIA)
#include <cuda.h>
template <typename F> static inline F pp_port_driver_fn(const char *name)
{
    void *f = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion(name, &f, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
        (void)cudaGetLastError();
        f = nullptr;
    }
    return (F)f;
}
static inline cudaError_t pp_alloc_extent(void **base, size_t *size, const void *ptr)
{
    typedef CUresult (*range_fn)(CUdeviceptr *, size_t *, CUdeviceptr);
    typedef CUresult (*attr_fn)(void *, CUpointer_attribute, CUdeviceptr);
    static const range_fn range = pp_port_driver_fn<range_fn>("cuMemGetAddressRange");
    static const attr_fn attr = pp_port_driver_fn<attr_fn>("cuPointerGetAttribute");
    const CUdeviceptr p = (CUdeviceptr)(uintptr_t)ptr;
    int whole = 0; /* a boolean; the int is zeroed whatever width the driver writes */
    CUdeviceptr b = 0;
    if (!range || !attr || attr(&whole, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, p) != CUDA_SUCCESS ||
        !whole || range(&b, size, p) != CUDA_SUCCESS)
        return cudaErrorInvalidValue;
    *base = (void *)(uintptr_t)b;
    return cudaSuccess;
}
#else
static inline hipError_t pp_alloc_extent(void **base, size_t *size, const void *ptr)
{
    return hipMemGetAddressRange((hipDeviceptr_t *)base, size, (hipDeviceptr_t)ptr);
}
#endif

/* ---- wave width of this compilation pass ---- */
#if defined(__CUDA_ARCH__)
#define PP_WAVE 32
#elif defined(__GFX9__)
#define PP_WAVE 64
#elif defined(__GFX10__) || defined(__GFX11__) || defined(__GFX12__)
#if defined(PP_RDNA_WAVE64)
#define PP_WAVE 64
#else
#define PP_WAVE 32
#endif
#elif defined(__HIP_DEVICE_COMPILE__)
#error "port.h: unknown AMD target: add its wave width here"
#else
#define PP_WAVE 64 /* host pass: the largest width, for sizing only */
#endif
#define PP_WAVE_MAX 64
#define PP_WAVE_MIN 32

typedef uint64_t pp_lanemask_t;

#ifndef PP_DEVICE
#define PP_DEVICE __device__ __forceinline__
#endif

/* Lane index within the wave (blocks are always a multiple of the wave). */
PP_DEVICE unsigned pp_lane_id() { return threadIdx.x & (PP_WAVE - 1); }
PP_DEVICE unsigned pp_wave_id() { return threadIdx.x / PP_WAVE; }

/* ---- wave-level intrinsics: every lane of the wave participates ---- */
#if defined(PP_PORT_NVIDIA)
/* The full mask of a PP_WAVE-wide warp, derived, never spelled. */
#define PP_FULL_MASK ((unsigned)(~0ull >> (64 - PP_WAVE)))
template <typename T> PP_DEVICE T pp_shfl_xor(T v, int lane_mask, int width = PP_WAVE)
{
    return __shfl_xor_sync(PP_FULL_MASK, v, lane_mask, width);
}
template <typename T> PP_DEVICE T pp_shfl(T v, int src_lane, int width = PP_WAVE)
{
    return __shfl_sync(PP_FULL_MASK, v, src_lane, width);
}
PP_DEVICE pp_lanemask_t pp_ballot(int pred) { return (pp_lanemask_t)__ballot_sync(PP_FULL_MASK, pred); }
#else
template <typename T> PP_DEVICE T pp_shfl_xor(T v, int lane_mask, int width = PP_WAVE)
{
    return __shfl_xor(v, lane_mask, width);
}
template <typename T> PP_DEVICE T pp_shfl(T v, int src_lane, int width = PP_WAVE)
{
    return __shfl(v, src_lane, width);
}
PP_DEVICE pp_lanemask_t pp_ballot(int pred) { return (pp_lanemask_t)__ballot(pred); }
#endif

/* Make this wave's shared-memory writes visible to its other lanes (a wave-level barrier). */
PP_DEVICE void pp_wave_sync()
{
#if defined(PP_PORT_NVIDIA)
    __syncwarp();
#else
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
    __builtin_amdgcn_wave_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
#endif
}

/* Back off briefly inside a spin-wait on another block's progress. */
PP_DEVICE void pp_spin_pause()
{
#if defined(PP_PORT_NVIDIA)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    __nanosleep(32);
#endif
#else
    __builtin_amdgcn_s_sleep(1);
#endif
}

/* Sleep for about ns nanoseconds (a poll's back-off). NVIDIA: __nanosleep (sm_70 and later);
 * AMD: s_sleep in steps of 64 cycles, about 32 ns at 2 GHz (the count must be a constant). */
PP_DEVICE void pp_sleep_ns(unsigned ns)
{
#if defined(PP_PORT_NVIDIA)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    __nanosleep(ns);
#endif
#else
    for (unsigned k = 0; k < ns; k += 32) __builtin_amdgcn_s_sleep(1);
#endif
}

/* 16-byte load of data read once (streamed): bypasses L1 allocation where the target has
 * such a hint. `p` must be 16-byte aligned. */
struct alignas(16) pp_vec16 {
    uint32_t w[4];
};
PP_DEVICE pp_vec16 pp_load16_stream(const void *p)
{
#if defined(PP_PORT_NVIDIA)
    uint4 v = __ldcs(reinterpret_cast<const uint4 *>(p));
    pp_vec16 r;
    r.w[0] = v.x; r.w[1] = v.y; r.w[2] = v.z; r.w[3] = v.w;
    return r;
#else
    typedef uint32_t u32x4 __attribute__((ext_vector_type(4)));
    u32x4 v = __builtin_nontemporal_load(reinterpret_cast<const u32x4 *>(p));
    pp_vec16 r;
    r.w[0] = v.x; r.w[1] = v.y; r.w[2] = v.z; r.w[3] = v.w;
    return r;
#endif
}

/* threadIdx.x as a value the compiler cannot move: read where called, never hoisted out of a
 * loop around the call (NVIDIA: an asm volatile read of %tid.x). For code that derives many
 * values from the thread's index inside a loop that already sits at its register cap: hoisted,
 * they are held across the loop (bitonic.h's exchange form). Elsewhere (AMD) threadIdx.x. */
PP_DEVICE unsigned pp_thread_index()
{
#if defined(PP_PORT_NVIDIA) && defined(__CUDA_ARCH__)
    unsigned t;
    asm volatile("mov.u32 %0, %%tid.x;" : "=r"(t));
    return t;
#else
    return threadIdx.x;
#endif
}

/* Programmatic dependent launch (NVIDIA sm_90 and later; the host side: common.h,
 * pp_hip_launch_pdl). In a grid launched as a programmatic dependent of the previous kernel of
 * its stream, pp_grid_dep_wait() waits until that kernel has finished and its writes are
 * visible; a grid that may start before its predecessor ends must call it before it reads what
 * the predecessor writes, and before it exits (so that its end still implies the predecessor's).
 * pp_grid_dep_launch() lets the next such launch start once every block of this grid has called
 * it or exited. Both are no-ops in an ordinary launch and elsewhere (AMD, older NVIDIA). */
PP_DEVICE void pp_grid_dep_wait()
{
#if defined(PP_PORT_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
PP_DEVICE void pp_grid_dep_launch()
{
#if defined(PP_PORT_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* Copies of 16 bytes from global to shared memory that complete later, so that a block
 * can have the loads of its next piece of work in flight while it waits on something
 * else. pp_copy16_async(dst, src) starts one (both 16-byte aligned; src read once: no L1
 * allocation); pp_copy_async_commit() closes the batch this thread started;
 * pp_copy_async_wait() waits until this thread's batches have landed (then a wave or block
 * barrier makes them visible to the other threads). NVIDIA sm_80 and later: cp.async.cg.
 * Elsewhere (AMD) the copy is a plain load and store, complete when the call returns
 * (PP_ASYNC_COPY 0). */
#if defined(PP_PORT_NVIDIA) && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800)
#define PP_ASYNC_COPY 1
#else
#define PP_ASYNC_COPY 0
#endif
PP_DEVICE void pp_copy_async_commit()
{
#if defined(PP_PORT_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
PP_DEVICE void pp_copy_async_wait()
{
#if defined(PP_PORT_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group 0;" ::: "memory");
#endif
}

PP_DEVICE void pp_copy16_async(pp_vec16 *dst, const void *src)
{
#if defined(PP_PORT_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(src) : "memory");
#else
    *dst = pp_load16_stream(src);
#endif
}

/* The same for one 4-byte word (both 4-byte aligned), for data with no wider alignment (a
 * segment's keys): pp_copy4_async(dst, src) starts it, in the batch that
 * pp_copy_async_commit() closes and pp_copy_async_wait() waits for. NVIDIA sm_80 and later:
 * cp.async.ca (the only form of 4 bytes; through L1). Elsewhere a plain load and store. */
PP_DEVICE void pp_copy4_async(uint32_t *dst, const void *src)
{
#if defined(PP_PORT_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(d), "l"(src) : "memory");
#else
    *dst = *reinterpret_cast<const uint32_t *>(src);
#endif
}

/* Hints that bring global memory into the L2 cache ahead of its loads, so that a block can
 * start the reads of its next piece of work without registers or shared memory to hold them.
 * pp_prefetch_l2(p, bytes): the range's whole 16-byte units (rounded inward: nothing outside
 * the range is touched; what is left at the ends lies in the 32-byte sectors of the units or
 * of the neighbours' ranges); pp_prefetch_l2_line(p): the line holding p. NVIDIA sm_90 and
 * later: cp.async.bulk.prefetch.L2 (one instruction a range); sm_80 to sm_89: prefetch.L2 a
 * 128-byte line at a time; elsewhere (AMD, older NVIDIA) nothing: the loads read memory as
 * they would. No result depends on them. */
PP_DEVICE void pp_prefetch_l2_line(const void *p)
{
#if defined(PP_PORT_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
#else
    (void)p;
#endif
}
PP_DEVICE void pp_prefetch_l2(const void *p, uint64_t bytes)
{
#if defined(PP_PORT_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const uint64_t a0 = ((uint64_t)(uintptr_t)p + 15u) & ~(uint64_t)15u, a1 = ((uint64_t)(uintptr_t)p + bytes) & ~(uint64_t)15u;
    if (a1 > a0)
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(a0), "r"((unsigned)(a1 - a0)) : "memory");
#elif defined(PP_PORT_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const char *c = (const char *)p;
    for (uint64_t o = 0; o < bytes; o += 128) pp_prefetch_l2_line(c + o);
#else
    (void)p;
    (void)bytes;
#endif
}

/* ---- radix sort family (issue 20): lanes holding the same digit ----
 * pp_match_digit(d, bits, valid): the mask of the lanes of the wave whose `valid` is set and
 * whose d has the same low `bits` bits as this lane's (every lane of the wave calls it; the
 * result of an invalid lane is of no use). NVIDIA: __match_any_sync (sm_70 and later) on the
 * digit, or a sentinel above every digit for an invalid lane; AMD (no match instruction): one
 * ballot per bit, each lane keeping the lanes that agree with its bit, in 64-bit masks, so
 * that waves of 32 and 64 run the same code (bits <= 8). pp_lanemask_lt: the lanes below this
 * one. */
PP_DEVICE pp_lanemask_t pp_lanemask_lt() { return (1ull << pp_lane_id()) - 1ull; }
/* A lane mask in the width of this pass's waves (pp_wavemask_t: 32 bits where PP_WAVE is 32,
 * else 64), for the inner loops of the ranking, where 64-bit masks on waves of 32 doubled the
 * logic (each AND / XOR / POPC a pair of instructions on NVIDIA). pp_ballot_wave: the ballot
 * in that width; pp_wavemask_lt: the lanes below this one; pp_wavemask_top: the highest lane
 * of a non-zero mask. */
#if PP_WAVE == 32
typedef uint32_t pp_wavemask_t;
PP_DEVICE int pp_wavemask_top(pp_wavemask_t m) { return (PP_WAVE - 1) - __clz((int)m); }
PP_DEVICE unsigned pp_wavemask_popc(pp_wavemask_t m) { return (unsigned)__popc(m); }
#else
typedef uint64_t pp_wavemask_t;
PP_DEVICE int pp_wavemask_top(pp_wavemask_t m) { return (PP_WAVE - 1) - __clzll((long long)m); }
PP_DEVICE unsigned pp_wavemask_popc(pp_wavemask_t m) { return (unsigned)__popcll(m); }
#endif
PP_DEVICE pp_wavemask_t pp_ballot_wave(int pred) { return (pp_wavemask_t)pp_ballot(pred); }
PP_DEVICE pp_wavemask_t pp_wavemask_lt() { return (pp_wavemask_t)pp_lanemask_lt(); }
/* The ballot form on every target, MAXB ballots unrolled (d < 2^bits <= 2^MAXB: the bits
 * above `bits` are 0 in every lane, so their ballots keep every lane): CUB matches digits this
 * way on NVIDIA too, which it found faster than the match instruction. With s all ones where
 * this lane's bit is set, the lanes that agree with it are ~(ballot ^ s) (sm_90 makes that 6
 * instructions a bit: bench/NOTES.md "sort: third session"). */
template <int MAXB> PP_DEVICE pp_wavemask_t pp_match_digit_wave(unsigned d, bool valid)
{
    pp_wavemask_t m = pp_ballot_wave(valid);
#pragma unroll
    for (int b = 0; b < MAXB; ++b) {
        const pp_wavemask_t s = (pp_wavemask_t)0 - (pp_wavemask_t)((d >> b) & 1u);
        m &= ~(pp_ballot_wave(s != 0) ^ s);
    }
    return m;
}
/* The same masks, written for the fewest instructions where the target allows. NVIDIA (waves
 * of 32): in PTX, the bit test straight into a predicate, the vote on it, a NOT under the
 * predicate's negation and an AND; ptxas makes that 3 SASS a bit on sm_90 (the 8 bit tests
 * become one R2P), against 6 for pp_match_digit_wave (bench/NOTES.md "sort: third session,
 * round 2"). Elsewhere (AMD, waves of 32 or 64) pp_match_digit_wave. */
template <int MAXB> PP_DEVICE pp_wavemask_t pp_match_digit_wave_fused(unsigned d, bool valid)
{
#if defined(PP_PORT_NVIDIA) && PP_WAVE == 32
    pp_wavemask_t m = pp_ballot_wave(valid);
#pragma unroll
    for (int b = 0; b < MAXB; ++b)
        asm("{\n\t.reg .pred p;\n\t.reg .b32 t;\n\t"
            "and.b32 t, %1, %2;\n\tsetp.ne.u32 p, t, 0;\n\t"
            "vote.sync.ballot.b32 t, p, %3;\n\t@!p not.b32 t, t;\n\tand.b32 %0, %0, t;\n\t}"
            : "+r"(m)
            : "r"(d), "r"(1u << b), "r"(PP_FULL_MASK));
    return m;
#else
    return pp_match_digit_wave<MAXB>(d, valid);
#endif
}
/* Between two rounds of shared atomic adds whose old values go through a shuffle (a wave's
 * leaders add to their digits' counters, every lane reads the old value from its leader): the
 * next round's adds to a word must follow this round's. NVIDIA: nothing to do: a leader's add
 * has returned its old value into the shuffle, which no lane leaves before every lane has
 * entered it, and the next round's adds depend on the next round's ballots, which follow the
 * shuffle (CUB's match ranking relies on the same; a __syncwarp here cost an instruction per
 * item). Elsewhere pp_wave_sync, which also keeps the compiler from moving the adds. */
PP_DEVICE void pp_shared_add_order()
{
#if !defined(PP_PORT_NVIDIA)
    pp_wave_sync();
#endif
}
template <int MAXB> PP_DEVICE pp_lanemask_t pp_match_digit_ballot(unsigned d, int bits, bool valid)
{
    (void)bits;
    return (pp_lanemask_t)pp_match_digit_wave<MAXB>(d, valid);
}
PP_DEVICE pp_lanemask_t pp_match_digit(unsigned d, int bits, bool valid)
{
#if defined(PP_PORT_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    (void)bits;
    return (pp_lanemask_t)__match_any_sync(PP_FULL_MASK, valid ? d : 0xFFFFFFFFu) & pp_ballot(valid);
#else
    return pp_match_digit_ballot<8>(d, bits, valid);
#endif
}

#endif /* PP_HIP_PORT_H */
