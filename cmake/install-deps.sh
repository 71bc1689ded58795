#!/usr/bin/env bash
# cmake/install-deps.sh -- install the Debian 12 packages parprim's build needs, and only
# those that are missing (a repeat on a set-up machine installs nothing and runs no
# apt-get at all). README's commands run it first; so does .ci/run.
#
#   cmake/install-deps.sh [--tests] [--amd] [--fuzz]
#
# Always:   cmake make gcc g++ pkg-config libtbb-dev   (the library, the bench; TBB is the
#           bench's CPU peer where the bench uses it)
# --tests   libcmocka-dev, and the script fails if it cannot be installed: README's test
#           command must never go green without the cmocka tests. Also libopenmpi-dev and
#           openmpi-bin (required too): parprim_mpi and its tests under mpirun (issue 23).
# --amd     hipcc libamdhip64-dev rocm-device-libs: Debian's HIP 5.2 toolchain (about 1 GB),
#           the AMD GPU path. Installed with --amd, or without it where an AMD GPU is
#           present (/dev/kfd) and no CUDA compiler is: then it is the best backend there.
#           Elsewhere it is left out: on an NVIDIA machine the build uses nvcc, and on a
#           machine without a GPU it would only compile kernels that cannot run.
# --fuzz    clang-15 libfuzzer-15-dev libomp-15-dev (the libFuzzer target, tests/fuzz/; the
#           library under clang needs its OpenMP runtime).
#
# CUDA is not a Debian 12 package in the version parprim needs (CUDA 13); where an NVIDIA
# GPU is present (/dev/nvidia0) and /usr/local/cuda/bin/nvcc is not, the script says so and
# the build falls back to the paths it has.
#
# As root it runs apt-get itself, otherwise through sudo (which may ask for a password).
# It prints what it installs. Without apt-get (not Debian), it lists what to install and
# fails only if a required tool is missing. Exit status: 0 when everything required is
# present at the end, 1 otherwise (with the reason).
set -euo pipefail

want_tests=0
want_amd=0
want_fuzz=0
for arg in "$@"; do
    case "$arg" in
    --tests) want_tests=1 ;;
    --amd) want_amd=1 ;;
    --fuzz) want_fuzz=1 ;;
    -h | --help)
        sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "install-deps: unknown argument '$arg' (see --help)" >&2
        exit 2
        ;;
    esac
done

have_nvcc() { command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] || [ -n "${CUDACXX:-}" ]; }

# required: the script fails if one is missing at the end; optional: installed if possible.
required=(cmake make gcc g++)
optional=(pkg-config libtbb-dev)
[ $want_tests = 1 ] && required+=(libcmocka-dev libopenmpi-dev openmpi-bin)
if [ $want_amd = 0 ] && [ -e /dev/kfd ] && ! have_nvcc; then
    echo "install-deps: an AMD GPU is present (/dev/kfd) and no CUDA compiler: adding the HIP toolchain"
    want_amd=1
fi
[ $want_amd = 1 ] && required+=(hipcc libamdhip64-dev rocm-device-libs)
[ $want_fuzz = 1 ] && required+=(clang-15 libfuzzer-15-dev libomp-15-dev)
if [ -e /dev/nvidia0 ] && ! have_nvcc; then
    echo "install-deps: WARNING: an NVIDIA GPU is present but no CUDA compiler (nvcc) was found;" \
         "install CUDA 13 from NVIDIA (/usr/local/cuda) for the GPU path. Building without it." >&2
fi

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: no dpkg/apt-get (not Debian): install the equivalents of: ${required[*]} ${optional[*]}"
    missing_tools=()
    for t in cmake make cc c++; do command -v "$t" >/dev/null 2>&1 || missing_tools+=("$t"); done
    if [ ${#missing_tools[@]} -gt 0 ]; then
        echo "install-deps: FAILED: missing ${missing_tools[*]}" >&2
        exit 1
    fi
    exit 0
fi

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

missing=()
for p in "${required[@]}" "${optional[@]}"; do installed "$p" || missing+=("$p"); done
if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all present (${required[*]} ${optional[*]})"
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    as_root=(env DEBIAN_FRONTEND=noninteractive)
    how="as root"
elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo env DEBIAN_FRONTEND=noninteractive)
    how="through sudo"
else
    as_root=()
    how="impossible"
fi

echo "install-deps: installing ${missing[*]} ($how)"
if [ ${#as_root[@]} -eq 0 ]; then
    echo "install-deps: not root and no sudo: cannot install ${missing[*]}" >&2
elif ! "${as_root[@]}" apt-get update -q || \
     ! "${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"; then
    # One package that apt cannot find must not keep the others out: try them one by one.
    for p in "${missing[@]}"; do
        installed "$p" || "${as_root[@]}" apt-get install -y -q --no-install-recommends "$p" || true
    done
fi

still=()
for p in "${required[@]}"; do installed "$p" || still+=("$p"); done
for p in "${optional[@]}"; do installed "$p" || echo "install-deps: note: optional $p is not installed" >&2; done
if [ ${#still[@]} -gt 0 ]; then
    echo "install-deps: FAILED: required package(s) missing: ${still[*]}" >&2
    if [[ " ${still[*]} " == *" libcmocka-dev "* ]]; then
        echo "install-deps: without libcmocka-dev the test suite cannot be built" >&2
    fi
    exit 1
fi
echo "install-deps: done"
