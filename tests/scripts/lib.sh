# shellcheck shell=bash disable=SC2034
# Shared by the script tests (sourced): ROOT (the checkout), work (a scratch folder removed
# on exit), fail MESSAGE (counts a failure and goes on), finish NAME (the verdict and status).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0

fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}

finish() {
  if ((fails)); then
    echo "$1: $fails failure(s)"
    exit 1
  fi
  echo "$1: ok"
}
