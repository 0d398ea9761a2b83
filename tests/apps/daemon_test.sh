#!/usr/bin/env bash
# cuzk-daemon and the cuzk client commands end to end over a private Unix socket: starts
# with no config (and with the example config), registers and proves, bench lines, cancel,
# evict, bad requests answered with their codes while the daemon keeps serving, /metrics
# accepted by promtool, SIGTERM exits 0 and removes the socket, a restart serves again.
# usage: daemon_test.sh CUZK CUZK_DAEMON EXAMPLE_CONFIG
set -euo pipefail
cuzk=${1:?cuzk binary}
daemon=${2:?cuzk-daemon binary}
example=${3:?example config}
tmp=$(mktemp -d)
pid=
trap '[[ -n $pid ]] && kill -KILL $pid 2>/dev/null; rm -rf "$tmp"' EXIT
failures=0
sock=$tmp/run/cuzk.sock

source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
start_daemon() {
  port=$(free_port)
  "$daemon" "$@" --socket "$sock" --metrics-address "127.0.0.1:$port" >>"$tmp/daemon.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  bad "daemon did not become ready: $(tail -5 "$tmp/daemon.log")"
  return 1
}
stop_daemon() {
  kill -TERM $pid
  local rc=0
  wait $pid || rc=$?
  pid=
  if [[ $rc == 0 ]]; then pass "SIGTERM: the daemon drains and exits 0"; else bad "SIGTERM: exit $rc"; fi
  if [[ ! -e $sock ]]; then pass "the socket is removed on exit"; else bad "the socket is left behind"; fi
}

"$cuzk" setup --dev --demo 1019 --zkey "$tmp/k.zkey" --vk "$tmp/vk.json" --wtns "$tmp/w.wtns" >/dev/null 2>&1
"$cuzk" setup --dev --demo 500 --zkey "$tmp/k2.zkey" --vk "$tmp/vk2.json" --wtns "$tmp/w2.wtns" >/dev/null 2>&1
"$cuzk" setup --dev --demo 200 --curve bls12_381 --zkey "$tmp/kb.zkey" --vk "$tmp/vkb.json" --wtns "$tmp/wb.wtns" >/dev/null 2>&1
head -c 3000 "$tmp/k.zkey" >"$tmp/truncated.zkey"
c=("$cuzk" client --daemon "$sock")

start_daemon
if [[ $(stat -c %a "$sock") == 600 ]]; then pass "the socket is created 0600"; else bad "socket mode $(stat -c %a "$sock")"; fi
expect 0 "ready" "status: ready after the self-test" "${c[@]}" status
expect 0 "mapped" "register --preload loads the key" "${c[@]}" register small "$tmp/k.zkey" --preload
expect 0 "OK on cpu:0" "prove: a proof through the daemon" \
  "${c[@]}" prove --circuit small --wtns "$tmp/w.wtns" --proof "$tmp/proof.json" --public "$tmp/public.json"
expect 0 "OK" "the daemon's proof verifies" "$cuzk" verify "$tmp/vk.json" "$tmp/public.json" "$tmp/proof.json"
expect 0 "OK on cpu:0" "prove --by-path: the daemon reads the witness file" \
  "${c[@]}" prove --circuit small --wtns "$tmp/w.wtns" --by-path --proof "$tmp/proof2.json" --priority critical
expect 0 "existing job" "prove: the same request id returns the same job" \
  bash -c "'$cuzk' client --daemon '$sock' prove --circuit small --wtns '$tmp/w.wtns' --request-id r1 --proof /dev/null &&
           '$cuzk' client --daemon '$sock' prove --circuit small --wtns '$tmp/w.wtns' --request-id r1 --proof /dev/null"
expect 0 "\[3/6\] OK" "bench --daemon prints a line per proof" \
  "$cuzk" bench --daemon "$sock" --circuit small --wtns "$tmp/w.wtns" --count 6 --concurrency 3
expect 0 "steady state" "bench --daemon reports the steady-state s/proof" \
  "$cuzk" bench --daemon "$sock" --circuit small --wtns "$tmp/w.wtns" --count 2 --concurrency 1 --priority high
expect 0 "witness by path" "bench --daemon --witness-path: the daemon maps the client's file" \
  "$cuzk" bench --daemon "$sock" --circuit small --wtns "$tmp/w.wtns" --count 2 --concurrency 2 --witness-path
