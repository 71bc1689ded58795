#!/bin/bash
# eleventh session, helper argsort, call 1: where argsort f32's time goes (main's library 60e49cf
# + bench rows sort_pairs f32 / u32 and argsort u32: branch s11-argsort 03dd50d)
BUDGET=${BUDGET:-340}
t0=$(date +%s); el(){ echo $(( $(date +%s) - t0 )); }
cap(){ local l=$(( BUDGET - $(el) - ${2:-0} )); [ $l -lt 5 ] && l=5; [ $1 -lt $l ] && echo $1 || echo $l; }
log(){ echo "[$(el) s] $*" | tee -a $OUT/summary.txt; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee -a $OUT/summary.txt
ncu --version | tail -1
cmake -S .wt/argsort-c1 -B /tmp/b1 -G Ninja -DPP_HIP=NVIDIA -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release -DPP_BUILD_TESTS=OFF > /tmp/cfg1.txt 2>&1
cmake --build /tmp/b1 -j16 --target parprim-bench > /tmp/build1.txt 2>&1
log "build rc=$? $(tail -1 /tmp/build1.txt)"
B=/tmp/b1/bench/parprim-bench
ROWS='sort_keys u32,sort_keys f32,sort_pairs,argsort'
for r in 1 2; do
  timeout $(cap 75 110) $B --backend hip --only "$ROWS" > $OUT/bench-r$r.txt 2>&1
  log "bench round $r rc=$?"; grep -E '^(sort_|argsort)' $OUT/bench-r$r.txt | tr -s ' ' | tee -a $OUT/summary.txt
done
M=gpu__time_duration.sum,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum
i=0
for row in 'argsort f32' 'sort_pairs u32' 'argsort u32' 'sort_pairs f32'; do
  i=$((i+1))
  timeout $(cap 50 15) ncu --clock-control none -k regex:'sort_histogram|onesweep_pass' -c 5 --metrics $M $B --backend hip --only "$row" --no-peer --reps 1 > $OUT/ncu$i.txt 2>&1
  log "ncu $row rc=$?"
  grep -E '^\s+(void|gpu__time|smsp__inst_executed.sum )' $OUT/ncu$i.txt | sed 's/(<unnamed>::sort_desc.*//' | tr -s ' ' | paste - - - | tee -a $OUT/summary.txt
done
log done
