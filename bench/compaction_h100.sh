#!/usr/bin/env bash
# bench/compaction_h100.sh -- the compaction family's one device call (issue 19), within about
# 230 s: builds this tree (NVIDIA sm_90: the library, parprim-bench, the GPU tests it needs) and,
# at the same time, bench/cub_peer.cu against CCCL 3.6.0 (../shared/gpu/), linked with the same
# objects into a second bench (no second build of the library); then the GPU tests (ctest:
# test_compaction, test_blocks, test_errors, test_alloc_fail) beside compute-sanitizer (memcheck
# on test_compaction with PP_TEST_QUICK=1, racecheck and synccheck on its t_small cases); then
# the compaction rows (--only compact) with CUB 3.0.1 and, as far as the time goes, with
# CUB 3.6.0. Run from the repository root after `source .gpu/prep.sh`; SRC is the tree to
# build (default .), GPU_DIR the folder holding cccl-3.6.0.tar.gz (default .gpu). Logs in $OUT.
set -uo pipefail
OUT="${OUT:-/tmp/compaction-out}"; mkdir -p "$OUT"
SRC="${SRC:-.}"; GPU_DIR="${GPU_DIR:-.gpu}"; B=/tmp/bcompact
t0=$(date +%s); END=$((t0 + ${BUDGET_S:-228}))
log() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a "$OUT/summary.txt"; }
left() { echo $(( END - $(date +%s) )); }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee -a "$OUT/summary.txt"
cmake -S "$SRC" -B $B -G Ninja -DPP_HIP=NVIDIA -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/build.txt" 2>&1 || { log "configure failed"; exit 1; }
ninja -C $B -j14 parprim parprim-bench test_compaction test_blocks test_errors test_alloc_fail >>"$OUT/build.txt" 2>&1 &
build=$!
(
    mkdir -p /tmp/cccl && tar -xzf "$GPU_DIR/cccl-3.6.0.tar.gz" -C /tmp/cccl
    I="-I/tmp/cccl/cub -I/tmp/cccl/libcudacxx/include -I/tmp/cccl/thrust"
    o=bench/CMakeFiles/parprim-bench.dir/cub_peer.cu.o
    c=$(ninja -C $B -t commands $o | tail -1)
    c=${c/-MD -MT $o -MF $o.d/}
    c=${c/-o $o/-o /tmp/cub36.o}
    c=${c/-std=c++17/-std=c++17 $I}
    cd $B && eval "$c"
) >"$OUT/build36.txt" 2>&1 &
b36=$!
wait $build; log "build rc=$? $(grep -cE 'error|FAILED' "$OUT/build.txt") error lines"
grep -E 'error|FAILED' "$OUT/build.txt" | head -5 | tee -a "$OUT/summary.txt"
# tests and sanitizers side by side
PP_TEST_REQUIRE_GPU=1 timeout 75 ctest --test-dir $B -R 'compaction.*hip|test_blocks|errors.*hip|alloc_fail.*hip' \
    --output-on-failure >"$OUT/ctest.txt" 2>&1 &
ct=$!
san() { # tool, filter
    PP_TEST_QUICK=1 PP_TEST_BACKEND=hip PP_TEST_FILTER="$2" timeout 75 compute-sanitizer --tool "$1" --error-exitcode 9 \
        $B/tests/test_compaction >"$OUT/san-$1.txt" 2>&1
    echo "$1 test_compaction [$2] rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san-$1.txt" | tail -1)"
}
{ san memcheck '*' & san racecheck 't_small*' & san synccheck 't_small*' & wait; } >"$OUT/san.txt" 2>&1
wait $ct; log "ctest rc=$?: $(grep -E 'tests passed|tests failed' "$OUT/ctest.txt")"
cat "$OUT/san.txt" | tee -a "$OUT/summary.txt"
wait $b36
l=$(ninja -C $B -t commands bench/parprim-bench | tail -1)
l=${l//bench\/CMakeFiles\/parprim-bench.dir\/cub_peer.cu.o/\/tmp\/cub36.o}
l=${l/-o bench\/parprim-bench /-o bench\/parprim-bench36 }
(cd $B && eval "$l") >>"$OUT/build36.txt" 2>&1; log "bench 3.6.0 build rc=$?"
timeout $(( $(left) > 60 ? 60 : $(left) )) $B/bench/parprim-bench --backend hip --only compact --csv "$OUT/bench.csv" \
    >"$OUT/bench.txt" 2>&1
log "bench (CUB 3.0.1) rc=$?"
if [ -x $B/bench/parprim-bench36 ] && [ "$(left)" -gt 8 ]; then
    timeout $(( $(left) - 3 )) $B/bench/parprim-bench36 --backend hip --only compact >"$OUT/bench36.txt" 2>&1
    log "bench (CUB 3.6.0) rc=$?"
fi
log "total"
