#!/usr/bin/env bash
# .wt/review.sh -- one device call for branch s12-review (the hip/ review leftovers: no intended
# change of any result's bits or of speed). Run from the repository root after
# `source .gpu/prep.sh`, carry [".gpu", ".wt/review.sh", ".wt/review-bits.c", ".wt/review-new",
# ".wt/review-base"]:   bash .wt/review.sh 2>&1 | tee $OUT/review.txt
# 1. builds .wt/review-new (parprim, test_sat, test_sort, parprim-bench) and .wt/review-base
#    (= main: parprim, parprim-bench) side by side, NVIDIA sm_90, Release;
# 2. review-bits (.wt/review-bits.c) against each tree's libparprim: hashes of every SAT output
#    with reduce-then-scan forced (rs_sums / rs_carries / rs_table, 7 type pairs, both forms,
#    edge shapes, padded pitches) and of sort_keys / argsort outputs; base and new must be equal;
# 3. PP_TEST_BACKEND=hip PP_TEST_QUICK=1 test_sat and test_sort (new) beside compute-sanitizer
#    memcheck [t_sat_s*: shapes (AUTO = reduce-then-scan on sm_90) and strategies (forced, long
#    rs_carries walks, wide corners)], racecheck and synccheck [t_sat_strategies], memcheck and
#    racecheck [t_sort_u32];
# 4. parprim-bench rows sat f32 / u8->u32, sat_two_pass, sat_one_pass, sat_1080p (+ _one_pass),
#    sort_keys u32, sort_keys f32 at their defaults, CUB peer in the same process: base, new,
#    base, new (round 2 skipped past 300 s).
set -uo pipefail
OUT="${OUT:-/tmp/review-out}"; mkdir -p "$OUT"
NEW=.wt/review-new; BASE=.wt/review-base
ROWS="${ROWS:-sat f32,sat u8,sat_two_pass,sat_one_pass,sat_1080p,sort_keys u32,sort_keys f32}"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
echo "NEW commit: $(cat $NEW/.commit 2>/dev/null)  BASE commit: $(cat $BASE/.commit 2>/dev/null)"
NV=(-G Ninja -DPP_HIP=NVIDIA -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release)
{ cmake -S $NEW -B /tmp/rv-new "${NV[@]}" >/dev/null &&
    cmake --build /tmp/rv-new -j8 --target parprim test_sat test_sort parprim-bench; } >"$OUT/build-new.txt" 2>&1 &
{ cmake -S $BASE -B /tmp/rv-base "${NV[@]}" -DPP_BUILD_TESTS=OFF >/dev/null &&
    cmake --build /tmp/rv-base -j8 --target parprim parprim-bench; } >"$OUT/build-base.txt" 2>&1 &
wait
for t in new base; do
    [ -x /tmp/rv-$t/bench/parprim-bench ] || { echo "build $t failed:"; grep -E "error|FAILED" "$OUT/build-$t.txt" | head -20; exit 1; }
done
[ -x /tmp/rv-new/tests/test_sat ] && [ -x /tmp/rv-new/tests/test_sort ] || { echo "tests not built"; exit 1; }
el "built"

for t in new base; do
    gcc -O2 -o /tmp/rv-bits-$t .wt/review-bits.c -I.wt/review-$t/include -L/tmp/rv-$t -lparprim \
        -Wl,-rpath,/tmp/rv-$t && timeout 60 /tmp/rv-bits-$t >"$OUT/bits-$t.txt" 2>&1 &
done
wait
echo "review-bits: new $(wc -l <"$OUT/bits-new.txt") lines, base $(wc -l <"$OUT/bits-base.txt") lines, plans: $(grep -o 'plan [a-z_]*' "$OUT/bits-new.txt" | sort | uniq -c | tr '\n' ' ')"
if cmp -s "$OUT/bits-new.txt" "$OUT/bits-base.txt"; then echo "review-bits: IDENTICAL (every hash)"; rm "$OUT/bits-base.txt";
else echo "review-bits: DIFFER"; diff "$OUT/bits-base.txt" "$OUT/bits-new.txt" | head -20; fi
el "bits done"

# tests and sanitizers side by side (correctness only; the bench runs alone afterwards)
tst() { PP_TEST_QUICK=1 PP_TEST_BACKEND=hip PP_TEST_REQUIRE_GPU=1 timeout 120 /tmp/rv-new/tests/$1 >"$OUT/$1.txt" 2>&1
    echo "$1 [hip, quick] rc=$?: $(grep -cE '^\[       OK \]' "$OUT/$1.txt") ok, $(grep -cE '^\[  FAILED  \]' "$OUT/$1.txt") failed; $(grep -E 'PASSED|FAILED\]' "$OUT/$1.txt" | tail -2 | tr '\n' ' ')"; }
san() {  # tool, test, cmocka filter
    PP_TEST_QUICK=1 PP_TEST_BACKEND=hip PP_TEST_FILTER="$3" timeout 130 compute-sanitizer --tool "$1" \
        --error-exitcode 9 /tmp/rv-new/tests/$2 >/tmp/rv-san.$1.$2 2>&1
    echo "compute-sanitizer $1 $2 [$3] rc=$?: $(grep -cE '^\[       OK \]' /tmp/rv-san.$1.$2) ok; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/rv-san.$1.$2 | tail -1)"
    grep -E '^========= (Invalid|Race|Barrier|Error|Program hit)' /tmp/rv-san.$1.$2 | head -3; }
{ tst test_sat; tst test_sort; } >"$OUT/tests-summary.txt" &
{ san memcheck test_sat 't_sat_s*hip*'; } >/tmp/rv-s1 &
{ san racecheck test_sat 't_sat_strategies*hip*'; } >/tmp/rv-s2 &
{ san synccheck test_sat 't_sat_strategies*hip*'; } >/tmp/rv-s3 &
{ san memcheck test_sort 't_sort_u32*hip*'; } >/tmp/rv-s4 &
{ san racecheck test_sort 't_sort_u32*hip*'; } >/tmp/rv-s5 &
wait
cat "$OUT/tests-summary.txt" /tmp/rv-s[1-5] | tee "$OUT/san-summary.txt"
for f in test_sat test_sort; do grep -E "FAILED|SKIPPED" "$OUT/$f.txt" | head -5; done
el "tests and sanitizers done"

bench() {  # tree, tag
    echo "== $2 ($1)"
    timeout 120 /tmp/rv-$1/bench/parprim-bench --backend hip --only "$ROWS" 2>&1 | grep -vE "^$" | tee -a "$OUT/bench-$2.txt"
}
bench base base-r1; bench new new-r1
el "round 1 done"
if [ $(( $(date +%s) - t0 )) -lt 300 ]; then bench base base-r2; bench new new-r2; el "round 2 done"
else echo "round 2 skipped (time)"; fi
el "total"
