#!/usr/bin/env bash
# Installs what building and testing cuzk needs on a Debian machine (run as root): the
# toolchains (GCC; clang with its sanitizer and libFuzzer runtimes) and libraries from
# Debian, the test oracles (snarkjs, circom2, @noble/curves, blst's node binding) from npm.
# Safe to run again: it installs only what is missing.
# --no-npm skips the npm part (`make demo` needs no test oracles).
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(build-essential clang libclang-rt-dev cmake ninja-build pkg-config libgmp-dev libgtest-dev libbenchmark-dev
      nlohmann-json3-dev libcli11-dev
      libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libspdlog-dev libfmt-dev
      libtomlplusplus-dev libcpp-httplib-dev prometheus)
command -v node >/dev/null 2>&1 || pkgs+=(nodejs)
command -v npm >/dev/null 2>&1 || pkgs+=(npm)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

[[ ${1:-} == --no-npm ]] && exit 0
stamp=tests/interop/node_modules/.cuzk-installed
if [[ ! -f $stamp || tests/interop/package-lock.json -nt $stamp ]]; then
  echo "install-deps: npm ci (tests/interop)"
  (cd tests/interop && npm ci --no-audit --no-fund --loglevel=error)
  touch "$stamp"
fi
