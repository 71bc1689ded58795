/*
 * tbb_peer.cpp -- oneTBB's reductions and scans on host data, timed in the same process and in
 * the same way as parprim's CPU rows of parprim-bench (tbb_peer.h describes the job). What a
 * C++ caller would write first with TBB: parallel_reduce and parallel_scan over a
 * blocked_range with the default (auto) partitioner, accumulating in the output type; the
 * segmented reduction is a parallel_for over the segments.
 */
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/parallel_scan.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>
#include <tbb/version.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

#include "parprim.h"
#include "tbb_peer.h"

namespace {

char g_message[256];
constexpr size_t kGrain = 16384; /* elements per leaf range at least: the per-task overhead stays small */

using range = tbb::blocked_range<size_t>;

/* Warm up once, then job.reps repetitions of job.batch calls of `call` timed with the host
 * clock; the median ms per call. */
template <class Call> double time_host(const pb_tbb_job &job, Call call)
{
    call();
    const int reps = job.reps > 0 ? job.reps : 1, batch = job.batch > 0 ? job.batch : 1;
    std::vector<double> t;
    for (int r = 0; r < reps; r++) {
        auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < batch; k++) call();
        auto t1 = std::chrono::steady_clock::now();
        t.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count() / batch);
    }
    std::sort(t.begin(), t.end());
    const size_t m = t.size() / 2;
    return t.size() % 2 ? t[m] : 0.5 * (t[m - 1] + t[m]);
}

struct Sum {
    template <class T> static T identity() { return T(0); }
    template <class T> static T apply(T a, T b) { return a + b; }
};
struct Min {
    template <class T> static T identity() { return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max(); }
    template <class T> static T apply(T a, T b) { return b < a ? b : a; }
};
struct Max {
    template <class T> static T identity() { return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest(); }
    template <class T> static T apply(T a, T b) { return b > a ? b : a; }
};

template <class Op, class In, class Out> double run_reduce(const pb_tbb_job &job)
{
    const In *in = (const In *)job.in;
    Out res = Op::template identity<Out>();
    double ms = time_host(job, [&] {
        res = tbb::parallel_reduce(
            range(0, job.n, kGrain), Op::template identity<Out>(),
            [&](const range &r, Out acc) {
                for (size_t i = r.begin(); i != r.end(); ++i) acc = Op::apply(acc, (Out)in[i]);
                return acc;
            },
            [](Out a, Out b) { return Op::apply(a, b); });
    });
    if (job.result) *(Out *)job.result = res;
    return ms;
}

/* The first index of the extreme: the join keeps the left one on ties (parallel_reduce keeps
 * the order of the ranges). */
template <class T> double run_arg(const pb_tbb_job &job, bool is_max)
{
    const T *in = (const T *)job.in;
    struct best {
        T v;
        size_t i;
    };
    const best none = {is_max ? Max::identity<T>() : Min::identity<T>(), SIZE_MAX};
    auto better = [is_max](const best &a, const best &b) {
        if (b.i == SIZE_MAX) return a;
        if (a.i == SIZE_MAX) return b;
        return (is_max ? b.v > a.v : b.v < a.v) ? b : a;
    };
    best res = none;
    double ms = time_host(job, [&] {
        res = tbb::parallel_reduce(
            range(0, job.n, kGrain), none,
            [&](const range &r, best acc) {
                for (size_t i = r.begin(); i != r.end(); ++i) acc = better(acc, best{in[i], i});
                return acc;
            },
            better);
    });
    if (job.result) *(T *)job.result = res.v;
    if (job.index) *job.index = res.i;
    return ms;
}

template <class In, class Out> double run_segsum(const pb_tbb_job &job)
{
    const In *in = (const In *)job.in;
    Out *res = (Out *)job.result;
    std::vector<Out> tmp(res ? 0 : job.n_segments);
    Out *o = res ? res : tmp.data();
    return time_host(job, [&] {
        tbb::parallel_for(range(0, job.n_segments, 64), [&](const range &r) {
            for (size_t s = r.begin(); s != r.end(); ++s) {
                Out acc = 0;
                for (size_t i = job.offsets[s]; i < job.offsets[s + 1]; ++i) acc += (Out)in[i];
                o[s] = acc;
            }
        });
    });
}

template <class Op, class In, class Out> double run_scan(const pb_tbb_job &job, bool exclusive)
{
    const In *in = (const In *)job.in;
    Out *out = (Out *)job.out;
    return time_host(job, [&] {
        tbb::parallel_scan(
            range(0, job.n, kGrain), Op::template identity<Out>(),
            [&](const range &r, Out acc, bool final) {
                for (size_t i = r.begin(); i != r.end(); ++i) {
                    const Out next = Op::apply(acc, (Out)in[i]);
                    if (final) out[i] = exclusive ? acc : next;
                    acc = next;
                }
                return acc;
            },
            [](Out a, Out b) { return Op::apply(a, b); });
    });
}

/* Inclusive sum by head flags: the carried value is (a head was seen, sum since the last head). */
template <class T> double run_segscan_sum(const pb_tbb_job &job)
{
    const T *in = (const T *)job.in;
    const uint8_t *flags = job.flags;
    T *out = (T *)job.out;
    struct carry {
        bool head;
        T sum;
    };
    return time_host(job, [&] {
        tbb::parallel_scan(
            range(0, job.n, kGrain), carry{false, T(0)},
            [&](const range &r, carry acc, bool final) {
                for (size_t i = r.begin(); i != r.end(); ++i) {
                    if (flags[i]) acc = carry{true, in[i]};
                    else acc.sum += in[i];
                    if (final) out[i] = acc.sum;
                }
                return acc;
            },
            [](carry a, carry b) { return b.head ? b : carry{a.head, a.sum + b.sum}; });
    });
}

