/*
 * scan_impl.h -- one scan kernel of cpu/scan.c, a template: included once per instantiation
 * with these macros defined, which it #undefs at its end:
 *   NAME   the kernel's name prefix;   IN  the input type;   A  the accumulator (output) type
 *   OP     the operator (OP_SUM, ... of cpu/common.h);   IDENT  its identity in A
 * It defines:
 *   NAME_pair, NAME_join       (flag, value) pairs and the segmented operator
 *   NAME_counter, _push, _prefix   the binary counter of complete subtrees
 *   NAME_block_prefix          run aggregates of a block -> exclusive run prefixes, block total
 *   NAME_block_scan            a block's output from its run prefixes and the block prefix
 *   NAME_serial, NAME_parallel a whole range (one thread / all threads, same bits)
 *   NAME_run                   the dispatch-table entry (plain, flags or offsets)
 * Run prefixes are kept as separate arrays of values v and head bits f (f only with flags).
 * A template header rather than a macro so that a debugger, a sanitizer and the compiler's
 * messages point at these lines.
 */
#define SCAN_(x) CPU_CAT(NAME, _##x)

typedef struct SCAN_(pair) {
    A v;
    int f; /* a segment head lies in the range (head flags only) */
} SCAN_(pair);
_Static_assert(sizeof(SCAN_(pair)) <= PAIR_BYTES && sizeof(A) <= 8, "scratch layout");

ALWAYS_INLINE A SCAN_(op)(A a, A b) { return (A)OP(a, b); }
ALWAYS_INLINE SCAN_(pair) SCAN_(join)(SCAN_(pair) a, SCAN_(pair) b)
{
    if (b.f) return b;
    a.v = SCAN_(op)(a.v, b.v);
    return a;
}

typedef struct SCAN_(counter) {
    SCAN_(pair) slot[64]; /* slot[l]: a complete subtree of 2^l leaves */
    uint64_t count;
} SCAN_(counter);

static inline void SCAN_(push)(SCAN_(counter) *c, SCAN_(pair) p)
{
    uint64_t k = c->count;
    unsigned l = 0;
    for (; k & 1u; k >>= 1, ++l) p = SCAN_(join)(c->slot[l], p);
    c->slot[l] = p;
    ++c->count;
}
/* Everything pushed so far, subtrees folded from the largest; 0 if nothing was. */
static inline int SCAN_(prefix)(const SCAN_(counter) *c, SCAN_(pair) *out)
{
    const uint64_t k = c->count;
    if (!k) return 0;
    int l = 63 - __builtin_clzll(k);
    SCAN_(pair) r = c->slot[l];
    for (--l; l >= 0; --l)
        if ((k >> l) & 1u) r = SCAN_(join)(r, c->slot[l]);
    *out = r;
    return 1;
}

/* Exclusive prefixes of the runs of x[0, len) (len <= BLOCK) into v[0, nr) (and f with
 * flags); returns the block's aggregate (used only for a full block: a partial one is
 * the range's last). The sweeps run over the next power of two of runs, padded with the
 * identity, which never enters the prefix of a real run. */
