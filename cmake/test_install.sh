#!/usr/bin/env bash
# test_install.sh CMAKE BUILD_DIR SOURCE_DIR C_COMPILER [CONFIG]
# The ctest `install_consumer`: installs the build in BUILD_DIR into a temporary prefix, then
#   1. configures, builds and runs examples/consumer against it through find_package(parprim)
#      (the example linked with parprim::parprim and with parprim::parprim_static);
#   2. builds and runs examples/reduce_example.c with `pkg-config --cflags --libs parprim`.
set -euo pipefail
cmake_cmd="$1" build="$2" src="$3" cc="$4" config="${5:-}"
work="$(mktemp -d "${TMPDIR:-/tmp}/parprim-install-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"

step() { printf '\n== install_consumer: %s\n' "$*"; }

step "cmake --install into $prefix"
"$cmake_cmd" --install "$build" --prefix "$prefix" ${config:+--config "$config"}

step "find_package(parprim): configure, build, run examples/consumer"
"$cmake_cmd" -S "$src/examples/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release
"$cmake_cmd" --build "$work/consumer"
"$work/consumer/reduce_example"
"$work/consumer/reduce_example_static"

step "pkg-config: build and run examples/reduce_example.c"
pc="$(find "$prefix" -name parprim.pc -print -quit)"
[ -n "$pc" ] || { echo "parprim.pc was not installed under $prefix" >&2; exit 1; }
export PKG_CONFIG_PATH="$(dirname "$pc")"
echo "pkg-config --cflags --libs parprim: $(pkg-config --cflags --libs parprim)"
libdir="$(pkg-config --variable=libdir parprim)"
# shellcheck disable=SC2046  # pkg-config's output is meant to be split
"$cc" -std=c11 -Wall -Wextra -pedantic -o "$work/reduce_example_pc" "$src/examples/reduce_example.c" \
    $(pkg-config --cflags --libs parprim) -lm -Wl,-rpath,"$libdir"
"$work/reduce_example_pc"

step "passed"