#define PB_PAIR(a, b) ((a) * 16 + (b))

} // namespace

/* radix sort family (issue 20): copy the keys to out, sort them there (ascending; the bench's
 * keys hold no NaN, so operator< is the library's order). */
template <class T> double run_sort(const pb_tbb_job &job, bool parallel)
{
    const T *in = (const T *)job.in;
    T *out = (T *)job.out;
    if (!out) {
        snprintf(g_message, sizeof g_message, "pb_tbb_run: a sort needs job.out");
        return -1.0;
    }
    return time_host(job, [&] {
        tbb::parallel_for(range(0, job.n, 1 << 20), [&](const range &r) { std::copy(in + r.begin(), in + r.end(), out + r.begin()); });
        if (parallel) tbb::parallel_sort(out, out + job.n);
        else std::sort(out, out + job.n);
    });
}

extern "C" const char *pb_tbb_last_error(void) { return g_message; }

extern "C" const char *pb_tbb_describe(void)
{
    static char d[64];
    snprintf(d, sizeof d, "oneTBB %s (%d threads)", TBB_VERSION_STRING, tbb::this_task_arena::max_concurrency());
    return d;
}

extern "C" int pb_tbb_probe_threads(void)
{
    std::atomic<uint64_t> seen{0};
    tbb::parallel_for(range(0, 64, 1), [&](const range &) {
        const int k = tbb::this_task_arena::current_thread_index();
        seen.fetch_or(1ull << (k & 63));
        const auto t0 = std::chrono::steady_clock::now();
        while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(1)) {
        }
    });
    return __builtin_popcountll(seen.load());
}

extern "C" double pb_tbb_run(const pb_tbb_job *job)
{
    g_message[0] = '\0';
    const pb_tbb_job &j = *job;
    const int pair = PB_PAIR(j.in_type, j.out_type);
    switch (j.kind) {
    case PB_TBB_SUM:
        switch (pair) {
        case PB_PAIR(PP_F32, PP_F32): return run_reduce<Sum, float, float>(j);
        case PB_PAIR(PP_F32, PP_F64): return run_reduce<Sum, float, double>(j);
        case PB_PAIR(PP_F64, PP_F64): return run_reduce<Sum, double, double>(j);
        case PB_PAIR(PP_U8, PP_U64): return run_reduce<Sum, uint8_t, uint64_t>(j);
        case PB_PAIR(PP_I32, PP_I64): return run_reduce<Sum, int32_t, int64_t>(j);
        }
        break;
    case PB_TBB_MIN:
    case PB_TBB_MAX: {
        const bool mx = j.kind == PB_TBB_MAX;
        if (j.in_type == PP_I32) return mx ? run_reduce<Max, int32_t, int32_t>(j) : run_reduce<Min, int32_t, int32_t>(j);
        if (j.in_type == PP_F32) return mx ? run_reduce<Max, float, float>(j) : run_reduce<Min, float, float>(j);
        break;
    }
    case PB_TBB_ARGMIN:
    case PB_TBB_ARGMAX:
        if (j.in_type == PP_F32) return run_arg<float>(j, j.kind == PB_TBB_ARGMAX);
        if (j.in_type == PP_F64) return run_arg<double>(j, j.kind == PB_TBB_ARGMAX);
        break;
    case PB_TBB_SEGSUM:
        if (pair == PB_PAIR(PP_F32, PP_F32)) return run_segsum<float, float>(j);
        break;
    case PB_TBB_INCLUSIVE_SUM:
        if (pair == PB_PAIR(PP_F32, PP_F32)) return run_scan<Sum, float, float>(j, false);
        if (pair == PB_PAIR(PP_F64, PP_F64)) return run_scan<Sum, double, double>(j, false);
        break;
    case PB_TBB_EXCLUSIVE_SUM:
        if (pair == PB_PAIR(PP_U32, PP_U32)) return run_scan<Sum, uint32_t, uint32_t>(j, true);
        if (pair == PB_PAIR(PP_U8, PP_U64)) return run_scan<Sum, uint8_t, uint64_t>(j, true);
        break;
    case PB_TBB_INCLUSIVE_MAX:
        if (pair == PB_PAIR(PP_I32, PP_I32)) return run_scan<Max, int32_t, int32_t>(j, false);
        break;
    case PB_TBB_SEGSCAN_SUM:
        if (pair == PB_PAIR(PP_F32, PP_F32) && j.flags) return run_segscan_sum<float>(j);
        break;
    /* radix sort family (issue 20) */
    case PB_TBB_SORT:
    case PB_TBB_STD_SORT: {
        const bool par = j.kind == PB_TBB_SORT;
        switch (j.in_type) {
        case PP_U32: return run_sort<uint32_t>(j, par);
        case PP_I32: return run_sort<int32_t>(j, par);
        case PP_F32: return run_sort<float>(j, par);
        case PP_U64: return run_sort<uint64_t>(j, par);
        default: break;
        }
        break;
    }
    }
    snprintf(g_message, sizeof g_message, "pb_tbb_run: kind %d with %s -> %s is not instantiated in tbb_peer.cpp",
             (int)j.kind, pp_dtype_name((pp_dtype)j.in_type) ? pp_dtype_name((pp_dtype)j.in_type) : "?",
             pp_dtype_name((pp_dtype)j.out_type) ? pp_dtype_name((pp_dtype)j.out_type) : "?");
    return -1.0;
}
