#!/usr/bin/env bash
# bench/sweep_compaction_h100.sh BUILD -- the compaction kernel's variants and look-back sleeps
# side by side on one device (issue 19), within BUDGET_S seconds (default 88), most important
# first; a run that would pass the budget is cut (timeout) and the rest are skipped. BUILD: an
# NVIDIA build of this tree holding bench/parprim-bench. No rebuild: every variant is a context
# option (parprim-bench --option; include/parprim.h's experimental section):
#   compact_publish    1 the tile's count after the staging, 2 right after the block scan (3, the
#                      staging during the look-back, was removed in the eleventh session)
#   compact_blocks     1 a block per tile, 2 persistent blocks loading the next tile ahead
#   compact_partition  1 rejected reversed by a second kernel, 2 a count pass first
#   scan_delay_ns / scan_pause_ns: the look-back's sleeps (before the first poll / between polls)
# Rows: compact_select_if_lt1 (1% kept: reads 1 GB, writes almost nothing, so its time is the
# per-tile cost), then partition's two variants, then every compaction row with CUB for the
# likeliest winner and, if time is left, for the first version. Output: "== label (options)" then the
# bench's row lines.
set -uo pipefail
B=${1:?usage: sweep_compaction_h100.sh BUILD_DIR}
bench="$B/bench/parprim-bench"
t0=$(date +%s); END=$((t0 + ${BUDGET_S:-88}))
left() { echo $(( END - $(date +%s) )); }
run() { # label rows options...
    local label=$1 rows=$2; shift 2
    local l; l=$(left)
    if [ "$l" -le 2 ]; then echo "== $label: skipped (budget)"; return; fi
    local args=()
    for o in "$@"; do args+=(--option "$o"); done
    echo "== $label ($*) [$(( $(date +%s) - t0 )) s]"
    timeout "$l" "$bench" --backend hip --only "$rows" --no-peer --reps 20 "${args[@]}" 2>&1 |
        grep -E "^(compact|latency_compact)|^parprim-bench|ERR|rror|NOT VERIFIED"
}
lt1=compact_select_if_lt1
# the variants at the table's sleeps (sm_90: delay 1500, pause 700)
run "first version" $lt1 compact_publish=1 compact_blocks=1
run "publish 2" $lt1 compact_publish=2 compact_blocks=1
run "persistent" $lt1 compact_publish=1 compact_blocks=2
run "persistent publish 2" $lt1 compact_publish=2 compact_blocks=2
# the sleeps
for s in 0:0 0:100 300:100; do
    run "publish 2 d${s%%:*} p${s#*:}" $lt1 compact_publish=2 compact_blocks=1 scan_delay_ns=${s%%:*} scan_pause_ns=${s#*:}
    run "persistent publish 2 d${s%%:*} p${s#*:}" $lt1 compact_publish=2 compact_blocks=2 scan_delay_ns=${s%%:*} \
        scan_pause_ns=${s#*:}
done
# partition's second kernel against the count pass
for p in 1 2; do
    run "partition $p" compact_partition compact_partition=$p compact_publish=2 compact_blocks=2 scan_delay_ns=0 \
        scan_pause_ns=100
done
# every row with CUB: the likeliest winner, then (budget permitting) the first version
echo "== all rows, publish 2, persistent, count pass, d0 p100, with CUB [$(( $(date +%s) - t0 )) s]"
[ "$(left)" -gt 2 ] && timeout "$(left)" "$bench" --backend hip --only compact --reps 20 \
    --option compact_publish=2 --option compact_blocks=2 --option compact_partition=2 \
    --option scan_delay_ns=0 --option scan_pause_ns=100 2>&1 |
    grep -E "^(compact|latency_compact)|^parprim-bench|ERR|rror|NOT VERIFIED"
echo "== all rows, first version, with CUB [$(( $(date +%s) - t0 )) s]"
[ "$(left)" -gt 2 ] && timeout "$(left)" "$bench" --backend hip --only compact --reps 20 \
    --option compact_publish=1 --option compact_blocks=1 --option compact_partition=1 2>&1 |
    grep -E "^(compact|latency_compact)|^parprim-bench|ERR|rror|NOT VERIFIED"
echo "== total $(( $(date +%s) - t0 )) s"
