#!/usr/bin/env bash
# The daemon's GPU figures (issue 9's performance criteria), on a machine with one GPU or
# several (the daemon serves on every GPU it finds; the busy share is their mean):
#   1. a CRITICAL proof of a small circuit alone: its solo latency;
#   2. a continuous stream of large proofs (default 2^24, BLS12-381) from several clients, with
#      gpu_workers_per_device = 2 and then = 1: throughput, and the GPU's busy share sampled by
#      nvidia-smi between the first and the last completed proof;
#   3. the same small CRITICAL proof submitted into a second saturated 2-worker stream (the
#      first, without probes, gives the throughput row): its latency against the solo figure
#      (target: within 2x);
#   4. the reference engine's failure replayed: the card capped to 16 GiB, 2 workers, 3 proofs in
#      flight: every proof succeeds (some through prestage=fallback) and memory returns;
#   5. the daemon's overhead per proof: the small circuit at concurrency 1 through the daemon
#      against the in-process `cuzk bench` of the same key (gRPC + queueing + verify);
#   6. a lost GPU: CUZK_FAULT=sticky:N traps a kernel during a run of small proofs; the
#      daemon resets the GPU and serves on, or (the H200's case) reports it lost, drains and
#      exits 75 for its supervisor, or with ON_DEVICE_LOST=continue and another GPU left
#      serves on without it; a fresh daemon then proves again.
# Every proof the daemon returns was verified by it; any FAILED line fails this script.
#
# usage: scripts/gpu-daemon-bench.sh BIN_DIR OUT_DIR
# env: STREAM_LOG (24), SMALL_LOG (20), CURVE (bls12_381), STREAM_COUNT (24), STREAM_CLIENTS (4),
#      WITNESS (path | bytes), BACKEND (cuda), CUZK_CACHE (the demo keys, built once),
#      ON_DEVICE_LOST (restart | continue: the lost-GPU phase's [devices] on_device_lost)
set -euo pipefail
BIN=${1:?"usage: $0 BIN_DIR OUT_DIR"}
OUTD=${2:?"usage: $0 BIN_DIR OUT_DIR"}
STREAM_LOG=${STREAM_LOG:-24}
SMALL_LOG=${SMALL_LOG:-20}
CURVE=${CURVE:-bls12_381}
STREAM_COUNT=${STREAM_COUNT:-24}
STREAM_CLIENTS=${STREAM_CLIENTS:-4}
PHASES=${PHASES:-w2 w1 replay lost}  # w2 also runs the probed stream and the overhead runs; t2, t1: the stream alone
CRIT_PROBES=${CRIT_PROBES:-3}
WITNESS=${WITNESS:-path}  # path: the daemon maps the client's .wtns (a local client); bytes: sent over gRPC
BACKEND=${BACKEND:-cuda}  # of the in-process comparison (cpu: to try this script without a GPU)
mkdir -p "$OUTD"
export CUZK_CACHE=${CUZK_CACHE:-${TMPDIR:-/tmp}/cuzk-daemon-bench-cache}
big_n=$(((1 << STREAM_LOG) - 5))
small_n=$(((1 << SMALL_LOG) - 5))
run=$(mktemp -d)
pid=
smi=
cleanup() {
  [[ -n $smi ]] && kill "$smi" 2>/dev/null
  [[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null
  rm -rf "$run"
}
trap cleanup EXIT

stamp() { while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done; }

start_daemon() {  # workers log_name [device memory cap] [on_device_lost]
  cat >"$run/daemon.toml" <<EOF
[engine]
gpu_workers_per_device = $1
[devices]
cuda_memory_cap_bytes = "${3:-0}"
on_device_lost = "${4:-restart}"
EOF
  "$BIN/cuzk-daemon" --config "$run/daemon.toml" --socket "$run/cuzk.sock" --metrics-address "" \
    >"$OUTD/$2" 2>&1 &
  pid=$!
  for _ in $(seq 600); do
    "$BIN/cuzk" client --daemon "$run/cuzk.sock" status 2>/dev/null | grep -q ": ready" && return 0
    kill -0 "$pid" 2>/dev/null || { echo "cuzk-daemon exited: $(tail -3 "$OUTD/$2")"; return 1; }
    sleep 0.1
  done
  echo "cuzk-daemon not ready after 60 s"
  return 1
}

stop_daemon() {
  kill -TERM "$pid"
  local rc=0
  wait "$pid" || rc=$?
  pid=
  [[ $rc == 0 ]] || { echo "cuzk-daemon exited $rc after SIGTERM"; return 1; }
}

bench() {  # circuit n count concurrency priority log
  "$BIN/cuzk" bench --daemon "$run/cuzk.sock" --circuit "$1" -n "$2" --curve "$CURVE" --count "$3" \
    --concurrency "$4" --priority "$5" $([[ $WITNESS == path ]] && echo --witness-path) 2>&1 | stamp >"$OUTD/$6"
  ! grep -q FAILED "$OUTD/$6" && grep -q "OK in" "$OUTD/$6"
}

# The median of every *_ms field over the daemon log lines that match a pattern.
field_medians() {  # log pattern
  local lines f out="" v
  lines=$(grep -h "$2" "$1" 2>/dev/null) || return 0
  for f in $(grep -o '[a-z_0-9]*_ms=' <<<"$lines" | awk '!seen[$0]++'); do
    v=$(grep -o "[^a-z_]$f[0-9.]*" <<<"$lines" | cut -d= -f2 | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
    out="${out:+$out }$f$v"
  done
  echo "$out"
}

p50() { sed -n 's/.*latency p50 \([0-9.]*\) s.*/\1/p' "$1" | head -1; }
# Steady state, s/proof: between the first and the last completion, from the lines' arrival
# stamps (the client prints 3 decimals; this keeps 4).
steady() { awk '/\] OK / { if (!n++) a = $1; b = $1 } END { if (n > 1) printf "%.4f", (b - a) / (n - 1) }' "$1"; }

# Busy share: nvidia-smi samples (utilization.gpu, %) between the first and last OK line.
busy_share() {  # smi_log bench_log
  local first last
  first=$(grep '\] OK ' "$2" | head -1 | cut -d' ' -f1)
  last=$(grep '\] OK ' "$2" | tail -1 | cut -d' ' -f1)
  awk -v a="$first" -v b="$last" '$1 >= a && $1 <= b { s += $2; n++ } END { if (n) printf "%.1f%% %d\n", s / n, n; else print "n/a 0" }' "$1"
}

sample_gpu() {  # log
  : >"$1"
  command -v nvidia-smi >/dev/null || return 0
  nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -lms 100 | stamp >"$1" &
  smi=$!
}

rows=()
# One stream of STREAM_COUNT big proofs from STREAM_CLIENTS clients, the GPU sampled
# meanwhile: its row of the table. With `probes`, CRIT_PROBES CRITICAL small proofs go into it
# (their GPU time is not the stream's: that stream gives no throughput row).
run_stream() {  # workers log_tag probes
  sample_gpu "$OUTD/smi-$2.log"
  bench big "$big_n" "$STREAM_COUNT" "$STREAM_CLIENTS" normal "stream-$2.log" &
  local bpid=$!
  if [[ $3 == probes ]]; then
    # Well inside the stream: after its second completion every worker is busy, the queue full.
    for _ in $(seq 600); do
      [[ $(grep -c ' OK ' "$OUTD/stream-$2.log" 2>/dev/null) -ge 2 ]] && break
      kill -0 "$bpid" 2>/dev/null || break
      sleep 0.1
    done
    # CRIT_PROBES probes, 0.4 s apart, each alone: the latencies, and the daemon's own timings
    # of each (where its latency went).
    local k lat crit=""
    for k in $(seq "$CRIT_PROBES"); do
      kill -0 "$bpid" 2>/dev/null || break
      bench small "$small_n" 1 1 critical "small-critical-in-stream-$k.log"
      lat=$(sed -n 's/.*\[1\/1\] OK \([0-9.]*\)s.*/\1/p' "$OUTD/small-critical-in-stream-$k.log")
      crit="${crit:+$crit }$lat"
      sleep 0.4
    done
    DAEMON_CRIT=$crit
    CRIT_TIMINGS=$(grep "circuit=small priority=CRITICAL" "$OUTD/daemon-w$1.log" | tail -n "$CRIT_PROBES" |
      sed 's/.*prestage=/prestage=/')
  fi
  wait "$bpid"
  kill "$smi" 2>/dev/null || true
  smi=
  [[ $3 == probes ]] && return 0
  local s busy samples
  read -r busy samples < <(busy_share "$OUTD/smi-$2.log" "$OUTD/stream-$2.log")
  s=$(steady "$OUTD/stream-$2.log")
  rows+=("| $1 | $STREAM_COUNT x 2^$STREAM_LOG, $STREAM_CLIENTS clients | $s | $(awk -v s="$s" 'BEGIN{printf "%.3f", 1/s}') | $busy ($samples samples) | $(p50 "$OUTD/stream-$2.log") |")
}

stream() {  # workers [only: the throughput stream alone]
  start_daemon "$1" "daemon-w$1.log"
  bench big "$big_n" 2 1 normal "warm-w$1.log"  # registers (the key is built once, cached), loads, warms
  bench small "$small_n" 3 1 critical "small-warm-w$1.log"
  if [[ $1 == 2 && -z ${2:-} ]]; then
    bench small "$small_n" 7 1 critical "small-solo.log"
    DAEMON_SOLO=$(p50 "$OUTD/small-solo.log")
  fi
  run_stream "$1" "w$1" throughput
  if [[ $1 == 2 && -z ${2:-} ]]; then
    run_stream "$1" "w$1-probed" probes
    # Overhead: the small circuit through the daemon at concurrency 1, against in-process.
    bench small "$small_n" 9 1 normal "small-serial.log"
    DAEMON_SERIAL=$(p50 "$OUTD/small-serial.log")
  fi
  "$BIN/cuzk" client --daemon "$run/cuzk.sock" status >"$OUTD/status-w$1.log" 2>&1
  stop_daemon
}

# The reference engine's failure, replayed: the card capped to 16 GiB, 2 workers, 3 proofs
# in flight, five 2^STREAM_LOG proofs; then the device must be back at its idle baseline.
replay() {
  start_daemon 2 daemon-replay.log 16GiB
  bench big "$big_n" 5 3 normal "replay.log" || REPLAY="FAILED"
  "$BIN/cuzk" client --daemon "$run/cuzk.sock" status >"$OUTD/status-replay.log" 2>&1
  REPLAY=${REPLAY:-$(grep -h "OK in" "$OUTD/replay.log" | cut -d' ' -f2-)}
  REPLAY_DEVICE=$(grep -h "^device " "$OUTD/status-replay.log" | head -1 || true)
  REPLAY_KEY=$(grep -h "^key big" "$OUTD/status-replay.log" | head -1 || true)
  stop_daemon
}

# A lost GPU (phase 6): the fault lands in one of the small proofs (or the self-test); the
# daemon either resets in process and serves on, or exits 75; either way a fresh daemon proves.
lost_device() {
  local rc=0 outcome
  CUZK_FAULT=${LOST_FAULT:-sticky:200@msm.} start_daemon 1 daemon-lost.log 0 "${ON_DEVICE_LOST:-restart}" || true
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
    bench small "$small_n" 8 1 normal "lost.log" || true
    timeout 60 tail --pid="$pid" -f /dev/null || true
  fi
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
    outcome="still serving after the fault: $(grep -c ' OK ' "$OUTD/lost.log" || true) of 8 OK, $(grep -o 'reset done in [0-9]* ms\|serving on [0-9]* other device(s)' "$OUTD/daemon-lost.log" | head -1)"
    stop_daemon || outcome="$outcome; SIGTERM exit not 0"
  else
    wait "$pid" || rc=$?
    pid=
    local where="a small proof"
    grep -q "circuit=cuzk-selftest.*outcome=failed" "$OUTD/daemon-lost.log" && where="the start-up self-test"
    outcome="fault in $where; exit status $rc after $(grep -c ' OK ' "$OUTD/lost.log" 2>/dev/null || echo 0) of 8 OK: $(grep -o 'could not be reset after a sticky fault.*' "$OUTD/daemon-lost.log" | head -1 | cut -c1-160)"
  fi
  start_daemon 1 daemon-after-lost.log
  if bench small "$small_n" 3 1 normal "after-lost.log"; then outcome="$outcome; a fresh daemon: 3/3 OK"; else outcome="$outcome; a fresh daemon: FAILED"; fi
  stop_daemon
  LOST=$outcome
}

for phase in $PHASES; do
  case $phase in
    w2) stream 2 ;;
    w1) stream 1 ;;
    t2) stream 2 only ;;  # throughput rows again, to alternate with t1 (e.g. PHASES="w2 w1 t2 t1 t2 t1")
    t1) stream 1 only ;;
    replay) replay ;;
    lost) lost_device ;;
    *) echo "unknown phase $phase (PHASES: w2 w1 t2 t1 replay lost)" >&2; exit 2 ;;
  esac