static SCAN_(pair) SCAN_(block_prefix)(const IN *x, const uint8_t *fl, size_t len, A *v,
                                       uint8_t *f)
{
    const size_t full = len / RUN, nr = (len + RUN - 1) / RUN, np = pow2_ceil(nr);
    SCAN_(pair) total;
    if (!fl) {
        for (size_t r = 0; r < full; ++r) { /* a pairwise tree per run (vectorizes) */
            const IN *p = x + r * RUN;
            if (SAD_RUNS(IN, OP)) { /* byte sums: one psadbw a run (any order: exact) */
                v[r] = (A)sad_run(p);
                continue;
            }
            A t[RUN / 2];
            for (int j = 0; j < RUN / 2; ++j)
                t[j] = SCAN_(op)((A)p[j], (A)p[j + RUN / 2]);
            for (int h = RUN / 4; h > 0; h /= 2)
                for (int j = 0; j < h; ++j) t[j] = SCAN_(op)(t[j], t[j + h]);
            v[r] = t[0];
        }
        if (full < nr) {
            A a = (A)x[full * RUN];
            for (size_t i = full * RUN + 1; i < len; ++i) a = SCAN_(op)(a, (A)x[i]);
            v[full] = a;
        }
        for (size_t r = nr; r < np; ++r) v[r] = (A)(IDENT);
        for (size_t d = 1; d < np; d *= 2)
            for (size_t i = 2 * d - 1; i < np; i += 2 * d) v[i] = SCAN_(op)(v[i - d], v[i]);
        total.v = v[np - 1];
        total.f = 0;
        v[np - 1] = (A)(IDENT);
        for (size_t d = np / 2; d >= 1; d /= 2)
            for (size_t i = 2 * d - 1; i < np; i += 2 * d) {
                const A t = v[i - d];
                v[i - d] = v[i];
                v[i] = SCAN_(op)(v[i], t);
            }
        return total;
    }
    for (size_t r = 0; r < nr; ++r) { /* a chain per run, restarting at each head */
        const size_t e = min_size(len, (r + 1) * RUN);
        A a = (A)(IDENT);
        int h = 0;
        for (size_t i = r * RUN; i < e; ++i) {
            const int hi = fl[i] != 0;
            const A s = SCAN_(op)(a, (A)x[i]);
            a = hi ? (A)x[i] : s;
            h |= hi;
        }
        v[r] = a;
        f[r] = (uint8_t)h;
    }
    for (size_t r = nr; r < np; ++r) {
        v[r] = (A)(IDENT);
        f[r] = 0;
    }
    for (size_t d = 1; d < np; d *= 2)
        for (size_t i = 2 * d - 1; i < np; i += 2 * d) {
            if (!f[i]) v[i] = SCAN_(op)(v[i - d], v[i]);
            f[i] |= f[i - d];
        }
    total.v = v[np - 1];
    total.f = f[np - 1];
    v[np - 1] = (A)(IDENT);
    f[np - 1] = 0;
    for (size_t d = np / 2; d >= 1; d /= 2)
        for (size_t i = 2 * d - 1; i < np; i += 2 * d) {
            const A tv = v[i - d];
            const uint8_t tf = f[i - d];
            v[i - d] = v[i];
            f[i - d] = f[i];
            v[i] = tf ? tv : SCAN_(op)(v[i], tv);
            f[i] |= tf;
        }
    return total;
}

/* One element of a chain: returns out[i]; excl and seg are constants at every call. */
ALWAYS_INLINE A SCAN_(step)(A *acc, A v, int head, const int excl, const int seg, A init)
{
    if (excl) {
        const A s = seg && head ? init : *acc;
        *acc = SCAN_(op)(s, v);
        return s;
    }
    const A s = SCAN_(op)(*acc, v);
    *acc = seg && head ? v : s;
    return *acc;
}

/* The chains of the runs of x[0, len), run r starting at start[r]: GROUP full runs side
 * by side (through buf and stream_out when `stream`), then the rest one by one. excl and
 * seg are constants at every call. */
ALWAYS_INLINE void SCAN_(chains)(const IN *x, const uint8_t *fl, A *y, size_t len,
                                 const A *start, const int excl, const int seg, A init,
                                 int stream)
{
    const size_t full = len / RUN, nr = (len + RUN - 1) / RUN;
    A buf[GROUP * RUN];
    size_t r = 0;
    for (; r + GROUP <= full; r += GROUP) {
        A acc[GROUP];
        for (int j = 0; j < GROUP; ++j) acc[j] = start[r + j];
        const IN *xk = x + r * RUN;
        const uint8_t *fk = seg ? fl + r * RUN : NULL;
        A *yk = stream ? buf : y + r * RUN;
        /* one base, fixed offsets; fk (NULL unless segmented) is indexed, never advanced: NULL + 0
         * is undefined in C (the fuzzer's UBSan finding) */
        for (int k = 0; k < RUN; ++k, ++xk, ++yk)
            for (int j = 0; j < GROUP; ++j)
                yk[j * RUN] = SCAN_(step)(&acc[j], (A)xk[j * RUN], seg ? fk[k + j * RUN] != 0 : 0,
                                          excl, seg, init);
        if (stream) stream_out(y + r * RUN, buf, sizeof buf);
    }
    for (; r < nr; ++r) {
        A acc = start[r];
        const size_t e = min_size(len, (r + 1) * RUN);
        for (size_t i = r * RUN; i < e; ++i)
            y[i] = SCAN_(step)(&acc, (A)x[i], seg ? fl[i] != 0 : 0, excl, seg, init);
    }
}

