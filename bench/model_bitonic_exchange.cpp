// bench/model_bitonic_exchange.cpp -- a host model of hip/bitonic.h's exchange form (the
// direction form past a thread's registers, each cross-thread half-cleaner an exchange of half
// of a thread's words with the pivot register bit, the places tracked), written and run before
// the kernels ran on a GPU. Threads are a loop, a stage runs for every thread at once. For runs
// of 16 and 8 words, waves of 32 and 64, and every class c up to the tile, it sorts random words,
// words with many ties, and mostly-sentinel words, and checks every group of 2^c against
// std::sort and every slot written once at the returned runs. It prints the shuffles and
// shared-memory exchanges a key (the MIO count of bench/NOTES.md, sixteenth session).
//   g++ -O2 -std=c++17 -o model bench/model_bitonic_exchange.cpp && ./model
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>
#include <algorithm>
typedef uint32_t W;
static int LI, I, H, T, LN, WAVE, LW;
static std::vector<std::vector<W>> X; // X[tid][r]
static void reg_half(std::vector<W> &x, int J) { for (; J >= 1; J /= 2) for (int r = 0; r < I; ++r) if ((r & J) == 0) { W a = std::min(x[r], x[r ^ J]), b = std::max(x[r], x[r ^ J]); x[r] = a; x[r ^ J] = b; } }
static void notif(std::vector<W> &x, int r, bool b) { if (b) x[r] = ~x[r]; }
static void flipform_reg(std::vector<W> &x, int c) { // old pp_bn_reg_phases<2>
  for (int K = 2; K <= I && K <= (1 << c); K *= 2) {
    for (int r = 0; r < I; ++r) if ((r & (K / 2)) == 0) { int s = r ^ (K - 1); W a = std::min(x[r], x[s]), b = std::max(x[r], x[s]); x[r] = a; x[s] = b; }
    reg_half(x, K / 4);
  }
}
static unsigned network(int c, std::vector<unsigned> &ob, long &xch_shfl, long &xch_smem) {
  for (int t = 0; t < T; ++t) { flipform_reg(X[t], c); if (c > LI && (t & 1)) std::reverse(X[t].begin(), X[t].end()); }
  const int PB = LN - LI <= 8 ? 3 : 4; const uint64_t PM = (1u << PB) - 1;
  uint64_t pos = 0;
  for (int j = LI; j < LN; ++j) pos |= (uint64_t)(j - LI) << (PB * (j - LI + 1));
  auto P_ = [&](int j) { return (unsigned)((pos >> (PB * (j - LI + 1))) & PM); };
  for (int p = LI + 1; p <= c; ++p) {
    unsigned qp = P_(p - 1), qc = p < c ? P_(p) : 0;
    for (int t = 0; t < T; ++t) {
      bool prev = p > LI + 1 ? (t >> qp) & 1 : 0, cur = p < c ? ((t >> qc) & 1) : 0;
      for (int r = 0; r < I; ++r) notif(X[t], r, prev ^ cur);
    }
    for (int j = p - 1; j >= LI - 1; --j) {
      unsigned q = P_(j);
      if ((int)q < LW) ++xch_shfl; else ++xch_smem;
      std::vector<std::vector<W>> S(T, std::vector<W>(H));
      for (int t = 0; t < T; ++t) { bool lower = ((t >> q) & 1) == 0; for (int r = 0; r < H; ++r) S[t][r] = lower ? X[t][r + H] : X[t][r]; }
      for (int t = 0; t < T; ++t) { bool lower = ((t >> q) & 1) == 0; for (int r = 0; r < H; ++r) {
          W keep = lower ? X[t][r] : X[t][r + H], recv = S[t ^ (1 << q)][r];
          X[t][r] = std::min(keep, recv); X[t][r + H] = std::max(keep, recv); } }
      int sh = PB * (j == p - 1 ? 0 : j - LI + 2);
      pos = (pos & ~(PM << sh)) | (uint64_t)q << sh;
    }
    for (int t = 0; t < T; ++t) reg_half(X[t], H / 2);
  }
  for (int t = 0; t < T; ++t) { unsigned o = 0; for (int j = LI; j < LN; ++j) o |= ((t >> P_(j)) & 1u) << j; ob[t] = o; }
  return 0;
}
int main() {
  int bad = 0;
  for (int cfg = 0; cfg < 4; ++cfg) {
    I = cfg & 1 ? 8 : 16; WAVE = cfg & 2 ? 64 : 32; T = 256; H = I / 2;
    LI = __builtin_ctz(I); LN = __builtin_ctz(I * T); LW = __builtin_ctz(WAVE);
    for (int c = 0; c <= LN; ++c) for (int rep = 0; rep < 3; ++rep) {
      int N = I * T; std::vector<W> in(N);
      for (int i = 0; i < N; ++i) in[i] = rep == 0 ? rand() : rep == 1 ? rand() % 7 : (rand() % 3 ? ~0u : rand());
      X.assign(T, std::vector<W>(I));
      for (int t = 0; t < T; ++t) for (int r = 0; r < I; ++r) X[t][r] = in[t * I + r];
      std::vector<unsigned> ob(T); long xs = 0, xm = 0;
      network(c, ob, xs, xm);
      std::vector<W> out(N, 0xdeadbeef); std::vector<int> hit(N, 0);
      for (int t = 0; t < T; ++t) for (int r = 0; r < I; ++r) { out[ob[t] + r] = X[t][r]; hit[ob[t] + r]++; }
      for (int i = 0; i < N; ++i) if (hit[i] != 1) { bad++; printf("hit I=%d W=%d c=%d i=%d\n", I, WAVE, c, i); break; }
      int G = 1 << c;
      for (int g = 0; g < N; g += G) { std::vector<W> a(in.begin() + g, in.begin() + g + G); std::sort(a.begin(), a.end());
        if (!std::equal(a.begin(), a.end(), out.begin() + g)) { bad++; printf("BAD I=%d W=%d c=%d g=%d rep=%d\n", I, WAVE, c, g, rep); break; } }
      if (rep == 0) printf("I=%d W=%d c=%2d exchanges shfl %ld smem %ld  MIO/key %.1f\n", I, WAVE, c, xs, xm, (xs * 0.5 + xm * 1.0));
    }
  }
  printf(bad ? "FAILED %d\n" : "all sorted\n", bad);
  return bad != 0;
}
