#!/usr/bin/env bash
# Instruction counts of the sm_90 machine code (SASS) of one CUDA file, kernel by kernel, with
# ptxas's registers and spills: what a kernel change does to the code, read without a GPU.
# With two source trees it compiles the file in each and prints them side by side.
#
#   scripts/sass-stats.sh [--tree DIR [--tree DIR2]] [--kernels REGEX] [-D...] FILE.cu
#
#   --tree DIR      the source tree to compile in (default: this checkout); FILE is relative
#                   to it, and its src/ and tests/ come first on the include path. Twice: an
#                   A/B of two trees (e.g. `git worktree add /tmp/base HEAD~1`), with the ratio.
#   --kernels RE    only kernels whose demangled name matches RE (grep -E)
#   -DNAME[=VALUE]  passed to nvcc (both trees)
#
# Columns: registers and spill bytes (stores + loads) from `ptxas -v` (the kernel's own, then
# "+N" for the out-of-line functions it calls, compiled for it); SASS instructions in all,
# then by kind: IMAD (every IMAD form: .WIDE, .HI, .X), IADD3, LOP3 + SHF (logic and shifts),
# memory (LDG/STG/LDS/STS/LDL/STL and the like). Counts are static (each instruction once, loops
# not unrolled further), so they compare two builds of one kernel; they are not timings.
#
# The disassembler: CUDA 13 ships none here, so nvdisasm 11.8 comes from Debian's non-free
# nvidia-cuda-toolkit package (downloaded once, not installed: unpacked into
# $CUZK_SASS_TOOLS, default ~/.cache/cuzk/sass-tools). It reads sm_90 code, but not CUDA 13's
# ELF header (ABI version 8), so each cubin's header is rewritten to the version-7 form for
# sm_90 first (OS/ABI byte, ABI version byte, e_flags); the code itself is untouched.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS=${CUZK_SASS_TOOLS:-$HOME/.cache/cuzk/sass-tools}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
trees=()
kernels=.
defines=()
file=""

usage() {
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
while (($#)); do
  case $1 in
    --tree) trees+=("$(cd "${2:?--tree needs a directory}" && pwd)"); shift 2 ;;
    --kernels) kernels=${2:?--kernels needs a pattern}; shift 2 ;;
    -D*) defines+=("$1"); shift ;;
    -h | --help) usage ;;
    -*) echo "sass-stats: unknown option $1" >&2; usage ;;
    *) [[ -z $file ]] || usage; file=$1; shift ;;
  esac
