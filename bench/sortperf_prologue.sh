# bench/sortperf_prologue.sh -- sourced by the sort family's device-call scripts
# (sortperf3_h100.sh, sortperf4_h100.sh) from the repository root, with BUDGET (seconds), OUT
# (the folder that comes back), L (the logs folder) and BUILD (the build folder) set: the step
# helpers (el: seconds since the start; cap N R: N capped to what is left of BUDGET less R;
# log; finish: logs.tgz, then exit), the card and commit, and the sm_90 Release build of
# parprim, parprim-bench, test_sort and test_blocks; leaves the shell in BUILD with B the bench.
mkdir -p "$OUT" "$L"
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
cap() { local l=$(( BUDGET - $(el) - ${2:-0} )); [ "$l" -lt 5 ] && l=5; [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }
log() { echo "[$(el) s] $*" | tee -a "$OUT/summary.txt"; }
finish() { tar -czf "$OUT/logs.tgz" -C "$L" . 2>/dev/null; log "done"; exit 0; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee -a "$OUT/summary.txt"
log "commit ${COMMIT:-?}"
(cmake -S . -B "$BUILD" -G Ninja -DPP_HIP=NVIDIA -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release &&
    cmake --build "$BUILD" -j16 --target parprim parprim-bench test_sort test_blocks) >"$L/build.txt" 2>&1
log "build: $(tail -1 "$L/build.txt")"
grep -E 'error|FAILED|[1-9][0-9]* bytes spill stores' "$L/build.txt" | head -10 | tee -a "$OUT/summary.txt"
cd "$BUILD" || finish
B=./bench/parprim-bench
