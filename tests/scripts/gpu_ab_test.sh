#!/usr/bin/env bash
# scripts/gpu-ab.sh on two stand-in packs (no GPU): runs alternate A B A B, each run's table rows
# land under its label with the pack's COMMIT line, a failing run fails the whole (the rest still
# run), and bad use (a program missing from a pack, a bad --rounds) exits 2.
# shellcheck source=tests/scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
AB=$ROOT/scripts/gpu-ab.sh

# A pack: a folder with COMMIT and a program `bench` that logs its call and prints a table row.
mkpack() {  # mkpack NAME COMMIT EXIT
  mkdir -p "$work/$1/pack"
  echo "$2" >"$work/$1/pack/COMMIT"
  printf '#!/bin/sh\necho %s >>%s/order\necho "| pass | %s $1 |"\nexit %s\n' "$1" "$work" "$1" "$3" >"$work/$1/pack/bench"
  chmod +x "$work/$1/pack/bench"
}
mkpack a "abc123" 0
mkpack b "abc123 with -DX=1" 0
mkpack c "bad" 3
tar -C "$work/b" -czf "$work/b.tgz" pack  # one pack packed, as gpu-check --build-only leaves it

CUZK_AB_OUT=$work/out "$AB" --rounds 3 "$work/a/pack" "$work/b.tgz" -- bench 24 >/dev/null 2>&1
rc=$?
((rc == 0)) || fail "A/B of passing packs: exit $rc, want 0"
[[ $(tr '\n' ' ' <"$work/order") == "a b a b a b " ]] || fail "runs not alternated: $(tr '\n' ' ' <"$work/order")"
grep -q '^B: .*(abc123 with -DX=1)$' "$work/out/summary.md" || fail "B's COMMIT line missing"
[[ $(grep -c '^| pass | b 24 |$' "$work/out/summary.md") == 3 ]] || fail "B's rows (with the arguments) not all there"
[[ -s $work/out/ab-A-3.log && -s $work/out/ab-B-3.log ]] || fail "logs of round 3 missing"

rm -f "$work/order"
CUZK_AB_OUT=$work/out2 "$AB" "$work/c/pack" "$work/a/pack" -- bench >/dev/null 2>&1
rc=$?
((rc == 1)) || fail "a failing pack: exit $rc, want 1"
[[ $(tr '\n' ' ' <"$work/order") == "c a c a " ]] || fail "a failure stopped the other runs"
grep -q '^## A, round 1: FAIL (exit 3)' "$work/out2/summary.md" || fail "the failure is not in the summary"

"$AB" "$work/a/pack" "$work/b.tgz" -- nothere >/dev/null 2>&1
(($? == 2)) || fail "a program missing from the packs: not exit 2"
"$AB" --rounds 0 "$work/a/pack" "$work/b.tgz" -- bench >/dev/null 2>&1
(($? == 2)) || fail "--rounds 0: not exit 2"

finish gpu_ab_test
