#!/usr/bin/env bash
# pp_nvcc.sh NVCC ARGS... -o OBJECT
# CUDA compiler launcher for PP_HIP=NVIDIA with PP_RESOURCE_USAGE=ON (nvcc --ptxas-options=-v):
# moves ptxas's per-kernel report (registers, stack, spills, shared memory) out of the build
# log into OBJECT.resource-usage.txt, one file per object, so that parallel builds do not
# interleave the reports. Other diagnostics pass through; exits with nvcc's status.
set -uo pipefail
obj=""
prev=""
for a in "$@"; do
    [ "$prev" = "-o" ] && obj="$a"
    prev="$a"
done
if [ -z "$obj" ]; then exec "$@"; fi
log="$obj.resource-usage.txt"
err="$(mktemp)"
trap 'rm -f "$err"' EXIT
"$@" 2>"$err"
rc=$?
grep -E '^ptxas info|^ +[0-9]+ bytes stack frame' "$err" >"$log" || true
grep -v -E '^ptxas info|^ +[0-9]+ bytes stack frame' "$err" >&2 || true
if [ $rc -eq 0 ]; then
    echo "pp_nvcc.sh: $(grep -c 'Used [0-9]* registers' "$log") ptxas kernel reports in $log"
fi
exit $rc
