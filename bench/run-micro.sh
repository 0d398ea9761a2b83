#!/usr/bin/env bash
# Times cuzk's host primitives and the same operations in blst and @noble/curves, in one
# run, and prints a markdown table (median of REPS repetitions) with the exact command.
# usage: bench/run-micro.sh <build-dir>     (env: REPS, default 5; MIN_MS, default 200)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: bench/run-micro.sh <build-dir>}
reps=${REPS:-5}
min_ms=${MIN_MS:-200}

bin=$build/bench/micro_bench
if [[ ! -x $bin ]]; then
  echo "run-micro: $bin not found; configure with -DCUZK_BENCH=ON and build the micro_bench target" >&2
  exit 1
fi
if [[ ! -d $root/tests/interop/node_modules/@noble/curves ]]; then
  echo "run-micro: the peers are missing; run scripts/install-deps.sh (npm ci in tests/interop)" >&2
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cuzk_cmd=("$bin" --benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true
          --benchmark_min_time="$(awk "BEGIN{print $min_ms/1000}")" --benchmark_format=json)
"${cuzk_cmd[@]}" >"$tmp/cuzk.json"
node "$root/bench/peers/blst_bench.mjs" --reps "$reps" --min-ms "$min_ms" >"$tmp/blst.json"
node "$root/bench/peers/noble_bench.mjs" --reps "$reps" --min-ms "$min_ms" >"$tmp/noble.json"

commit=$(git -C "$root" rev-parse --short HEAD)
git -C "$root" diff --quiet HEAD -- src bench || commit="$commit (with uncommitted changes)"
echo "Machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(free -g | awk '/^Mem:/{print $2}') GiB memory"
echo "Commit: $commit"
echo "Command: REPS=$reps MIN_MS=$min_ms bench/run-micro.sh $build"
echo
node "$root/bench/make_table.mjs" "$tmp/cuzk.json" "$tmp/blst.json" "$tmp/noble.json"