expect 0 "COMPLETED" "jobs lists finished jobs" "${c[@]}" jobs --state completed --limit 5
expect 1 "NOT_FOUND" "prove: an unknown circuit is NOT_FOUND" "${c[@]}" prove --circuit nope --wtns "$tmp/w.wtns"
expect 1 "INVALID_ARGUMENT" "prove: a witness of another circuit is INVALID_ARGUMENT" \
  "${c[@]}" prove --circuit small --wtns "$tmp/w2.wtns"
expect 1 "INVALID_ARGUMENT" "prove: a bls12_381 witness for a bn254 key is INVALID_ARGUMENT" \
  "${c[@]}" prove --circuit small --wtns "$tmp/wb.wtns"
expect 1 "INVALID_ARGUMENT" "prove: garbage is INVALID_ARGUMENT" "${c[@]}" prove --circuit small --wtns "$tmp/vk.json"
expect 1 "INVALID_ARGUMENT" "register: a truncated zkey is INVALID_ARGUMENT" "${c[@]}" register t "$tmp/truncated.zkey"
expect 1 "INVALID_ARGUMENT" "register: a witness is not a zkey" "${c[@]}" register t "$tmp/w.wtns"
expect 1 "INVALID_ARGUMENT" "register: a circuit id is never a path" "${c[@]}" register ../x "$tmp/k.zkey"
expect 1 "NOT_FOUND" "cancel: an unknown job is NOT_FOUND" "${c[@]}" cancel job-0
expect 0 "OK on cpu:0" "the daemon keeps serving after bad requests" \
  "${c[@]}" prove --circuit small --wtns "$tmp/w.wtns" --proof /dev/null
expect 0 "key dropped" "evict drops the loaded key" "${c[@]}" evict small
expect 0 "key load" "prove after evict reloads the key" "${c[@]}" prove --circuit small --wtns "$tmp/w.wtns" --proof /dev/null
curl -sf "http://127.0.0.1:$port/metrics" >"$tmp/metrics.txt"
expect 0 "cuzk_total_seconds_count" "/metrics serves the stage histograms" cat "$tmp/metrics.txt"
if command -v promtool >/dev/null; then
  expect 0 "" "promtool check metrics accepts /metrics" bash -c "promtool check metrics < '$tmp/metrics.txt'"
fi
stop_daemon

# A sticky device fault: CUZK_FAULT=sticky:3 loses the CPU device's context at its third
# compute (the self-test proof is the first). That proof fails; the daemon drains, resets
# the device, prepares the key again, counts the reset, and every later proof succeeds.
export CUZK_FAULT=sticky:3
start_daemon
unset CUZK_FAULT
"${c[@]}" register small "$tmp/k.zkey" --preload >/dev/null 2>&1
expect 0 "OK on cpu:0" "sticky fault: the proof before it succeeds" "${c[@]}" prove --circuit small --wtns "$tmp/w.wtns" --proof /dev/null
expect 1 "sticky device fault" "sticky fault: the faulted proof fails with the reason" \
  "${c[@]}" prove --circuit small --wtns "$tmp/w.wtns" --proof /dev/null
for _ in $(seq 100); do
  "${c[@]}" status 2>/dev/null | grep -q "1 resets" && break
  sleep 0.1
done
expect 0 "\[6/6\] OK" "sticky fault: after the reset every proof succeeds" \
  "$cuzk" bench --daemon "$sock" --circuit small --wtns "$tmp/w.wtns" --count 6 --concurrency 3
expect 0 "1 resets" "sticky fault: status counts one reset" "${c[@]}" status
expect 0 "on cpu:0 mapped" "status: the key's tier on the device" "${c[@]}" status
stop_daemon

# A device that cannot be reset (the H200's case: no reset brings a trapped context back
# inside the process): the faulted proof fails, all three resets fail, the device is buried,
# and the daemon drains and exits 75 for its supervisor to restart it; a fresh process
# proves again.
export CUZK_FAULT=sticky:2,reset:1,reset:2,reset:3
start_daemon
unset CUZK_FAULT
"${c[@]}" register small "$tmp/k.zkey" --preload >/dev/null 2>&1
expect 1 "sticky device fault" "lost device: the faulted proof fails with the reason" \
  "${c[@]}" prove --circuit small --wtns "$tmp/w.wtns" --proof /dev/null
