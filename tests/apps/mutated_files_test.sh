#!/usr/bin/env bash
# cuzk prove and cuzk verify on a few hundred broken inputs: files truncated at random
# offsets, bytes flipped in headers and sections, sections reordered or relabelled, files
# of the other curve or another circuit, empty files, directories, missing paths.
# Every bad input must exit 1 with one line naming the file; nothing may crash (exit >= 128
# or a sanitizer report) or succeed on bad input. A mutation can leave a key usable (a
# flipped byte the reader does not interpret, sections in another order): then prove may
# exit 0, but only with a proof that verifies under the untouched verification key.
# usage: mutated_files_test.sh CUZK [SEED]   (default seed 10, or $CUZK_MUTATION_SEED)
set -euo pipefail
cuzk=${1:?cuzk binary}
seed=${2:-${CUZK_MUTATION_SEED:-10}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "seed $seed (rerun: $0 $cuzk $seed)"
RANDOM=$seed
failures=0
cases=0
accepted=0  # lenient cases where the changed key still proved (and the proof verified)
declare -A per_kind=()

rand() { echo $((((RANDOM << 15) | RANDOM) % $1)); }
size_of() { stat -c %s "$1"; }
byte_at() { od -An -tu1 -j"$2" -N1 "$1" | tr -d ' '; }
u32_at() { od -An -tu4 -j"$2" -N4 "$1" | tr -d ' '; }
u64_at() { od -An -tu8 -j"$2" -N8 "$1" | tr -d ' '; }
put_byte() { printf "\\$(printf '%03o' "$3")" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
flip() {  # flip FILE OFFSET: xor the byte with a random nonzero value
  local v
  v=$(byte_at "$1" "$2")
  put_byte "$1" "$2" $((v ^ (1 + $(rand 255))))
}
fail() {
  printf 'FAIL  [%s] %s%s\n' "$1" "$2" "${where:+ ($where)}"
  failures=$((failures + 1))
}

# Section table of a binfile: "id offset size" per line (offset of the section header).
sections() {
  local f=$1 n pos=12 i
  n=$(u32_at "$f" 8)
  for ((i = 0; i < n; ++i)); do
    echo "$(u32_at "$f" $pos) $pos $(u64_at "$f" $((pos + 4)))"
    pos=$((pos + 12 + $(u64_at "$f" $((pos + 4)))))
  done
}

# check KIND STRICT NAME CMD...: runs a cuzk command on a broken input. The output must be
# one line naming NAME (a file's base name) with exit 1; with STRICT=lenient, exit 0 is
# also allowed for prove when its proof verifies under the original key.
check() {
  local kind=$1 strict=$2 name=$3
  shift 3
  cases=$((cases + 1))
  per_kind[$kind]=$((${per_kind[$kind]:-0} + 1))
  local rc=0
  rm -f "$tmp/p.json" "$tmp/q.json"
  "$@" >"$tmp/out.txt" 2>&1 || rc=$?
  if grep -qE 'Sanitizer|runtime error|terminate called|Assertion' "$tmp/out.txt"; then
    fail "$kind" "crashed: $(grep -m1 -E 'Sanitizer|runtime error|terminate called|Assertion' "$tmp/out.txt")"
  elif ((rc == 1)); then
    local lines
    lines=$(grep -c . "$tmp/out.txt" || true)
    if ((lines != 1)); then
      fail "$kind" "exit 1 with $lines lines of output: $(head -3 "$tmp/out.txt" | tr '\n' '|')"
    elif ! grep -qF -- "$name" "$tmp/out.txt"; then
      fail "$kind" "message does not name $name: $(cat "$tmp/out.txt")"
    elif [[ -e $tmp/p.json || -e $tmp/q.json ]]; then
      fail "$kind" "exit 1 but a proof was written"
    fi
  elif ((rc == 0)) && [[ $strict == lenient ]]; then
    local vrc=0
    "$cuzk" verify "$tmp/bn/vk.json" "$tmp/q.json" "$tmp/p.json" >"$tmp/vout.txt" 2>&1 || vrc=$?
    ((vrc == 0)) || fail "$kind" "prove exited 0 on a changed input but its proof does not verify: $(cat "$tmp/vout.txt")"
    accepted=$((accepted + 1))
  else
    fail "$kind" "exit $rc, wanted 1: $(tail -2 "$tmp/out.txt" | tr '\n' '|')"
  fi
}

# The inputs: a bn254 demo key and its files, a second circuit, and the other curve.
for set in "bn bn254 20" "bn2 bn254 30" "bls bls12_381 20"; do
  read -r d curve n <<<"$set"
  mkdir -p "$tmp/$d"
  "$cuzk" setup --dev --demo "$n" --curve "$curve" --zkey "$tmp/$d/k.zkey" --vk "$tmp/$d/vk.json" \
    --wtns "$tmp/$d/w.wtns" >"$tmp/out.txt" 2>&1 || { cat "$tmp/out.txt"; echo "setup failed"; exit 1; }
  "$cuzk" prove "$tmp/$d/k.zkey" "$tmp/$d/w.wtns" "$tmp/$d/proof.json" "$tmp/$d/public.json" >"$tmp/out.txt" 2>&1 ||
    { cat "$tmp/out.txt"; echo "prove failed"; exit 1; }
done
bn=$tmp/bn
"$cuzk" verify "$bn/vk.json" "$bn/public.json" "$bn/proof.json" >/dev/null
start=$SECONDS
m=$tmp/m
mkdir -p "$m"
prove() { "$cuzk" prove "$1" "$2" "$tmp/p.json" "$tmp/q.json"; }
verify() { "$cuzk" verify "$1" "$2" "$3"; }

# Truncated keys and witnesses (every prefix is invalid).
for ((i = 0; i < 40; ++i)); do
  head -c "$(rand "$(size_of "$bn/k.zkey")")" "$bn/k.zkey" >"$m/cut.zkey"
  check truncated-zkey strict cut.zkey prove "$m/cut.zkey" "$bn/w.wtns"
done
for ((i = 0; i < 20; ++i)); do
  head -c "$(rand "$(size_of "$bn/w.wtns")")" "$bn/w.wtns" >"$m/cut.wtns"
  check truncated-wtns strict cut.wtns prove "$bn/k.zkey" "$m/cut.wtns"
done

# Flipped bytes: in the file and section headers and sections 1-2, then anywhere.
mapfile -t zsecs < <(sections "$bn/k.zkey")
header_offsets=($(seq 0 11))
for s in "${zsecs[@]}"; do
  read -r id off size <<<"$s"
  header_offsets+=($(seq "$off" $((off + 11))))
  if ((id <= 2)); then header_offsets+=($(seq $((off + 12)) $((off + 11 + size)))); fi
done
for ((i = 0; i < 40; ++i)); do
  cp "$bn/k.zkey" "$m/flip.zkey"
  flip "$m/flip.zkey" "${header_offsets[$(rand ${#header_offsets[@]})]}"
  check flipped-zkey-header lenient flip.zkey prove "$m/flip.zkey" "$bn/w.wtns"
done
for ((i = 0; i < 40; ++i)); do
  cp "$bn/k.zkey" "$m/flip.zkey"
  flip "$m/flip.zkey" "$(rand "$(size_of "$bn/k.zkey")")"
  check flipped-zkey-anywhere lenient flip.zkey prove "$m/flip.zkey" "$bn/w.wtns"
done
for ((i = 0; i < 20; ++i)); do
  cp "$bn/w.wtns" "$m/flip.wtns"
  flip "$m/flip.wtns" "$(rand "$(size_of "$bn/w.wtns")")"
  check flipped-wtns lenient flip.wtns prove "$bn/k.zkey" "$m/flip.wtns"
done

# Sections in another order (valid: the key must still prove), then sections relabelled
# (ids exchanged between two section headers).
section_bytes() { dd if="$1" iflag=skip_bytes,count_bytes skip="$2" count=$((12 + $3)) status=none; }
for ((i = 0; i < 10; ++i)); do
  a=$(rand ${#zsecs[@]})
  b=$(((a + 1 + $(rand $((${#zsecs[@]} - 1)))) % ${#zsecs[@]}))
  head -c 12 "$bn/k.zkey" >"$m/order.zkey"
  for ((k = 0; k < ${#zsecs[@]}; ++k)); do
    j=$k
    ((k == a)) && j=$b
    ((k == b)) && j=$a
    read -r id off size <<<"${zsecs[$j]}"
    section_bytes "$bn/k.zkey" "$off" "$size" >>"$m/order.zkey"
  done
  cases=$((cases + 1))
  per_kind[reordered-sections]=$((${per_kind[reordered-sections]:-0} + 1))
  rc=0
  prove "$m/order.zkey" "$bn/w.wtns" >"$tmp/out.txt" 2>&1 || rc=$?
  if ((rc != 0)); then
    fail reordered-sections "a key with sections $a and $b exchanged does not prove: $(cat "$tmp/out.txt")"
  elif ! "$cuzk" verify "$bn/vk.json" "$tmp/q.json" "$tmp/p.json" >/dev/null 2>&1; then
    fail reordered-sections "the proof of a reordered key does not verify"
  fi
done
for ((i = 0; i < 15; ++i)); do
  a=$(rand ${#zsecs[@]})
  b=$(((a + 1 + $(rand $((${#zsecs[@]} - 1)))) % ${#zsecs[@]}))
  read -r ida offa _ <<<"${zsecs[$a]}"
  read -r idb offb _ <<<"${zsecs[$b]}"
  cp "$bn/k.zkey" "$m/ids.zkey"
  put_byte "$m/ids.zkey" "$offa" "$idb"
  put_byte "$m/ids.zkey" "$offb" "$ida"
  check relabelled-sections strict ids.zkey prove "$m/ids.zkey" "$bn/w.wtns"
done

# Coefficients changed but still well formed (each value stays below r): the reader cannot
# tell, so prove's own check against the key must refuse the proof; --no-verify shows the
# proof it would have written is bad.
for s in "${zsecs[@]}"; do
  read -r id off size <<<"$s"
  ((id == 4)) && coef_off=$((off + 12)) && n_coef=$(u32_at "$bn/k.zkey" $((off + 12)))
done
entry=$((12 + 32))
cp "$bn/k.zkey" "$m/coefs.zkey"
for ((e = 0; e < n_coef; ++e)); do
  o=$((coef_off + 4 + e * entry + 12))
  put_byte "$m/coefs.zkey" "$o" $(($(byte_at "$m/coefs.zkey" "$o") ^ 1))
done
check corrupted-coefficients strict coefs.zkey prove "$m/coefs.zkey" "$bn/w.wtns"
grep -q "does not verify against the key's own verification key" "$tmp/out.txt" ||
  fail corrupted-coefficients "prove's refusal does not say the proof failed its check: $(cat "$tmp/out.txt")"
if "$cuzk" prove --no-verify "$m/coefs.zkey" "$bn/w.wtns" "$tmp/p.json" "$tmp/q.json" >/dev/null 2>&1 &&
  "$cuzk" verify "$bn/vk.json" "$tmp/q.json" "$tmp/p.json" >/dev/null 2>&1; then
  fail corrupted-coefficients "the corrupted key's unchecked proof verifies: the case tests nothing"
fi
for ((i = 0; i < 10; ++i)); do
  cp "$bn/k.zkey" "$m/coef.zkey"
  o=$((coef_off + 4 + $(rand "$n_coef") * entry + 12 + $(rand 31)))
  put_byte "$m/coef.zkey" "$o" $(($(byte_at "$m/coef.zkey" "$o") ^ 1))
  check corrupted-coefficient lenient coef.zkey prove "$m/coef.zkey" "$bn/w.wtns"
done

# Files of the other curve or another circuit, files of another type, empty files,
# directories and missing paths.
: >"$m/empty.zkey"
: >"$m/empty.wtns"
: >"$m/empty.json"
mkdir -p "$m/dir.zkey" "$m/dir.wtns" "$m/dir.json"
check other-curve strict w.wtns prove "$tmp/bls/k.zkey" "$bn/w.wtns"
check other-curve strict w.wtns prove "$bn/k.zkey" "$tmp/bls/w.wtns"
check other-circuit strict w.wtns prove "$tmp/bn2/k.zkey" "$bn/w.wtns"
check other-circuit strict w.wtns prove "$bn/k.zkey" "$tmp/bn2/w.wtns"
check other-type strict w.wtns prove "$bn/w.wtns" "$bn/w.wtns"
check other-type strict k.zkey prove "$bn/k.zkey" "$bn/k.zkey"
check other-type strict vk.json prove "$bn/vk.json" "$bn/w.wtns"
check empty strict empty.zkey prove "$m/empty.zkey" "$bn/w.wtns"
check empty strict empty.wtns prove "$bn/k.zkey" "$m/empty.wtns"
check directory strict dir.zkey prove "$m/dir.zkey" "$bn/w.wtns"
check directory strict dir.wtns prove "$bn/k.zkey" "$m/dir.wtns"
check missing strict nothing.zkey prove "$m/nothing.zkey" "$bn/w.wtns"
check missing strict nothing.wtns prove "$bn/k.zkey" "$m/nothing.wtns"
check unwritable strict dir.json "$cuzk" prove "$bn/k.zkey" "$bn/w.wtns" "$m/dir.json" "$tmp/q.json"

# verify: truncated and flipped JSON (every byte but whitespace), other curve and circuit,
# swapped arguments, empty files, directories, missing paths.
nonspace_offsets() { od -An -v -tu1 -w1 "$1" | awk '$1 != 32 && $1 != 10 && $1 != 9 && $1 != 13 {print NR - 1}'; }
for f in vk public proof; do
  mapfile -t offs < <(nonspace_offsets "$bn/$f.json")
  last=${offs[-1]}
  for ((i = 0; i < 20; ++i)); do
    head -c "$(rand $((last + 1)))" "$bn/$f.json" >"$m/$f.json"
    args=("$bn/vk.json" "$bn/public.json" "$bn/proof.json")
    case $f in vk) args[0]=$m/$f.json ;; public) args[1]=$m/$f.json ;; proof) args[2]=$m/$f.json ;; esac
    check truncated-json strict "$f.json" verify "${args[@]}"
  done
  for ((i = 0; i < 20; ++i)); do
    cp "$bn/$f.json" "$m/$f.json"
    off=${offs[$(rand ${#offs[@]})]}
    v=$(byte_at "$m/$f.json" "$off")
    for ((;;)); do
      w=$((v ^ (1 + $(rand 255))))
      ((w != 32 && w != 10 && w != 9 && w != 13)) && break
    done
    put_byte "$m/$f.json" "$off" "$w"
    where="$f.json byte $off: $(head -c $((off + 1)) "$bn/$f.json" | tail -c 40 | tr '\n' ' ') -> $(printf "\\$(printf '%03o' "$w")")"
    args=("$bn/vk.json" "$bn/public.json" "$bn/proof.json")
    case $f in vk) args[0]=$m/$f.json ;; public) args[1]=$m/$f.json ;; proof) args[2]=$m/$f.json ;; esac
    check flipped-json strict "$f.json" verify "${args[@]}"
    where=
  done
done
# vk_alphabeta_12 is stored, not needed to verify: a changed digit must still be refused.
ab=$(grep -bo '"vk_alphabeta_12"' "$bn/vk.json" | cut -d: -f1)
ab=$(($(tail -c +$((ab + 1)) "$bn/vk.json" | grep -bo '[0-9]"' | head -1 | cut -d: -f1) + ab))
cp "$bn/vk.json" "$m/vk.json"
put_byte "$m/vk.json" "$ab" $((48 + ($(byte_at "$bn/vk.json" "$ab") - 48 + 1) % 10))
check altered-alphabeta strict vk.json verify "$m/vk.json" "$bn/public.json" "$bn/proof.json"
check other-curve strict proof.json verify "$bn/vk.json" "$tmp/bls/public.json" "$tmp/bls/proof.json"
check other-curve strict proof.json verify "$tmp/bls/vk.json" "$bn/public.json" "$bn/proof.json"
check other-circuit strict vk.json verify "$tmp/bn2/vk.json" "$bn/public.json" "$bn/proof.json"
check other-circuit strict proof.json verify "$bn/vk.json" "$tmp/bn2/public.json" "$tmp/bn2/proof.json"
check swapped-arguments strict proof.json verify "$bn/proof.json" "$bn/public.json" "$bn/vk.json"
check swapped-arguments strict public.json verify "$bn/vk.json" "$bn/proof.json" "$bn/public.json"
check other-type strict k.zkey verify "$bn/k.zkey" "$bn/public.json" "$bn/proof.json"
for pos in 0 1 2; do
  for bad in empty dir nothing; do
    args=("$bn/vk.json" "$bn/public.json" "$bn/proof.json")
    args[$pos]=$m/$bad.json
    check "$bad" strict "$bad.json" verify "${args[@]}"
  done
done

for k in "${!per_kind[@]}"; do printf '  %-22s %4d cases\n' "$k" "${per_kind[$k]}"; done | sort
echo "$cases cases in $((SECONDS - start)) s (seed $seed); $accepted changed inputs still proved, each proof verified"
if ((failures > 0)); then
  echo "$failures of $cases cases failed"
  exit 1
fi
echo "all $cases mutated-file cases passed"
