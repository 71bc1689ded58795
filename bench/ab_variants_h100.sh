#!/usr/bin/env bash
# bench/ab_variants_h100.sh -- one device call that measures variants of one hip/ file against
# this tree, in the same process family: builds the NVIDIA path (sm_90) of this tree in /tmp/fb,
# then for each variant recompiles FILE (default hip/segsort.hip) from the variant's copy of hip/
# and relinks libparprim.so into /tmp/var/NAME, and runs ROWS with each library in turn
# (LD_LIBRARY_PATH), ROUNDS rounds alternating, no peer. Run from the repository root after
# `source .gpu/prep.sh`. Env:
#   VARIANTS  "name=dir ..." -- dir holds a hip/ tree (e.g. `git archive <commit> hip` unpacked
#             into a folder carried with the call, or a copy edited by sed in the call)
#   ROWS      parprim-bench --only filter (default: the segmented sort's equal-length rows)
#   N, ROUNDS (default 2^26, 2), FILE (default hip/segsort.hip)
# Logs: $OUT/summary.txt (one line per row: name, time, unit) and $OUT/ab-ROUND-NAME.txt.
# The relink is the one the nineteenth session's call 2 ran (from a working copy); this script as
# a whole has not run on the device yet (its build and relink ran on the build machine, where
# LD_LIBRARY_PATH=/tmp/var/NAME resolves the bench's libparprim.so.0 to the variant: RUNPATH).
set -uo pipefail
OUT="${OUT:-/tmp/ab-out}"; mkdir -p "$OUT"
FILE="${FILE:-hip/segsort.hip}"; N="${N:-2^26}"; ROUNDS="${ROUNDS:-2}"
ROWS="${ROWS:-segsort_keys_16 u32,segsort_keys_112 u32,segsort_keys_256 u32,segsort_keys_1024 u32,segsort_keys_2048 u32,segsort_keys_4096 u32,segsort_keys_mixed u32}"
ROOT=$PWD; FB=/tmp/fb; OBJ="CMakeFiles/parprim_objects.dir/$FILE.o"
t0=$(date +%s)
log() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a "$OUT/summary.txt"; }
cmake -S . -B $FB -G Ninja -DPP_HIP=NVIDIA -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release >"$OUT/build.txt" 2>&1 &&
    cmake --build $FB -j16 --target parprim-bench >>"$OUT/build.txt" 2>&1
log "build rc=$?"
relink() {  # name dir: FILE from dir/hip, the rest of /tmp/fb
    local v=/tmp/var/$1 cc ln; mkdir -p "$v"
    cc=$(cd $FB && ninja -t commands "$OBJ" | tail -1 |
        sed -e "s#$ROOT/hip#$2/hip#g" -e "s#-MF [^ ]*#-MF $v/dep.d#" -e "s#-o $OBJ#-o $v/obj.o#")
    ln=$(cd $FB && ninja -t commands libparprim.so.0.1.0 | grep -- "-shared" | tail -1 |
        sed -e "s#-o libparprim.so.0.1.0#-o $v/libparprim.so.0#" -e "s#$OBJ#$v/obj.o#" -e 's#^: && ##' -e 's# && :$##')
    (cd $FB && eval "$cc" && eval "$ln") >"$OUT/var-$1.txt" 2>&1
}
NAMES=""
for nv in ${VARIANTS:-}; do relink "${nv%%=*}" "${nv#*=}" & NAMES="$NAMES ${nv%%=*}"; done
wait
for n in $NAMES; do [ -f /tmp/var/$n/libparprim.so.0 ] && log "variant $n ok" || log "variant $n FAILED: $(tail -3 "$OUT/var-$n.txt")"; done
for r in $(seq 1 "$ROUNDS"); do
    for n in head $NAMES; do
        lib=""; [ "$n" = head ] || lib=/tmp/var/$n
        LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} $FB/bench/parprim-bench --backend hip --n "$N" --no-peer \
            --only "$ROWS" >"$OUT/ab-$r-$n.txt" 2>&1
        log "round $r $n rc=$?"
        grep -E "^[a-z]" "$OUT/ab-$r-$n.txt" | grep -v "^parprim\|^data\|^GB\|^all" | awk '{print "  ", $1, $5, $6}' | tee -a "$OUT/summary.txt"
    done
done
log "done"
