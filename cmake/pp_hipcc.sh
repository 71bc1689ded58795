#!/usr/bin/env bash
# pp_hipcc.sh HIPCC ARGS... -o OBJECT
# Runs hipcc; moves clang's kernel-resource-usage remarks (and the banner naming each device
# pass, from the generated pp_target_banner.h) out of the build log into OBJECT.resource-usage.txt,
# passes every other diagnostic through, and exits with hipcc's status.
# Used by CMakeLists.txt when PP_HIP=AMD and PP_RESOURCE_USAGE=ON.
set -uo pipefail
obj=""
prev=""
for a in "$@"; do
    [ "$prev" = "-o" ] && obj="$a"
    prev="$a"
done
[ -n "$obj" ] || { echo "pp_hipcc.sh: no -o OBJECT among the arguments" >&2; exit 2; }
log="$obj.resource-usage.txt"
err="$(mktemp)"
trap 'rm -f "$err"' EXIT
"$@" 2>"$err"
rc=$?
# The log: "== target gfxNNN" before each device pass, then "file:line: <remark text>".
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
if [ $rc -eq 0 ]; then
    echo "pp_hipcc.sh: $(grep -c 'Function Name:' "$log") kernel resource reports in $log"
fi
exit $rc