done
"$BIN/cuzk" bench -n "$small_n" --curve "$CURVE" --backend "$BACKEND" -r 9 >"$OUTD/small-inprocess.log" 2>&1
inproc=$(sed -n 's/^=> \([0-9.]*\) s per proof.*/\1/p' "$OUTD/small-inprocess.log" | tail -1)

{
  echo "### daemon stream ($CURVE, 2^$STREAM_LOG stream, 2^$SMALL_LOG CRITICAL probe, witness by $WITNESS, $(nvidia-smi -L 2>/dev/null | grep -c '^GPU') GPU(s))"
  echo
  echo "| gpu_workers_per_device | stream | steady s/proof | proofs/s | GPU busy (nvidia-smi) | stream latency p50 s |"
  echo "|---:|---|---:|---:|---:|---:|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "- CRITICAL 2^$SMALL_LOG proof: solo p50 ${DAEMON_SOLO:-not run}s; submitted into a second saturated 2-worker stream: ${DAEMON_CRIT:-not run}s"
  echo "  - their timings in the daemon:"
  sed 's/^/    - /' <<<"${CRIT_TIMINGS:-}"
  echo "- device allocator after the 2-worker run: $(grep -h 'allocator:' "$OUTD/status-w2.log" 2>/dev/null | sed 's/^ *allocator: //')"
  echo "- 2^$SMALL_LOG through the daemon at concurrency 1: p50 ${DAEMON_SERIAL:-not run}s; in-process \`cuzk bench\` (median of 9): ${inproc}s"
  echo "  - the daemon's timings of those proofs (median of each field): $(field_medians "$OUTD/daemon-w2.log" "circuit=small priority=NORMAL")"
  echo "- 16 GiB cap, 2 workers, 3 in flight, 5 proofs: ${REPLAY:-not run}"
  echo "  - after: ${REPLAY_DEVICE:-not run}"
  echo "  - ${REPLAY_KEY:-not run}"
  echo "- lost GPU (CUZK_FAULT=${LOST_FAULT:-sticky:200@msm.}): ${LOST:-not run}"
  echo
  echo '```'
  for w in 2 1; do
    echo "gpu_workers_per_device = $w:"
    grep -h "memory\|OK in\|latency" "$OUTD/stream-w$w.log" | cut -d' ' -f2-
  done
  echo '```'
} | tee "$OUTD/daemon-stream.md"
