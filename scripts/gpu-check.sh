#!/usr/bin/env bash
# Device check for a GPU machine: builds the CUDA backend and its tests, runs the device
# tests and the arithmetic benchmark, runs whatever unit tests can build there, and prints
# a summary. Meant for a machine with nvcc, cmake and ninja but no -dev packages and no
# network: GoogleTest is built from a source tree (default: <repo>/.gtest, a copy of
# /usr/src/googletest), GMP-based tests are disabled when GMP is missing.
#
# Environment: CUZK_GPU_BUILD (build dir, default <repo>/build-gpu), CUZK_CUDA_ARCH (90),
# CUZK_GTEST_SOURCE_DIR, JOBS (nproc), CUZK_GPU_CHECK_UNIT=0 to skip the unit tests,
# CUZK_GPU_CHECK_OUT (a folder that receives summary.md and the logs; defaults to $OUT),
# CUZK_COMMIT (the commit to print; wins over git, whose view of a copied tree, as on the
# device machine, may be stale).
# Exit status: 0 when the device build, the device tests and the benchmark all pass.
# Usage: scripts/gpu-check.sh [--build-only]   (--build-only: configure and build, run nothing)
set -uo pipefail

BUILD_ONLY=0
case "${1:-}" in
  --build-only) BUILD_ONLY=1 ;;
  "") ;;
  *) echo "usage: $0 [--build-only]" >&2; exit 2 ;;
esac

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${CUZK_GPU_BUILD:-$ROOT/build-gpu}
ARCH=${CUZK_CUDA_ARCH:-90}
GTEST_SRC=${CUZK_GTEST_SOURCE_DIR:-$ROOT/.gtest}
JOBS=${JOBS:-$(nproc)}
RUN_UNIT=${CUZK_GPU_CHECK_UNIT:-1}
COPY_TO=${CUZK_GPU_CHECK_OUT:-${OUT:-}}
LOGS=$BUILD/gpu-check
GPU_TARGETS=(cuda_runtime_test cuda_field_ops_test cuda_point_ops_test cuda_arith_bench)

mkdir -p "$LOGS"
SUMMARY=$LOGS/summary.md
: >"$SUMMARY"
START=$SECONDS
declare -a PHASES=()
FAILED=0

say() { printf '== %s\n' "$*"; }
phase() {  # phase NAME RESULT SECONDS
  PHASES+=("| $1 | $2 | $3 s |")
}
finish() {
  {
    echo "# cuzk gpu-check"
    echo
    if [[ -n ${CUZK_COMMIT:-} ]]; then
      echo "commit: $CUZK_COMMIT (CUZK_COMMIT as given)"
    elif git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
      echo "commit: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD || echo ' (+ local changes)')"
    else
      echo "commit: unknown (no .git here; set CUZK_COMMIT)"
    fi
    echo "device: ${DEVICE_LINE:-unknown}"
    echo "build: $BUILD (arch $ARCH, $JOBS jobs); total $((SECONDS - START)) s"
    echo
    echo "| phase | result | time |"
    echo "|---|---|---:|"
    printf '%s\n' "${PHASES[@]}"
    if [[ -s $LOGS/tests.md ]]; then
      echo
      cat "$LOGS/tests.md"
    fi
    if [[ -s $LOGS/bench-table.md ]]; then
      echo
      cat "$LOGS/bench-table.md"
    fi
    echo
    if ((FAILED)); then echo "RESULT: FAIL (logs in $LOGS)"; else echo "RESULT: PASS"; fi
  } >"$SUMMARY"
  echo
  cat "$SUMMARY"
  if [[ -n $COPY_TO ]]; then
    mkdir -p "$COPY_TO" && cp "$SUMMARY" "$LOGS"/*.log "$COPY_TO"/ 2>/dev/null || true
  fi
  exit $((FAILED ? 1 : 0))
}

# Rows "| test | label | result | time |" from a ctest log.
test_rows() {  # test_rows LOG LABEL
  sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) \.*[ *]*([A-Za-z][A-Za-z :()-]*[A-Za-z)]) +([0-9.]+ sec).*/| \1 | '"$2"' | \2 | \3 |/p' "$1"
}

# --- tools ------------------------------------------------------------------
export PATH=/usr/local/cuda/bin:$PATH
if ! command -v nvcc >/dev/null; then
  say "nvcc not found"; phase tools "FAIL: no nvcc" 0; FAILED=1; finish
fi
GEN=(-G "Unix Makefiles")
command -v ninja >/dev/null && GEN=(-G Ninja)
if command -v nvidia-smi >/dev/null; then
  DEVICE_LINE=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
fi
DEVICE_LINE="${DEVICE_LINE:-no nvidia-smi}; $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/nvcc \1/p')"
say "device: $DEVICE_LINE"