/* Output of the block x[0, len) given its run prefixes and the prefix of the blocks
 * before it (base NULL: the range's first block). */
static void SCAN_(block_scan)(const IN *x, const uint8_t *fl, A *y, size_t len, const A *v,
                              const uint8_t *f, const SCAN_(pair) *base, int excl, A init,
                              int stream)
{
    const size_t nr = (len + RUN - 1) / RUN;
    A start[RUNS];
    start[0] = base ? base->v : excl ? init : (A)(IDENT);
    for (size_t r = 1; r < nr; ++r)
        start[r] = !base || (fl && f[r]) ? v[r] : SCAN_(op)(base->v, v[r]);
    if (excl)
        for (size_t r = base ? 0 : 1; r < nr; ++r) start[r] = SCAN_(op)(init, start[r]);
    stream = stream && ((uintptr_t)y & 15) == 0;
    if (fl) {
        if (excl) SCAN_(chains)(x, fl, y, len, start, 1, 1, init, stream);
        else SCAN_(chains)(x, fl, y, len, start, 0, 1, init, stream);
    } else {
        if (excl) SCAN_(chains)(x, NULL, y, len, start, 1, 0, init, stream);
        else SCAN_(chains)(x, NULL, y, len, start, 0, 0, init, stream);
    }
    if (stream) stream_fence();
}

static void SCAN_(serial)(const IN *x, const uint8_t *fl, A *y, size_t n, int excl, A init,
                          int stream)
{
    if (n <= RUN) { /* one run: what the general path does, without its set-up */
        SCAN_(block_scan)(x, fl, y, n, NULL, NULL, NULL, excl, init, 0);
        return;
    }
    A v[RUNS];
    uint8_t f[RUNS];
    SCAN_(counter) blocks;
    blocks.count = 0;
    for (size_t b = 0; b < n; b += BLOCK) {
        const size_t len = min_size(BLOCK, n - b);
        const uint8_t *fb = fl ? fl + b : NULL;
        SCAN_(pair) base;
        const int have = SCAN_(prefix)(&blocks, &base);
        const SCAN_(pair) total = SCAN_(block_prefix)(x + b, fb, len, v, f);
        SCAN_(block_scan)(x + b, fb, y + b, len, v, f, have ? &base : NULL, excl, init, stream);
        SCAN_(push)(&blocks, total);
    }
}

/* Run prefixes of block b into `slot`; returns its total. */
static inline SCAN_(pair) SCAN_(phase1)(const IN *x, const uint8_t *fl, size_t n, size_t b,
                                        unsigned char *slot)
{
    const size_t o = b * BLOCK;
    return SCAN_(block_prefix)(x + o, fl ? fl + o : NULL, min_size(BLOCK, n - o), (A *)slot,
                               slot + RUNS * 8);
}

/* All threads; the bits are those of NAME_serial. The threads claim chunks of K blocks in
 * order. For its chunk a thread computes the run prefixes (kept in its own scratch) and
 * publishes the block totals; feeds its own counter every total before the chunk (the
 * same sequence in every thread, so the same prefixes), waiting a little for a total that
 * is not published yet and then computing it itself, so that a descheduled thread never
 * stalls the others; then scans the chunk, whose input is still in its cache. */
