#!/usr/bin/env bash
# `make demo`: the daemon, as a new user meets it. Builds only the two binaries it runs
# (CPU-only unless a GPU answers nvidia-smi), starts cuzk-daemon on a private socket with
# the built-in defaults, registers the demo circuit (keys built once, cached in $CUZK_CACHE),
# runs the bench client (a line per proof, s/proof, memory before and after) and stops the
# daemon with SIGTERM.
# usage: scripts/demo.sh [BUILD_DIR]   (env: DEMO_CONSTRAINTS, DEMO_PROOFS, DEMO_CONCURRENCY)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-demo}
constraints=${DEMO_CONSTRAINTS:-$(((1 << 16) - 5))}
proofs=${DEMO_PROOFS:-8}
concurrency=${DEMO_CONCURRENCY:-2}

# Without a GPU, a unity build (each library's sources compiled as one or two files): on 2
# cores it takes 142 s instead of 208 (259 CPU-s of compiles instead of 399: the gRPC, CLI11
# and engine headers parsed once per target, not once per file), which keeps `make demo`
# under 3 minutes on a fresh 2-core machine. It needs the names in anonymous namespaces to be
# unique within each library (docs/TESTING.md, "The demo build"). With CUDA, the usual build.
cuda=OFF
unity=ON
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then cuda=auto unity=OFF; fi
t0=$(date +%s)
echo "== building cuzk and cuzk-daemon in $build (CUDA: $cuda, unity build: $unity)"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=$cuda -DCMAKE_UNITY_BUILD=$unity \
  -DCUZK_TESTS=OFF -DCUZK_BENCH=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target cuzk cuzk-daemon

run=$(mktemp -d)
sock=$run/cuzk.sock
pid=
cleanup() {
  [[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null
  rm -rf "$run"
}
trap cleanup EXIT
echo "== starting cuzk-daemon on unix:$sock (built-in default config)"
"$build/apps/cuzk-daemon" --socket "$sock" --metrics-address "" &
pid=$!
for _ in $(seq 300); do
  "$build/apps/cuzk" client --daemon "$sock" status 2>/dev/null | grep -q ": ready" && break
  kill -0 "$pid" 2>/dev/null || { echo "cuzk-daemon exited"; exit 1; }
  sleep 0.1
done
echo "== cuzk bench --daemon (the demo circuit: $constraints constraints, bn254)"
"$build/apps/cuzk" bench --daemon "$sock" --circuit demo -n "$constraints" --count "$proofs" --concurrency "$concurrency"
"$build/apps/cuzk" client --daemon "$sock" status
echo "== stopping the daemon (SIGTERM)"
kill -TERM "$pid"
wait "$pid"
pid=
echo "== demo done in $(($(date +%s) - t0)) s"