done
[[ -n $file ]] || usage
((${#trees[@]})) || trees=("$ROOT")
((${#trees[@]} <= 2)) || { echo "sass-stats: at most two trees" >&2; exit 2; }
[[ -x $NVCC ]] || { echo "sass-stats: nvcc not found (set NVCC)" >&2; exit 1; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# nvdisasm, fetched once.
NVDISASM=$TOOLS/usr/bin/nvdisasm
if [[ ! -x $NVDISASM ]]; then
  echo "sass-stats: fetching nvdisasm (Debian non-free nvidia-cuda-toolkit) into $TOOLS" >&2
  work=$out/fetch
  mkdir -p "$work"
  sed 's/^Components: .*/Components: main contrib non-free/' /etc/apt/sources.list.d/debian.sources >"$work/debian.sources"
  mkdir -p "$work/lists/partial"
  apt=(-o Dir::Etc::sourcelist="$work/debian.sources" -o Dir::Etc::sourceparts=/dev/null -o Dir::State::Lists="$work/lists")
  apt-get "${apt[@]}" update >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; exit 1; }
  (cd "$work" && apt-get "${apt[@]}" download nvidia-cuda-toolkit >>"$work/apt.log" 2>&1) ||
    { cat "$work/apt.log" >&2; exit 1; }
  mkdir -p "$TOOLS"
  dpkg -x "$work"/nvidia-cuda-toolkit_*.deb "$work/x"
  mkdir -p "$TOOLS/usr/bin"
  cp "$work/x/usr/bin/nvdisasm" "$NVDISASM"
fi

# compile TREE OUT: OUT.cubin, OUT.ptxas (ptxas -v), OUT.sass
compile() {
  local tree=$1 out=$2 src=$file
  [[ $src = /* ]] || src=$tree/$file
  [[ -f $src ]] || { echo "sass-stats: no file $src" >&2; exit 1; }
  "$NVCC" -std=c++20 --expt-relaxed-constexpr -Xcudafe=--diag_suppress=unrecognized_pragma -O3 -DNDEBUG \
    -arch=sm_90 -cubin -Xptxas -v "${defines[@]}" -I"$tree/src" -I"$tree/tests" -I"$tree" -o "$out.cubin" "$src" \
    2>"$out.ptxas" || { grep -v "^ptxas info" "$out.ptxas" >&2; exit 1; }
  # The ELF header in the form nvdisasm 11.8 reads: OS/ABI 0x33, ABI version 7, e_flags for sm_90.
  printf '\x33\x07' | dd of="$out.cubin" bs=1 seek=7 conv=notrunc status=none
  printf '\x5a\x05\x5a\x00' | dd of="$out.cubin" bs=1 seek=48 conv=notrunc status=none
  "$NVDISASM" -c "$out.cubin" >"$out.sass"
}

# stats OUT: a line a kernel, tab-separated: short demangled name, registers, spill bytes,
# instructions, IMAD, IADD3, LOP3+SHF, memory. Names are joined demangled: an anonymous
# namespace's mangled name carries a hash of its file's path, which differs between trees.
stats() {
  awk '
    FNR == 1 { file++ }
    file == 1 && /Compiling entry function/ { match($0, /\x27[^\x27]+\x27/); k = substr($0, RSTART + 1, RLENGTH - 2) }
    file == 1 && /Function properties for/ { fn = $NF }
    file == 1 && /spill stores/ {
      b = $5 + $9
      if (fn == k) spill[k] = b  # the kernel itself
      else if (b > 0) callee[k] += b  # a function it calls (out of line), compiled for it
    }
    file == 1 && /Used [0-9]+ registers/ { for (i = 1; i <= NF; i++) if ($i == "Used") regs[k] = $(i + 1) }
    file == 2 && /^\.text\./ { cur = substr($1, 7); sub(/:$/, "", cur); order[++n] = cur; next }
    file == 2 && cur != "" && /^ +\/\*[0-9a-f]+\*\/ / {
      op = $2; if (op ~ /^@/) op = $3
      sub(/\..*/, "", op); sub(/;$/, "", op)
      total[cur]++
      if (op == "IMAD") imad[cur]++
      else if (op == "IADD3") iadd[cur]++
      else if (op == "LOP3" || op == "SHF") logic[cur]++
      else if (op ~ /^(LD|ST|ATOM|RED)/) mem[cur]++
    }
    END {
      for (i = 1; i <= n; i++) {
        k = order[i]
        sp = (k in spill ? spill[k] : "?") (callee[k] > 0 ? "+" callee[k] : "")
        printf "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\n", k, (k in regs ? regs[k] : "?"), sp,
          total[k], imad[k], iadd[k], logic[k], mem[k]
      }
    }' "$1.ptxas" "$1.sass" |
    c++filt | sed -E 's/cuzk::|ff::|cuda::|Params//g; s/\(anonymous namespace\)::|_GLOBAL__N__[0-9a-f_]+:://g' |
    awk -F '\t' -v re="$kernels" '$1 ~ re'
}

for i in "${!trees[@]}"; do compile "${trees[$i]}" "$out/t$i"; done

echo "file: $file; nvcc $("$NVCC" --version | sed -nE 's/.*release ([0-9.]+).*/\1/p'), sm_90, -O3"
for i in "${!trees[@]}"; do echo "tree $((i + 1)): ${trees[$i]} ($(git -C "${trees[$i]}" rev-parse --short HEAD 2>/dev/null || echo 'no git')$(git -C "${trees[$i]}" diff --quiet HEAD 2>/dev/null || echo ' + changes'))"; done
echo
if ((${#trees[@]} == 1)); then
  echo "| kernel | regs | spill B | instructions | IMAD | IADD3 | LOP3+SHF | memory |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  stats "$out/t0" | awk -F '\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8 }'
else
  echo "| kernel | regs 1 / 2 | spill B 1 / 2 | instructions 1 / 2 | ratio | IMAD 1 / 2 | IADD3 1 / 2 |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  stats "$out/t1" >"$out/b"
  stats "$out/t0" | awk -F '\t' '
    FNR == NR { b[$1] = $0; next }
    !($1 in b) { printf "| %s | %s / - | %s / - | %s / - | | %s / - | %s / - |\n", $1, $2, $3, $4, $5, $6; next }
    { split(b[$1], o, "\t")
      printf "| %s | %s / %s | %s / %s | %s / %s | %.3f | %s / %s | %s / %s |\n", $1, $2, o[2], $3, o[3], $4, o[4],
        o[4] / $4, $5, o[5], $6, o[6] }' "$out/b" -
fi
