// bench/model_scan_chain.cpp -- a host model of hip/scan.hip's lookback_chain, run before the
// kernel first ran on a GPU: threads take tiles by ticket, lanes are a loop, states are 64-bit
// words with a ready bit; checks every tile's prefix against the serial fold (plain and segmented,
// with tiles delayed so that look-backs cross several windows).
//   g++ -O2 -std=c++17 -pthread -o model bench/model_scan_chain.cpp && ./model 200
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <thread>
#include <vector>
#include <cstdlib>
struct T { uint32_t v, f; };
static T apply(T a, T b) { return b.f ? T{b.v, a.f | b.f} : T{a.v + b.v, a.f | b.f}; }
static const T ID{0, 0};
static std::vector<std::atomic<uint64_t>> *st;
static uint64_t tiles;
static std::atomic<long> windows{0};
static void publish(uint64_t e, T x) { (*st)[e].store((1ull << 63) | ((uint64_t)x.f << 32) | x.v, std::memory_order_relaxed); }
static bool try_(uint64_t e, T &x) { uint64_t w = (*st)[e].load(std::memory_order_relaxed); if (!(w >> 63)) return false; x = T{(uint32_t)w, (uint32_t)(w >> 32) & 1u}; return true; }
static T lookback_chain(uint64_t t, T agg, std::mt19937 &rng) {
    const uint64_t aggs = 0, incl = tiles;
    if (t == 0) { publish(incl, agg); return ID; }
    publish(aggs + t, agg);
    if (rng() % 10 == 0) std::this_thread::sleep_for(std::chrono::microseconds(rng() % 200));
    T p = ID; uint64_t end = t;
    for (;;) {
        T v[32]; bool inc[32];
        for (unsigned lane = 0; lane < 32; ++lane) {
            v[lane] = ID; inc[lane] = false;
            if ((uint64_t)lane < end) {
                const uint64_t i = end - 1 - lane;
                for (;;) {
                    if (try_(incl + i, v[lane])) { inc[lane] = true; break; }
                    if (try_(aggs + i, v[lane])) break;
                    std::this_thread::yield();
                }
            }
        }
        uint64_t m = 0; for (unsigned l = 0; l < 32; ++l) if (inc[l]) m |= 1ull << l;
        const unsigned stop = m ? (unsigned)__builtin_ctzll(m) : 32;
        for (unsigned l = 0; l < 32; ++l) if (l > stop) v[l] = ID;
        for (unsigned s = 1; s < 32; s <<= 1) {  // lanes read before any writes (shfl semantics)
            T o[32]; for (unsigned l = 0; l < 32; ++l) o[l] = v[l + s < 32 ? l + s : l];
            for (unsigned l = 0; l < 32; ++l) if (l + s < 32) v[l] = apply(o[l], v[l]);
        }
        p = apply(v[0], p);
        if (m || end <= 32 || p.f) break;
        end -= 32; ++windows;
        if (rng() % 4 == 0) std::this_thread::yield();
    }
    publish(incl + t, apply(p, agg));
    return p;
}
int main(int argc, char **argv) {
    const int blocks = argc > 1 ? atoi(argv[1]) : 8; int bad = 0;
    for (int trial = 0; trial < 40; ++trial) {
        std::mt19937 g(trial);
        tiles = 1 + g() % 3000;
        const int seg = trial % 2; const int dense = trial % 4 >= 2;
        std::vector<T> agg(tiles);
        for (auto &a : agg) a = T{(uint32_t)g(), seg ? (dense ? (g() % 3 == 0) : (g() % 97 == 0)) : 0u};
        std::vector<std::atomic<uint64_t>> s(2 * tiles); for (auto &w : s) w.store(0); st = &s;
        std::vector<T> got(tiles); std::atomic<uint64_t> ticket{0};
        std::vector<std::thread> th;
        for (int b = 0; b < blocks; ++b) th.emplace_back([&, b] {
            std::mt19937 rng(b * 7919 + trial);
            for (;;) { uint64_t t = ticket.fetch_add(1); if (t >= tiles) break;
                if (rng() % 8 == 0) std::this_thread::yield();
                got[t] = lookback_chain(t, agg[t], rng); }
        });
        for (auto &x : th) x.join();
        T ref = ID;
        for (uint64_t t = 0; t < tiles; ++t) {
            // exclusive prefix of tile t: fold of agg[0..t-1]; compare value only where meaningful
            if (got[t].v != ref.v || got[t].f != ref.f) { if (bad < 5) printf("trial %d tile %llu: got %u/%u want %u/%u\n", trial, (unsigned long long)t, got[t].v, got[t].f, ref.v, ref.f); ++bad; }
            ref = apply(ref, agg[t]);
        }
    }
    printf("look-backs past their first window: %ld\n", windows.load());
    printf("%s (%d mismatches)\n", bad ? "FAIL" : "ok: every tile's prefix equals the serial fold", bad);
    return bad != 0;
}