GTEST_ARGS=()
if [[ -f $GTEST_SRC/CMakeLists.txt ]]; then
  GTEST_ARGS=(-DCUZK_GTEST_SOURCE_DIR="$GTEST_SRC")
else
  say "no GoogleTest source at $GTEST_SRC; relying on an installed GTest"
fi

# --- configure ----------------------------------------------------------------
say "configure ($BUILD)"
t=$SECONDS
if cmake -S "$ROOT" -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=ON -DCUZK_CUDA_ARCH="$ARCH" \
    -DCUZK_BENCH=OFF -DCUZK_APPS=OFF -DCUZK_TESTS=ON "${GTEST_ARGS[@]}" >"$LOGS/configure.log" 2>&1; then
  phase configure ok $((SECONDS - t))
else
  tail -40 "$LOGS/configure.log"; phase configure FAIL $((SECONDS - t)); FAILED=1; finish
fi

# --- device build -------------------------------------------------------------
say "build ${GPU_TARGETS[*]}"
t=$SECONDS
if cmake --build "$BUILD" -j "$JOBS" --target "${GPU_TARGETS[@]}" >"$LOGS/build-gpu.log" 2>&1; then
  phase "build (device targets)" ok $((SECONDS - t))
else
  grep -E "error|Error" "$LOGS/build-gpu.log" | head -40
  phase "build (device targets)" FAIL $((SECONDS - t)); FAILED=1; finish
fi

# --- unit tests that can build here (best effort: other layers may need missing packages)
UNIT_TESTS=()
if [[ $RUN_UNIT == 1 ]]; then
  # Tests registered by cuzk_add_test are named after their executable target; keep those
  # the build knows (script-driven tests have no target of their own).
  mapfile -t UNIT_TESTS < <(cd "$BUILD" && ctest -N -L unit | sed -nE 's/^ *Test +#[0-9]+: ([^ ]+).*/\1/p' |
    grep -Fxf <(cmake --build "$BUILD" --target help 2>/dev/null | sed -nE 's/^([A-Za-z0-9_.-]+): phony$/\1/p'))
  if ((${#UNIT_TESTS[@]})); then
    say "build ${#UNIT_TESTS[@]} unit tests (failures tolerated)"
    t=$SECONDS
    if cmake --build "$BUILD" -j "$JOBS" --target "${UNIT_TESTS[@]}" -- -k 0 >"$LOGS/build-unit.log" 2>&1; then
      phase "build (unit tests)" ok $((SECONDS - t))
    else
      phase "build (unit tests)" "some failed, see build-unit.log" $((SECONDS - t))
    fi
  fi
fi

if ((BUILD_ONLY)); then
  finish
fi

# --- device tests ---------------------------------------------------------------
say "device tests"
t=$SECONDS
# CUZK_REQUIRE_GPU turns "no device" skips into failures: on this machine a skip is a fault.
if (cd "$BUILD" && CUZK_REQUIRE_GPU=1 ctest -L gpu --output-on-failure --timeout 300) >"$LOGS/test-gpu.log" 2>&1; then
  phase "device tests" ok $((SECONDS - t))
else
  grep -E "Failure|FAILED|error" "$LOGS/test-gpu.log" | head -40
  phase "device tests" FAIL $((SECONDS - t)); FAILED=1
fi
grep -E "CUZK_TEST_SEED=" "$LOGS/test-gpu.log" | head -1 | sed 's/^/   /'
{
  echo "| test | label | result | time |"
  echo "|---|---|---|---:|"
  test_rows "$LOGS/test-gpu.log" gpu
} >"$LOGS/tests.md"

# --- benchmark ------------------------------------------------------------------
say "benchmark"
t=$SECONDS
if "$BUILD/tests/cuda/cuda_arith_bench" --runs 7 >"$LOGS/bench.log" 2>&1; then
  phase benchmark ok $((SECONDS - t))
else
  phase benchmark FAIL $((SECONDS - t)); FAILED=1
fi
{
  grep -E '^(command|device):' "$LOGS/bench.log"
  echo
  grep -E '^\|' "$LOGS/bench.log"
} >"$LOGS/bench-table.md"
cat "$LOGS/bench.log"

# --- unit tests -------------------------------------------------------------------
if ((${#UNIT_TESTS[@]})); then
  say "unit tests"
  t=$SECONDS
  if (cd "$BUILD" && ctest -L unit -LE gpu -j "$JOBS" --timeout 300 --output-on-failure) >"$LOGS/test-unit.log" 2>&1; then
    phase "unit tests" ok $((SECONDS - t))
  else
    phase "unit tests" "some failed or not built, see test-unit.log" $((SECONDS - t))
  fi
  test_rows "$LOGS/test-unit.log" unit >>"$LOGS/tests.md"
fi

finish
