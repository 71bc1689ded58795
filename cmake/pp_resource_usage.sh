#!/usr/bin/env bash
# pp_resource_usage.sh amd|nvidia COMPILER ARGS... -o OBJECT
# Compiler launcher for PP_RESOURCE_USAGE=ON: runs the compiler, moves its per-kernel resource
# report out of the build log into OBJECT.resource-usage.txt (one file per object, so that
# parallel builds do not interleave the reports), passes every other diagnostic through, and
# exits with the compiler's status.
#   amd     hipcc with clang's -Rpass-analysis=kernel-resource-usage remarks, and the banner
#           naming each device pass (the generated pp_target_banner.h); the log holds
#           "== target gfxNNN" before each device pass, then "file:line: <remark text>".
#   nvidia  nvcc --ptxas-options=-v: the ptxas lines (registers, stack, spills, shared memory).
set -uo pipefail
mode="${1:-}"
shift || true
case "$mode" in amd | nvidia) ;; *) echo "pp_resource_usage.sh: first argument must be amd or nvidia" >&2; exit 2 ;; esac
obj=""
prev=""
for a in "$@"; do
    [ "$prev" = "-o" ] && obj="$a"
    prev="$a"
done
if [ -z "$obj" ]; then
    [ "$mode" = nvidia ] && exec "$@" # nvcc calls without an object (dependency scans)
    echo "pp_resource_usage.sh: no -o OBJECT among the arguments" >&2
    exit 2
fi
log="$obj.resource-usage.txt"
err="$(mktemp)"
trap 'rm -f "$err"' EXIT
"$@" 2>"$err"
rc=$?
if [ "$mode" = nvidia ]; then
    report='^ptxas info|^ +[0-9]+ bytes stack frame'
    grep -E "$report" "$err" >"$log" || true
    grep -v -E "$report" "$err" >&2 || true
    [ $rc -eq 0 ] && echo "pp_resource_usage.sh: $(grep -c 'Used [0-9]* registers' "$log") ptxas kernel reports in $log"
    exit $rc
fi
sed -n -E \
    -e 's/^.*warning: parprim-resource-usage target ([^ ]+).*$/== target \1/p' \
    -e 's/^([^:]+):([0-9]+):[0-9]+: remark: (.*) \[-Rpass-analysis=kernel-resource-usage\]$/\1:\2: \3/p' \
    "$err" >"$log"
# Everything else (warnings, errors) goes to stderr as usual, minus the remarks, the banner,
# their source excerpts, and the "N warnings generated" trailer the banner causes.
awk '
    /^In file included from <built-in>:/ { next }
    /remark: .*kernel-resource-usage/ || /warning: parprim-resource-usage target/ { skip = 2; next }
    skip > 0 && !/: (warning|error|note|remark): / { skip--; next }
    { skip = 0; print }
' "$err" | grep -v -E '^[0-9]+ warnings? generated when compiling for ' >&2 || true
[ $rc -eq 0 ] && echo "pp_resource_usage.sh: $(grep -c 'Function Name:' "$log") kernel resource reports in $log"
exit $rc