static void SCAN_(parallel)(const IN *x, const uint8_t *fl, A *y, size_t n, int excl,
                            A init, const struct scan_scratch *s)
{
    const size_t n_blocks = (n + BLOCK - 1) / BLOCK, K = chunk_blocks(sizeof(IN));
    const size_t n_chunks = (n_blocks + K - 1) / K;
    /* In place, a late block's owner may overwrite it while we read it: wait instead. */
    const int in_place = (const void *)x == (const void *)y;
    SCAN_(pair) *total = (SCAN_(pair) *)s->mem;
    atomic_uchar *ready = (atomic_uchar *)(s->mem + n_blocks * PAIR_BYTES);
    unsigned char *own = s->mem + shared_bytes(n_blocks);
    for (size_t b = 0; b < n_blocks; ++b) atomic_store_explicit(&ready[b], 0, memory_order_relaxed);
    atomic_size_t next;
    atomic_init(&next, 0);
    _Pragma("omp parallel num_threads(s->threads)")
    {
        unsigned char *mine = own + (size_t)omp_get_thread_num() * (K + 1) * BLOCK_SCRATCH;
        SCAN_(counter) blocks;
        blocks.count = 0;
        for (;;) {
            const size_t c = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed);
            if (c >= n_chunks) break;
            const size_t b0 = c * K, b1 = min_size(n_blocks, b0 + K);
            for (size_t b = b0; b < b1; ++b) {
                total[b] = SCAN_(phase1)(x, fl, n, b, mine + (b - b0) * BLOCK_SCRATCH);
                atomic_store_explicit(&ready[b], 1, memory_order_release);
            }
            int patient = 1;
            for (size_t b = (size_t)blocks.count; b < b0; ++b) {
                int ready_b = wait_ready(&ready[b], patient);
                while (!ready_b && in_place) ready_b = wait_ready(&ready[b], 1);
                if (ready_b) {
                    SCAN_(push)(&blocks, total[b]);
                } else {
                    patient = 0;
                    SCAN_(push)(&blocks, SCAN_(phase1)(x, fl, n, b, mine + K * BLOCK_SCRATCH));
                }
            }
            for (size_t b = b0; b < b1; ++b) {
                const size_t o = b * BLOCK;
                const unsigned char *slot = mine + (b - b0) * BLOCK_SCRATCH;
                SCAN_(pair) base;
                const int have = SCAN_(prefix)(&blocks, &base);
                SCAN_(block_scan)(x + o, fl ? fl + o : NULL, y + o, min_size(BLOCK, n - o),
                                  (const A *)slot, slot + RUNS * 8, have ? &base : NULL,
                                  excl, init, s->stream);
                SCAN_(push)(&blocks, total[b]);
            }
        }
    }
}

static void SCAN_(range)(const IN *x, const uint8_t *fl, A *y, size_t n, int excl, A init,
                         const struct scan_scratch *s)
{
    if (s && s->mem && n > BLOCK && n * sizeof(IN) >= CPU_PAR_MIN_BYTES)
        SCAN_(parallel)(x, fl, y, n, excl, init, s);
    else
        SCAN_(serial)(x, fl, y, n, excl, init, s && s->stream);
}

static void SCAN_(offsets)(const IN *x, A *y, size_t n, const size_t *off, size_t n_seg,
                           int excl, A init, const struct scan_scratch *s)
{
    const struct scan_seg_plan p = plan_segments(n, off, n_seg, sizeof(IN), s);
    if (!p.parallel) {
        for (size_t k = 0; k < n_seg; ++k) {
            size_t b, len;
            segment_bounds(off, k, n, &b, &len);
            if (len) SCAN_(range)(x + b, NULL, y + b, len, excl, init, p.monotone ? s : NULL);
        }
        return;
    }
    _Pragma("omp parallel for schedule(dynamic, p.batch)")
    for (size_t k = 0; k < n_seg; ++k) {
        size_t b, len;
        segment_bounds(off, k, n, &b, &len);
        if (len && len < p.long_len) SCAN_(serial)(x + b, NULL, y + b, len, excl, init, 0);
    }
    for (size_t k = 0; k < n_seg; ++k) {
        size_t b, len;
        segment_bounds(off, k, n, &b, &len);
        if (len >= p.long_len) SCAN_(range)(x + b, NULL, y + b, len, excl, init, s);
    }
}

static void SCAN_(run)(const pp_scan_args *a, const struct scan_scratch *s)
{
    A init;
    memcpy(&init, a->init, sizeof init);
    if (a->offsets)
        SCAN_(offsets)((const IN *)a->in, (A *)a->out, a->n, a->offsets, a->n_segments,
                       a->exclusive, init, s);
    else
        SCAN_(range)((const IN *)a->in, a->head_flags, (A *)a->out, a->n, a->exclusive, init,
                     s);
}

#undef SCAN_
#undef NAME
#undef IN
#undef A
#undef OP
#undef IDENT
