#!/usr/bin/env bash
# bench/profile_compaction_h100.sh BENCH OUTDIR -- Nsight Compute profiles of the compaction
# tile kernel and of CUB's select kernel on the rows that show the per-tile cost (issue 19):
# compact_select_if_lt1 (1% kept: reads 1 GB, writes ~nothing), compact_select_flagged (50%),
# and select flagged at n = 2^16 (the latency row's call). BENCH: a parprim-bench of an NVIDIA build. Writes per profile
# OUTDIR/NAME.ncu-rep, NAME.details.txt (ncu --page details) and NAME.metrics.txt (the raw
# metrics that say occupancy, registers, DRAM throughput, stall reasons, load widths), then a
# summary of the main figures of every profile to stdout. Clocks are left alone
# (--clock-control none), so durations compare with the bench's.
set -uo pipefail
B=${1:?usage: profile_compaction_h100.sh BENCH OUTDIR}
O=${2:?usage: profile_compaction_h100.sh BENCH OUTDIR}
mkdir -p "$O"
prof() { # name row kernel-regex skip count [bench args...]
    local name=$1 row=$2 k=$3 skip=$4 c=$5
    shift 5
    echo "== $name: $row, kernels /$k/, skip $skip, $c of them"
    timeout 120 ncu --set full --clock-control none -k "regex:$k" --launch-skip "$skip" -c "$c" -f -o "$O/$name" \
        "$B" --backend hip --only "$row" --reps 2 "$@" >"$O/$name.log" 2>&1
    echo "   rc $? ($(grep -c '==PROF==' "$O/$name.log") profiler lines)"
    ncu --import "$O/$name.ncu-rep" --page details >"$O/$name.details.txt" 2>&1
    ncu --import "$O/$name.ncu-rep" --page raw >"$O/$name.raw.txt" 2>&1
    grep -E "Function Name|gpu__time_duration.sum|sm__warps_active.avg.pct_of_peak|launch__registers_per_thread|launch__occupancy_limit|launch__block_size|launch__grid_size|launch__shared_mem_per_block|dram__throughput.avg.pct|dram__bytes_read.sum |dram__bytes_write.sum |smsp__average_warp(s)?_issue_stalled_.*_per_issue_active.ratio|smsp__warp_issue_stalled_.*_per_warp_active.pct|smsp__inst_executed.sum |sm__throughput.avg.pct|l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum |l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum |smsp__inst_executed_op_ldgsts|smsp__sass_inst_executed_op_global_ld.sum |smsp__sass_inst_executed_op_global_st.sum |smsp__sass_inst_executed_op_shared|lts__t_sectors_op_atom|smsp__cycles_active.avg |sm__cycles_elapsed.avg " \
        "$O/$name.raw.txt" >"$O/$name.metrics.txt"
    rm -f "$O/$name.raw.txt"
}
lt1=compact_select_if_lt1
fl=compact_select_flagged
prof pp_lt1 $lt1 compact_tiles 3 2 --no-peer
prof cub_lt1 $lt1 DeviceSelectSweepKernel 3 2
prof pp_flagged $fl compact_tiles 3 2 --no-peer
prof cub_flagged $fl DeviceSelectSweepKernel 3 2
prof pp_count compact_partition_if compact_count 2 1 --no-peer
# n = 2^16: the latency row's call (flags, count to context memory), its kernels' durations
prof pp_flagged16 $fl compact_tiles 3 2 --no-peer --n 65536
prof cub_flagged16 $fl "DeviceSelectSweepKernel|DeviceCompactInitKernel" 4 4 --n 65536
echo "== summary"
for f in "$O"/*.metrics.txt; do
    echo "-- $(basename "$f" .metrics.txt)"
    grep -E "Function Name|gpu__time_duration.sum|sm__warps_active.avg.pct_of_peak|launch__registers_per_thread|launch__block_size|launch__grid_size|dram__throughput.avg.pct|smsp__inst_executed.sum " "$f" |
        sed -E 's/ +/ /g' | cut -c1-120
done
