#!/bin/bash
# bench/sortprof_h100.sh -- one device call that profiles the radix sort (issue 20, third
# session): builds parprim + parprim-bench (sm_90, Release), the sort rows with CUB in the same
# run, ncu (--set full) on two onesweep passes of the u32 row and of the sorted row, ncu on
# CUB's onesweep kernel of the same row, and nsys --stats on the 2^28 u32 row and on the latency
# rows (launches, memsets, API calls per sort). Every step has a timeout cut to what is left of
# BUDGET seconds (default 380). Output: $OUT.
BUDGET="${BUDGET:-380}"
OUT="${OUT:-/tmp/sortprof-out}"; mkdir -p "$OUT"
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
left() { local l=$(( BUDGET - $(el) - ${1:-0} )); [ "$l" -lt 5 ] && l=5; echo "$l"; }
cap() { local l; l=$(left "${2:-0}"); [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }
log() { echo "[$(el) s] $*" | tee -a "$OUT/summary.txt"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee -a "$OUT/summary.txt"
log "commit ${COMMIT:-?}; ncu $(command -v ncu) nsys $(command -v nsys)"
(cmake -S . -B /tmp/bsp -G Ninja -DPP_HIP=NVIDIA -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release \
    -DPP_BUILD_TESTS=OFF && cmake --build /tmp/bsp -j16 --target parprim parprim-bench) >/tmp/build-sp.txt 2>&1
log "build: $(tail -1 /tmp/build-sp.txt)"
grep -E 'error|FAILED' /tmp/build-sp.txt | head -20 | tee -a "$OUT/summary.txt"
cd /tmp/bsp || exit 1
B=./bench/parprim-bench
timeout "$(cap 80 200)" $B --backend hip --only sort >"$OUT/bench.txt" 2>&1
log "bench rc=$?"; grep -E 'sort|argsort' "$OUT/bench.txt" | tr -s ' ' | tee -a "$OUT/summary.txt"
NCU="ncu --set full --import-source no"
timeout "$(cap 60 150)" $NCU -k regex:onesweep_pass -c 2 --launch-skip 4 -o "$OUT/u32" \
    $B --backend hip --only 'sort_keys u32' --reps 1 --no-peer >"$OUT/ncu_u32.log" 2>&1
log "ncu u32 rc=$?"
timeout "$(cap 50 120)" $NCU -k regex:onesweep_pass -c 2 --launch-skip 4 -o "$OUT/sorted" \
    $B --backend hip --only 'sort_keys_sorted' --reps 1 --no-peer >"$OUT/ncu_sorted.log" 2>&1
log "ncu sorted rc=$?"
timeout "$(cap 40 100)" $NCU -k regex:'Onesweep|Histogram' -c 3 --launch-skip 0 -o "$OUT/cub" \
    $B --backend hip --only 'sort_keys u32' --reps 1 >"$OUT/ncu_cub.log" 2>&1
log "ncu cub rc=$?"
for r in u32 sorted cub; do
    [ -f "$OUT/$r.ncu-rep" ] && ncu -i "$OUT/$r.ncu-rep" --page details >"$OUT/ncu_$r.txt" 2>&1
done
timeout "$(cap 40 70)" nsys profile --stats=true -o /tmp/big -f true \
    $B --backend hip --only 'sort_keys u32,sort_keys_sorted' --reps 3 >"$OUT/nsys_big.txt" 2>&1
log "nsys big rc=$?"
timeout "$(cap 40 50)" nsys profile --stats=true -o /tmp/lat -f true \
    $B --backend hip --only latency_sort --reps 20 --no-peer >"$OUT/nsys_lat.txt" 2>&1
log "nsys lat rc=$?"
nsys stats --report cuda_gpu_trace --format csv -o /tmp/lat_trace /tmp/lat.nsys-rep >/dev/null 2>&1
tail -n 400 /tmp/lat_trace*.csv >"$OUT/lat_trace_tail.csv" 2>/dev/null
nsys stats --report cuda_api_trace --format csv -o /tmp/lat_api /tmp/lat.nsys-rep >/dev/null 2>&1
tail -n 400 /tmp/lat_api*.csv >"$OUT/lat_api_tail.csv" 2>/dev/null
log "done"
