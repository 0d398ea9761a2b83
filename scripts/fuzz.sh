#!/usr/bin/env bash
# Runs every libFuzzer target of tests/fuzz for SECONDS each, two at a time, seeded from a
# corpus made here and now; fails on any finding (crash, sanitizer report, timeout,
# allocation over the limit, broken round-trip property).
#
# usage: scripts/fuzz.sh BUILD_DIR SECONDS [TARGET...]
#   BUILD_DIR: configured with clang and -DCUZK_FUZZ=ON (see docs/FUZZING.md); the
#   targets are built here (cmake --build BUILD_DIR --target cuzk_fuzz) if needed.
#   Environment: CUZK=path to a cuzk binary whose dev keys, witnesses and proofs join the
#   seeds (default BUILD_DIR/apps/cuzk when built); CUZK_FUZZ_JOBS (default 2);
#   CUZK_FUZZ_NICE (default 0). Findings land in BUILD_DIR/fuzz-artifacts; each target's
#   corpus grows in BUILD_DIR/fuzz-corpus/TARGET across runs.
set -euo pipefail
build=${1:?usage: fuzz.sh BUILD_DIR SECONDS [TARGET...]}
seconds=${2:?usage: fuzz.sh BUILD_DIR SECONDS [TARGET...]}
shift 2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "$build" && pwd)
jobs=${CUZK_FUZZ_JOBS:-2}
niceness=${CUZK_FUZZ_NICE:-0}
targets=("$@")
((${#targets[@]} > 0)) || targets=(zkey wtns r1cs proof_json public_json vk_json zcash_point snarkjs_point)
declare -A dict=([zkey]=zkey [wtns]=wtns [r1cs]=r1cs [proof_json]=json [public_json]=json [vk_json]=json)

if ! grep -q '^CUZK_FUZZ:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  echo "fuzz.sh: $build is not configured with -DCUZK_FUZZ=ON (clang); see docs/FUZZING.md" >&2
  exit 2
fi
t0=$SECONDS
cmake --build "$build" --target cuzk_fuzz -j"$jobs" >"$build/fuzz-build.log" 2>&1 ||
  { tail -30 "$build/fuzz-build.log" >&2; echo "fuzz.sh: building the targets failed" >&2; exit 2; }
bin=$build/tests/fuzz

# Seeds: every format written by the project's writers, plus real files when at hand.
seeds=$build/fuzz-seeds
rm -rf "$seeds"
"$bin/fuzz_seeds" "$seeds" >/dev/null
cuzk=${CUZK:-$build/apps/cuzk}
if [[ -x $cuzk ]]; then
  real=$(mktemp -d)
  trap 'rm -rf "$real"' EXIT
  for curve in bn254 bls12_381; do
    "$cuzk" setup --dev --demo 12 --curve "$curve" --zkey "$real/k.zkey" --vk "$real/vk.json" \
      --wtns "$real/w.wtns" >/dev/null 2>&1
    "$cuzk" prove "$real/k.zkey" "$real/w.wtns" "$real/proof.json" "$real/public.json" >/dev/null
    cp "$real/k.zkey" "$seeds/zkey/dev-$curve.zkey"
    cp "$real/w.wtns" "$seeds/wtns/dev-$curve.wtns"
    cp "$real/vk.json" "$seeds/vk_json/dev-$curve.json"
    cp "$real/proof.json" "$seeds/proof_json/dev-$curve.json"
    cp "$real/public.json" "$seeds/public_json/dev-$curve.json"
  done
  echo "seeds: the project's writers and $cuzk's dev keys"
else
  echo "seeds: the project's writers (no cuzk binary at $cuzk for dev keys)"
fi
# The circom/snarkjs fixtures (tests/interop/fixtures), small ones only.
fixtures=$build/snarkjs-fixtures
if [[ -d $fixtures ]]; then
  while IFS= read -r f; do
    name=$(echo "${f#"$fixtures"/}" | tr / -)
    case $f in
      *.r1cs) cp "$f" "$seeds/r1cs/$name" ;;
      *.wtns) cp "$f" "$seeds/wtns/$name" ;;
      *.zkey) cp "$f" "$seeds/zkey/$name" ;;
      */proof.json) cp "$f" "$seeds/proof_json/$name" ;;
      */public.json) cp "$f" "$seeds/public_json/$name" ;;
      */verification_key.json) cp "$f" "$seeds/vk_json/$name" ;;
    esac
  done < <(find "$fixtures" -type f -size -256k)
  echo "seeds: plus the snarkjs fixtures in $fixtures"
fi

# The targets write each input to a scratch file in $TMPDIR: memory is faster than disk.
if [[ -z ${TMPDIR:-} && -d /dev/shm && -w /dev/shm ]]; then export TMPDIR=/dev/shm; fi
artifacts=$build/fuzz-artifacts
logs=$build/fuzz-logs
mkdir -p "$artifacts" "$logs"
run_one() {
  local t=$1 corpus=$build/fuzz-corpus/$1
  mkdir -p "$corpus"
  local args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024
              -print_final_stats=1 -artifact_prefix="$artifacts/$t-")
  [[ -n ${dict[$t]:-} ]] && args+=(-dict="$here/tests/fuzz/dict/${dict[$t]}.dict")
  local inputs=("$corpus" "$seeds/$t")
  [[ -d $here/tests/fuzz/regress/$t ]] && inputs+=("$here/tests/fuzz/regress/$t")
  nice -n "$niceness" "$bin/fuzz_$t" "${args[@]}" "${inputs[@]}" >"$logs/$t.log" 2>&1
}

declare -A pid_of=()
status_of=()
for t in "${targets[@]}"; do
  [[ -x $bin/fuzz_$t ]] || { echo "fuzz.sh: no target fuzz_$t" >&2; exit 2; }
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
  run_one "$t" &
  pid_of[$t]=$!
done
failed=0
printf '%-14s %12s %8s %7s  %s\n' target executions seconds corpus result
for t in "${targets[@]}"; do
  rc=0
  wait "${pid_of[$t]}" || rc=$?
  log=$logs/$t.log
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  units=$(find "$build/fuzz-corpus/$t" -type f | wc -l)
  if ((rc == 0)); then
    result=ok
  else
    result="FINDING (exit $rc): $(grep -m1 -E 'ERROR|SUMMARY|fuzz property failed|==[0-9]+==' "$log" || tail -1 "$log")"
    failed=$((failed + 1))
  fi
  printf '%-14s %12s %8s %7s  %s\n' "$t" "${execs:-?}" "${secs:-?}" "$units" "$result"
done
echo "fuzz.sh: ${#targets[@]} targets, ${seconds} s each, $jobs at a time, $((SECONDS - t0)) s in all; logs in $logs"
if ((failed > 0)); then
  echo "fuzz.sh: $failed targets found something; inputs in $artifacts" >&2
  exit 1
fi
