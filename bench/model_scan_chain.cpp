// bench/model_scan_chain.cpp -- a host model of hip/scan.hip's lookback_chain, run before the
// kernel first ran on a GPU: threads take tiles by ticket, lanes are a loop, states are 64-bit
// words with a ready bit (the f64 chain: a value word and a flag word, both written once).
// Checks every tile's prefix against the serial fold, plain and segmented, with tiles delayed
// so that look-backs cross several windows (SEQ: the windows in between folded again in order):
//   SEQ false: u32 sums, the window folded as a tree (any association: same bits);
//   SEQ true:  f32 aggregates carried in double, folded strictly in tile order: every prefix
//              must equal the sequential double fold bit for bit, whatever the timing.
//   g++ -O2 -std=c++17 -pthread -o model bench/model_scan_chain.cpp && ./model 200
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

template <typename V> struct T { V v; uint32_t f; };
template <typename V> static T<V> apply(T<V> a, T<V> b) { return b.f ? T<V>{b.v, a.f | b.f} : T<V>{a.v + b.v, a.f | b.f}; }
static std::atomic<long> windows{0}, waits{0};

template <typename V> struct Model {
    std::vector<std::atomic<uint64_t>> w; // two words per entry: value bits | ready, flag | ready
    uint64_t tiles;
    explicit Model(uint64_t n) : w(4 * n), tiles(n) { for (auto &x : w) x.store(0); }
    void publish(uint64_t e, T<V> x) {
        uint64_t b = 0; std::memcpy(&b, &x.v, sizeof x.v);
        w[2 * e].store(b, std::memory_order_relaxed);  // value first, then the ready word
        w[2 * e + 1].store((1ull << 63) | x.f, std::memory_order_release);
    }
    bool try_(uint64_t e, T<V> &x) {
        const uint64_t r = w[2 * e + 1].load(std::memory_order_acquire);
        if (!(r >> 63)) return false;
        const uint64_t b = w[2 * e].load(std::memory_order_relaxed);
        std::memcpy(&x.v, &b, sizeof x.v); x.f = (uint32_t)(r & 1u);
        return true;
    }
    template <bool SEQ> T<V> lookback(uint64_t t, T<V> agg, std::mt19937 &rng) {
        const uint64_t aggs = 0, incl = tiles; const T<V> ID{0, 0};
        if (t == 0) { publish(incl, agg); return ID; }
        publish(aggs + t, agg);
        if (rng() % 10 == 0) std::this_thread::sleep_for(std::chrono::microseconds(rng() % 200));
        T<V> p = ID; uint64_t end = t;
        for (;;) {
            T<V> v[32]; bool inc[32], act[32];
            for (unsigned lane = 0; lane < 32; ++lane) {
                v[lane] = ID; inc[lane] = false; act[lane] = (uint64_t)lane < end;
                if (act[lane]) for (const uint64_t i = end - 1 - lane;;) {
                    if (try_(incl + i, v[lane])) { inc[lane] = true; break; }
                    if (try_(aggs + i, v[lane])) break;
                    std::this_thread::yield();
                }
            }
            uint64_t m = 0;
            for (unsigned l = 0; l < 32; ++l) if (inc[l] || (act[l] && v[l].f)) m |= 1ull << l;
            if (SEQ) {
                if (!m) { end -= 32; ++waits; continue; }
                const unsigned stop = (unsigned)__builtin_ctzll(m);
                T<V> w = v[stop];
                for (int k = (int)stop - 1; k >= 0; --k) w = apply(w, v[k]);
                for (uint64_t e = end + 32; e <= t; e += 32) {  // later windows, oldest first
                    T<V> x[32];
                    for (unsigned l = 0; l < 32; ++l) {
                        while (!try_(aggs + e - 1 - l, x[l])) std::this_thread::yield();
                    }
                    for (int k = 31; k >= 0; --k) w = apply(w, x[k]);
                }
                p = w; break;
            } else {
                const unsigned stop = m ? (unsigned)__builtin_ctzll(m) : 32;
                for (unsigned l = 0; l < 32; ++l) if (l > stop) v[l] = ID;
                for (unsigned s = 1; s < 32; s <<= 1) {  // shuffles: every lane reads before any writes
                    T<V> o[32]; for (unsigned l = 0; l < 32; ++l) o[l] = v[l + s < 32 ? l + s : l];
                    for (unsigned l = 0; l < 32; ++l) if (l + s < 32) v[l] = apply(o[l], v[l]);
                }
                p = apply(v[0], p);
                if (m || end <= 32) break;
                end -= 32; ++windows;
            }
        }
        publish(incl + t, apply(p, agg));
        return p;
    }
};

template <typename V, bool SEQ> static int run(int blocks, int trial) {
    std::mt19937 g(trial);
    const uint64_t tiles = 1 + g() % 3000;
    const int seg = trial % 2, dense = trial % 4 >= 2;
    std::vector<T<V>> agg(tiles);
    for (auto &a : agg) {
        a.f = seg ? (dense ? (g() % 3 == 0) : (g() % 97 == 0)) : 0u;
        if (SEQ) a.v = (V)(float)std::ldexp((double)(int32_t)g(), (int)(g() % 40) - 50);  // f32 aggregates, mixed magnitudes
        else a.v = (V)g();
    }
    Model<V> md(tiles);
    std::vector<T<V>> got(tiles); std::atomic<uint64_t> ticket{0};
    std::vector<std::thread> th;
    for (int b = 0; b < blocks; ++b) th.emplace_back([&, b] {
        std::mt19937 rng(b * 7919 + trial);
        for (;;) { const uint64_t t = ticket.fetch_add(1); if (t >= tiles) break;
            if (rng() % 8 == 0) std::this_thread::yield();
            got[t] = md.template lookback<SEQ>(t, agg[t], rng); }
    });
    for (auto &x : th) x.join();
    T<V> ref{0, 0}; int bad = 0;
    for (uint64_t t = 0; t < tiles; ++t) {  // the serial, sequential fold
        if (std::memcmp(&got[t].v, &ref.v, sizeof(V)) != 0 || got[t].f != ref.f) {
            if (bad < 3) printf("trial %d tile %llu: got %.17g/%u want %.17g/%u\n", trial, (unsigned long long)t,
                                (double)got[t].v, got[t].f, (double)ref.v, ref.f);
            ++bad;
        }
        ref = apply(ref, agg[t]);
    }
    return bad;
}

int main(int argc, char **argv) {
    const int blocks = argc > 1 ? atoi(argv[1]) : 8;
    int bad = 0;
    for (int trial = 0; trial < 40; ++trial) bad += run<uint32_t, false>(blocks, trial);
    printf("u32, tree-folded windows: %ld look-backs past their first window\n", windows.load());
    for (int trial = 0; trial < 40; ++trial) bad += run<double, true>(blocks, trial);
    printf("f32 carried in f64, sequential fold: %ld look-backs past their first window\n", waits.load());
    printf("%s (%d mismatches)\n", bad ? "FAIL" : "ok: every tile's prefix equals the serial fold, bit for bit", bad);
    return bad != 0;
}
