#!/usr/bin/env bash
# scripts/gpu-check.sh's own contract, without a GPU: a packed tree of stand-in programs
# (shell scripts named like the device tests) run with --prebuilt. Checks the result line and
# exit status (PASS 0, FAIL 1, INCOMPLETE 3, bad CUZK_GPU_DEADLINE 2), that CUZK_GPU_DEADLINE
# cuts a step that would overrun it and leaves the later ones out, and that the summary
# reaches CUZK_GPU_CHECK_OUT while the run is still going.
# shellcheck source=tests/scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
CHECK=$ROOT/scripts/gpu-check.sh

# pack NAME=BODY...: a packed tree whose programs run BODY (a shell command line).
pack() {
  local dir=$work/pack-$RANDOM
  mkdir -p "$dir"
  echo test-pack >"$dir/COMMIT"
  local spec
  for spec in "$@"; do
    printf '#!/bin/sh\n%s\n' "${spec#*=}" >"$dir/${spec%%=*}"
    chmod +x "$dir/${spec%%=*}"
  done
  echo "$dir"
}

# run DIR [VAR=VALUE...]: runs the check on DIR; sets RC and OUTDIR (its summary's folder).
run() {
  local dir=$1
  shift
  OUTDIR=$work/out-$RANDOM
  env "$@" CUZK_GPU_CHECK_OUT="$OUTDIR" TMPDIR="$work" "$CHECK" --prebuilt "$dir" >"$work/log" 2>&1
  RC=$?
}

expect_row() {  # expect_row PATTERN: a row of the summary matches
  grep -qE "$1" "$OUTDIR/summary.md" || fail "no row matching '$1' in: $(cat "$OUTDIR/summary.md")"
}

ok='echo "[  PASSED  ] 3 tests."'

# Every stand-in passes: PASS, exit 0, the cases counted.
run "$(pack cuda_runtime_test="$ok" cuda_ntt_test="$ok")"
((RC == 0)) || fail "all passing: exit $RC, want 0"
expect_row '^RESULT: PASS$'
expect_row '^\| cuda_ntt_test \| 3 \| ok \|'
expect_row '^commit: test-pack \(as packed\)$'

# Whole proofs through a stand-in `cuzk` whose rows say all proofs verified: the phase has
# its row (the summary written after each proof once clobbered the phase's start time, and
# the row was lost) and the proofs' table its rows.
proof='echo "median 1ms 2ms 3ms 4ms 5ms 6ms 7ms 8ms 9ms 10ms"; echo "=> all 5 proofs verified"'
run "$(pack cuda_runtime_test="$ok" cuzk="$proof")" CUZK_GPU_PROOF_LOGS=16 CUZK_GPU_CHAIN_LOGS=16
((RC == 0)) || fail "whole proofs: exit $RC, want 0"
expect_row '^\| whole proofs \| ok \| [0-9]+ s \|$'
expect_row '^\| bls12_381 \| 2\^16 \| cuda \| 1\.0 ms \|'
expect_row '^\| bn254 chain \| 2\^16 \| cpu \|'
expect_row '^RESULT: PASS$'

# One fails: FAIL, exit 1, and the tests after it still run.
run "$(pack cuda_runtime_test='exit 1' cuda_ntt_test="$ok")"
((RC == 1)) || fail "one failing: exit $RC, want 1"
expect_row '^\| cuda_runtime_test \| 0 \| FAIL \|'
expect_row '^\| cuda_ntt_test \| 3 \| ok \|'
expect_row '^RESULT: FAIL'

# A deadline of 30 s (15 s of it kept for the summary): the slow test is cut at the deadline,
# not failed; the one after it is not started; INCOMPLETE, exit 3, well before its 400 s limit.
start=$SECONDS
run "$(pack cuda_runtime_test="$ok" cuda_allocator_test='sleep 60' cuda_ntt_test="$ok")" CUZK_GPU_DEADLINE=30
((RC == 3)) || fail "deadline: exit $RC, want 3"
((SECONDS - start <= 30)) || fail "deadline 30 s: the run took $((SECONDS - start)) s"
expect_row '^\| cuda_runtime_test \| 3 \| ok \|'
expect_row '^\| cuda_allocator_test \| 0 \| cut \(deadline\) \|'
expect_row '^\| cuda_ntt_test \| 0 \| not run \(deadline\) \|'
expect_row '^\| device tests \| incomplete \(deadline\) \|'
expect_row '^RESULT: INCOMPLETE'

# A failure outweighs the deadline.
run "$(pack cuda_runtime_test='exit 1' cuda_allocator_test='sleep 60')" CUZK_GPU_DEADLINE=28
((RC == 1)) || fail "failure and deadline: exit $RC, want 1"
expect_row '^RESULT: FAIL'

# The summary is in the output folder while the run is still going.
dir=$(pack cuda_runtime_test="$ok" cuda_allocator_test='sleep 60')
OUTDIR=$work/out-live
# Its own session (setsid), so that stopping the session takes its steps along.
setsid env CUZK_GPU_CHECK_OUT="$OUTDIR" TMPDIR="$work" CUZK_GPU_DEADLINE=40 "$CHECK" --prebuilt "$dir" >/dev/null 2>&1 &
pid=$!
# The archive is written just after the summary: wait for both (a loaded machine may be slow).
for _ in $(seq 100); do
  grep -q '^| cuda_runtime_test | 3 | ok |' "$OUTDIR/summary.md" 2>/dev/null && [[ -s $OUTDIR/gpu-check-logs.tgz ]] && break
  sleep 0.1
done
expect_row '^\| cuda_runtime_test \| 3 \| ok \|'
expect_row '^RESULT: still running$'
[[ -s $OUTDIR/gpu-check-logs.tgz ]] || fail "no log archive beside the running summary"
pkill -s "$pid" 2>/dev/null  # timeout puts each step in a process group of its own
wait "$pid" 2>/dev/null

# A deadline that is not a number is refused before anything runs.
run "$(pack cuda_runtime_test="$ok")" CUZK_GPU_DEADLINE=9m
((RC == 2)) || fail "CUZK_GPU_DEADLINE=9m: exit $RC, want 2"
grep -q "CUZK_GPU_DEADLINE must be a whole number of seconds" "$work/log" || fail "no clear error for CUZK_GPU_DEADLINE=9m"
[[ ! -e $OUTDIR/summary.md ]] || fail "a summary was written for a refused deadline"

finish gpu_check_test
