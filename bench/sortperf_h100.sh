#!/bin/bash
# bench/sortperf_h100.sh -- one device call for the onesweep variants (issue 20, s2-sortperf):
# builds parprim, test_sort and parprim-bench (sm_90, Release), runs test_sort[hip]'s variant and
# strategy cases, then the sort rows at 2^28 (u64 at 2^27) once per PP_OPTION_SORT_ONESWEEP value
# (1 ranked, 2 early, 3 early_ballot, 4 early_window), rows outer and variants inner so that
# the u32 keys of every variant come first; CUB's time is in every row. Every step has a
# timeout cut to what is left of BUDGET seconds (default 560). Output: $OUT (default
# /tmp/sortperf-out): summary.txt, test.txt, bench-<row>-v<variant>.txt.
BUDGET="${BUDGET:-560}"
OUT="${OUT:-/tmp/sortperf-out}"; mkdir -p "$OUT"
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
left() { local l=$(( BUDGET - $(el) - ${1:-0} )); [ "$l" -lt 5 ] && l=5; echo "$l"; }
cap() { local l; l=$(left "${2:-0}"); [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }
log() { echo "[$(el) s] $*" | tee -a "$OUT/summary.txt"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee -a "$OUT/summary.txt"
git log --oneline -1 | tee -a "$OUT/summary.txt"

(cmake -S . -B /tmp/bsp -G Ninja -DPP_HIP=NVIDIA -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release &&
    cmake --build /tmp/bsp -j16 --target parprim test_sort parprim-bench) >/tmp/build-sp.txt 2>&1
log "build: $(tail -1 /tmp/build-sp.txt)"
grep -E 'error|FAILED' /tmp/build-sp.txt | head -20 | tee -a "$OUT/summary.txt"
cd /tmp/bsp || exit 1

PP_TEST_QUICK=1 PP_TEST_REQUIRE_GPU=1 PP_TEST_BACKEND=hip PP_TEST_FILTER='t_sort_onesweep_variants*' \
    timeout "$(cap 90 300)" ./tests/test_sort >"$OUT/test.txt" 2>&1
log "test_sort[hip] t_sort_onesweep_variants rc=$?: $(grep -E 'PASSED|FAILED|SKIPPED' "$OUT/test.txt" | tr '\n' ' ')"
PP_TEST_QUICK=1 PP_TEST_REQUIRE_GPU=1 PP_TEST_BACKEND=hip PP_TEST_FILTER='t_sort_strategies*' \
    timeout "$(cap 60 280)" ./tests/test_sort >>"$OUT/test.txt" 2>&1
log "test_sort[hip] t_sort_strategies (the default variant) rc=$?"

for row in 'sort_keys u32' 'sort_keys f32' 'sort_pairs u32' 'sort_keys_half_n u64' 'argsort f32'; do
    for v in 1 2 3 4; do
        f="$OUT/bench-${row// /_}-v$v.txt"
        timeout "$(cap 60 10)" ./bench/parprim-bench --backend hip --only "$row" --option sort_onesweep=$v >"$f" 2>&1
        log "row '$row' sort_onesweep=$v rc=$?: $(grep -F "${row%% *}" "$f" | tail -n 2 | tr -s ' ' | tr '\n' ' ')"
    done
done
log "done"
