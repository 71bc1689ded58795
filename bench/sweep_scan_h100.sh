#!/usr/bin/env bash
# bench/sweep_scan_h100.sh -- one device call (after `source .gpu/prep.sh`): the scan's
# occupancy / tile-size variants side by side. Builds the library and bench (no tests) once
# per variant in parallel, runs the default build's scan rows with CUB, then every variant's
# without, then KNOB_ON's builds again with each KNOBS setting of the look-back's sleeps.
# Variants: CMAKE_CUDA_FLAGS for hip/scan.hip's scan_shape (SCAN_THREADS, SCAN_MIN_BLOCKS:
# threads per block and resident blocks per SM the registers must allow, for every width;
# SCAN_ITEMS4 / SCAN_WIDE_ITEMS: elements per thread for 4-byte / 8-byte types) and its
# look-back choice (SCAN_TREE_INTEGERS, SCAN_TREE_FLOATS, SCAN_CHAIN_PLAIN_F32);
# VARIANTS="name:flag#flag ..." ("#" separates the flags of one variant).
set -uo pipefail
OUT="${OUT:-/tmp/h100-out}"; mkdir -p "$OUT"
VARIANTS=${VARIANTS:-"wide24m4:-DSCAN_WIDE_ITEMS=24#-DSCAN_MIN_BLOCKS=4 wide32m4:-DSCAN_WIDE_ITEMS=32#-DSCAN_MIN_BLOCKS=4 t128i24m6:-DSCAN_ITEMS4=24#-DSCAN_MIN_BLOCKS=6 chainf32:-DSCAN_CHAIN_PLAIN_F32"}
# KNOBS="name:option=value#option=value ..." runs again, without CUB, the builds named in KNOB_ON ("default"
# and variant names) with those options of the context (parprim-bench --option; the look-back's sleeps
# scan_delay_ns / scan_pause_ns, nanoseconds).
KNOBS=${KNOBS:-"d1200p400:scan_delay_ns=1200#scan_pause_ns=400"}
KNOB_ON=${KNOB_ON:-"default"}
build() {  # build DIR FLAGS
    cmake -S . -B "$1" -G Ninja -DPP_HIP=NVIDIA -DCMAKE_CUDA_ARCHITECTURES=90 -DPP_BUILD_TESTS=OFF \
        -DPP_RESOURCE_USAGE=ON "-DCMAKE_CUDA_FLAGS=${2//#/ }" >"$OUT/build_$(basename "$1").txt" 2>&1 &&
        cmake --build "$1" -j6 >>"$OUT/build_$(basename "$1").txt" 2>&1 || echo "build $1 failed"
}
t0=$(date +%s)
build /tmp/sw_default "" &
for v in $VARIANTS; do build "/tmp/sw_${v%%:*}" "${v#*:}" & done
wait
echo "builds: $(( $(date +%s) - t0 )) s"
regs() {  # registers and spills of the plain f32 / u32 / f64 sum kernels
    grep -A3 -E "scan_tiles.*plain_policyI(ff|jj|dd)9pp_op_sum.*Lb0E" "$1"/CMakeFiles/parprim_objects.dir/hip/scan.hip.o.resource-usage.txt 2>/dev/null |
        grep -oE "Used [0-9]+ registers|[0-9]+ bytes spill stores" | paste -sd' ' -
}
echo "== default  $(regs /tmp/sw_default)"
/tmp/sw_default/bench/parprim-bench --backend hip --only scan 2>&1 | grep -E "^(seg)?scan|^latency"
for v in $VARIANTS; do
    d="/tmp/sw_${v%%:*}"
    echo "== ${v%%:*} (${v#*:})  $(regs "$d")"
    [ -x "$d/bench/parprim-bench" ] && "$d/bench/parprim-bench" --backend hip --only scan --no-cub 2>&1 | grep -E "^(seg)?scan"
done
for b in $KNOB_ON; do
    for k in $KNOBS; do
        echo "== $b with ${k#*:}"
        /tmp/sw_$b/bench/parprim-bench --backend hip --only scan --no-cub $(echo "#${k#*:}" | sed 's/#/ --option /g') 2>&1 |
            grep -E "^(seg)?scan"
    done
done
echo "total: $(( $(date +%s) - t0 )) s"
