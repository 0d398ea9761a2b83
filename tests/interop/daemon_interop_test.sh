#!/usr/bin/env bash
# cuzk-daemon against a client we did not write (daemon_client.mjs: @grpc/grpc-js reading
# the .proto), every proof verified by snarkjs; then `snarkjs groth16 verify` on a proof
# fetched by our own client.
# usage: daemon_interop_test.sh CUZK CUZK_DAEMON NODE_MODULES PROTO_DIR
set -euo pipefail
cuzk=${1:?cuzk binary}
daemon=${2:?cuzk-daemon binary}
modules=${3:?node_modules}
proto=${4:?proto dir}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
pid=
trap '[[ -n $pid ]] && kill -KILL $pid 2>/dev/null; rm -rf "$tmp"' EXIT
sock=$tmp/cuzk.sock

"$cuzk" setup --dev --demo 1019 --zkey "$tmp/k.zkey" --vk "$tmp/vk.json" --wtns "$tmp/w.wtns" >/dev/null 2>&1
"$cuzk" setup --dev --demo 4091 --zkey "$tmp/kbig.zkey" --vk "$tmp/vkbig.json" --wtns "$tmp/wbig.wtns" >/dev/null 2>&1
"$cuzk" setup --dev --demo 500 --zkey "$tmp/k2.zkey" --vk "$tmp/vk2.json" --wtns "$tmp/w2.wtns" >/dev/null 2>&1
"$cuzk" setup --dev --demo 200 --curve bls12_381 --zkey "$tmp/kb.zkey" --vk "$tmp/vkb.json" --wtns "$tmp/wb.wtns" >/dev/null 2>&1
"$daemon" --socket "$sock" --metrics-address "" >"$tmp/daemon.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
  "$cuzk" client --daemon "$sock" status 2>/dev/null | grep -q ": ready" && break
  sleep 0.1
done

rc=0
NODE_PATH=$modules node "$here/daemon_client.mjs" "$sock" "$proto" "$tmp/k.zkey" "$tmp/w.wtns" "$tmp/vk.json" \
  "$tmp/w2.wtns" "$tmp/wb.wtns" "$tmp/kbig.zkey" "$tmp/wbig.wtns" "$tmp/vkbig.json" || rc=1
"$cuzk" client --daemon "$sock" prove --circuit node --wtns "$tmp/w.wtns" --proof "$tmp/proof.json" \
  --public "$tmp/public.json" >/dev/null
if node "$modules/snarkjs/build/cli.cjs" groth16 verify "$tmp/vk.json" "$tmp/public.json" "$tmp/proof.json" >/dev/null; then
  echo "ok    snarkjs groth16 verify accepts the proof from cuzk client prove"
else
  echo "FAIL  snarkjs groth16 verify rejects the proof from cuzk client prove"
  rc=1
fi
kill -TERM $pid
wait $pid || { echo "FAIL  the daemon did not exit 0 on SIGTERM"; rc=1; }
pid=
if ((rc != 0)); then tail -20 "$tmp/daemon.log"; fi
exit $rc
