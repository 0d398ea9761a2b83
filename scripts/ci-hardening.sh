#!/usr/bin/env bash
# CI's hardening stage (.ci/run runs it after `make test`): one clang build with ASan and
# UBSan (-DCUZK_SANITIZE=ON, CPU only) compiles with clang what the unit suite runs and runs
# it under the sanitizers; then, where the fuzz targets exist (scripts/fuzz.sh), every fuzz
# target runs for a bounded time. docs/TESTING.md has the numbers.
#   scripts/ci-hardening.sh [build-dir]   (default build-hardening)
#   env: JOBS (default nproc), FUZZ_SECONDS (per fuzz target, default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-hardening}
jobs=${JOBS:-$(nproc)}
fuzz_seconds=${FUZZ_SECONDS:-30}
start=$SECONDS

stage() { echo "ci-hardening: $* ($((SECONDS - start)) s so far)"; }

# -O1 keeps the x86 field assembly (it needs __OPTIMIZE__), so the suite checks the code
# production runs; assertions stay on; line tables are enough for the reports' stacks.
# A unity build (each target's sources as one file): 648 -> 533 s here (docs/TESTING.md, "CI time").
flags=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only"
       -DCUZK_SANITIZE=ON -DCUZK_CUDA=OFF -DCUZK_BENCH=OFF -DCMAKE_UNITY_BUILD=ON)
# The fuzz targets (tests/fuzz) come with their own CMake option; older trees lack it.
if grep -q 'CUZK_FUZZ' CMakeLists.txt; then flags+=(-DCUZK_FUZZ=ON); fi
stage "configure $build: clang++ ${flags[*]}"
CC=clang CXX=clang++ cmake -S . -B "$build" "${flags[@]}" >/dev/null

# Only what the unit suite and the fuzz stage run (the target cuzk_unit, tests/CMakeLists.txt):
# the interop-only tests and the timing tools are release-build concerns. Older trees lack it.
targets=()
if grep -q 'cuzk_unit' tests/CMakeLists.txt; then targets=(--target cuzk_unit); fi
stage "build ${targets[*]}"
cmake --build "$build" -j "$jobs" "${targets[@]}"

# halt_on_error and -fno-sanitize-recover: the first report fails the test that made it.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:halt_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/scripts/lsan.supp}
stage "unit tests under ASan + UBSan"
ctest --test-dir "$build" --output-on-failure -j "$jobs" -L unit

if [[ -x scripts/fuzz.sh ]]; then
  stage "fuzz targets, ${fuzz_seconds} s each"
  scripts/fuzz.sh "$build" "$fuzz_seconds"
fi
stage "done"