rc=0
if timeout 60 tail --pid=$pid -f /dev/null; then
  wait $pid || rc=$?
else
  kill -KILL $pid
  wait $pid || true
  rc="none: still running after 60 s"
fi
pid=
if [[ $rc == 75 ]]; then pass "lost device: the daemon drains and exits 75"; else bad "lost device: exit $rc, wanted 75"; fi
if grep -q "could not be reset after a sticky fault" "$tmp/daemon.log"; then
  pass "lost device: the log says why it exits"
else
  bad "lost device: no reason in the log: $(tail -3 "$tmp/daemon.log")"
fi
if [[ ! -e $sock ]]; then pass "lost device: the socket is removed"; else bad "lost device: the socket is left behind"; fi
start_daemon
"${c[@]}" register small "$tmp/k.zkey" --preload >/dev/null 2>&1
expect 0 "OK on cpu:0" "lost device: the restarted daemon proves" \
  "${c[@]}" prove --circuit small --wtns "$tmp/w.wtns" --proof /dev/null
stop_daemon

# A restart on the same socket, with the example config (paths overridden by flags).
start_daemon --config "$example"
expect 0 "ready" "restart with the example config: ready" "${c[@]}" status
expect 0 "OK on cpu:0" "restart: register and prove again" \
  bash -c "'$cuzk' client --daemon '$sock' register small '$tmp/k.zkey' >/dev/null &&
           '$cuzk' client --daemon '$sock' prove --circuit small --wtns '$tmp/w.wtns' --proof /dev/null"
stop_daemon

# TCP: TLS and a bearer token, or no TCP at all.
if command -v openssl >/dev/null; then
  openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost -addext subjectAltName=DNS:localhost \
    -keyout "$tmp/tls.key" -out "$tmp/tls.crt" >/dev/null 2>&1
  echo "s3cret-token" >"$tmp/token"
  echo "wrong-token" >"$tmp/wrong"
  tcp=$(free_port)
  cat >"$tmp/tcp.toml" <<TOML
[server]
tcp_address = "127.0.0.1:$tcp"
tls_cert_file = "$tmp/tls.crt"
tls_key_file = "$tmp/tls.key"
bearer_token_file = "$tmp/token"
TOML
  start_daemon --config "$tmp/tcp.toml"
  expect 0 "ready" "TCP with TLS and the bearer token: status" \
    "$cuzk" client --daemon "localhost:$tcp" --tls-ca "$tmp/tls.crt" --token-file "$tmp/token" status
  expect 1 "UNAUTHENTICATED" "TCP with a wrong bearer token: UNAUTHENTICATED" \
    "$cuzk" client --daemon "localhost:$tcp" --tls-ca "$tmp/tls.crt" --token-file "$tmp/wrong" status
  expect 1 "UNAUTHENTICATED" "TCP without a token: UNAUTHENTICATED" \
    "$cuzk" client --daemon "localhost:$tcp" --tls-ca "$tmp/tls.crt" status
  stop_daemon
  printf '[server]\ntcp_address = "127.0.0.1:%s"\n' "$tcp" >"$tmp/cleartext.toml"
  expect 1 "never served in the clear" "TCP without TLS is refused at start" \
    "$daemon" --config "$tmp/cleartext.toml" --socket "$sock" --metrics-address ""
fi

printf '[engine]\nno_such_knob = 1\n' >"$tmp/bad.toml"
expect 1 "no key \"no_such_knob\"" "an unknown config key is refused" "$daemon" --config "$tmp/bad.toml" --socket "$sock"
printf '[devices]\non_device_lost = "sometimes"\n' >"$tmp/bad.toml"
expect 1 "expected \"restart\" or \"continue\"" "a bad on_device_lost is refused" \
  "$daemon" --config "$tmp/bad.toml" --socket "$sock"
printf '[devices]\ncuda_precompute = "h,c"\n' >"$tmp/bad.toml"
expect 1 "cuda_precompute \"h,c\": \"c\" is not auto, off" "a bad cuda_precompute is refused" \
  "$daemon" --config "$tmp/bad.toml" --socket "$sock"

if ((failures > 0)); then
  echo "$failures checks failed"
  exit 1
fi
echo "all checks passed"
