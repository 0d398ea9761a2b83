#!/usr/bin/env python3
"""Writes ff/fp_x86.hpp: Montgomery multiplication and squaring for 4 and 6 limbs in
x86-64 inline assembly (mulx/adcx/adox). Edit this script, not its output:

    python3 src/ff/gen_fp_x86.py > src/ff/fp_x86.hpp

Register plan. Every temporary is a GCC-allocated operand, so the compiler keeps
control of the register file; rdx is the only fixed register (mulx reads it). Inputs are
per-limb "rm" operands and results come back in registers, so a chain of operations
can stay in registers instead of round-tripping through memory. The modulus limbs are
memory operands (their loads use the address units, not the ALUs the carry chains
compete for); -p^-1 mod 2^64 is an immediate.

All blocks rely on the modulus leaving a spare top bit (checked in fp.hpp): then no
intermediate value needs an extra carry limb, and the result before the final
conditional subtraction is below 2p.
"""


class Block:
    def __init__(self):
        self.lines = []

    def __call__(self, s):
        self.lines.append(s)


def reg(name):
    return "%%rdx" if name == "rdx" else f"%[{name}]"


# Limb j of an operand: a per-limb "rm"/"m" operand, or an offset from a pointer
# register for the operands named in POINTERS (the modulus in the 6-limb squaring, which
# runs out of asm operands; a and b in clang's 6-limb product).
POINTERS = set()


def mem(ptr, j):
    if ptr in POINTERS:
        return f"{8 * j}(%[{ptr}])"
    return f"%[{ptr}{j}]"


def redc_row(emit, acc, n):
    """One Montgomery reduction step on acc[0..n] (acc[n] may hold a carry word).

    Afterwards acc[0] is zero; the caller rotates it to the top, where the next row
    needs a zero word."""
    emit("movabsq %[inv], %%rdx")
    emit(f"imulq {reg(acc[0])}, %%rdx")
    emit("xorl %k[lo], %k[lo]")  # clears CF and OF; lo is overwritten by mulx
    for j in range(n):
        emit(f"mulxq {mem('p', j)}, %[lo], %[hi]")
        emit(f"adcxq %[lo], {reg(acc[j])}")
        emit(f"adoxq %[hi], {reg(acc[j + 1])}")
    # acc[0] + lo(m*p0) == 0 mod 2^64 by the choice of m, so acc[0] is now a zero word.
    emit(f"adcxq {reg(acc[0])}, {reg(acc[n])}")
    return acc[1:] + acc[:1]


def final_subtract(emit, res, copies, n):
    """res < 2p -> res mod p, in place. A copy given as None lives in scratch memory."""
    for j in range(n):
        emit(f"movq {reg(res[j])}, {copies[j] if copies[j].startswith('%') else reg(copies[j])}")
    if any(c.startswith("%") for c in copies):
        # Subtract in place and restore from the copies on a borrow (res < p).
        for j in range(n):
            emit(f"{'subq' if j == 0 else 'sbbq'} {mem('p', j)}, {reg(res[j])}")
        for j in range(n):
            emit(f"cmovcq {copies[j] if copies[j].startswith('%') else reg(copies[j])}, {reg(res[j])}")
        return
    for j in range(n):
        emit(f"{'subq' if j == 0 else 'sbbq'} {mem('p', j)}, {reg(copies[j])}")
    # No borrow: res >= p, keep res - p.
    for j in range(n):
        emit(f"cmovncq {reg(copies[j])}, {reg(res[j])}")


def gen_mul(n):
    """CIOS: a row of a*b[i] then a reduction step, both with two carry chains."""
    b = Block()
    acc = [f"t{i}" for i in range(n + 1)]
    # Row 0: the accumulator is empty, so one carry chain suffices.
    b(f"movq {mem('b', 0)}, %%rdx")
    b(f"mulxq {mem('a', 0)}, {reg(acc[0])}, {reg(acc[1])}")
    for j in range(1, n):
        b(f"mulxq {mem('a', j)}, %[lo], {reg(acc[j + 1])}")
        b(f"{'addq' if j == 1 else 'adcq'} %[lo], {reg(acc[j])}")
    b(f"adcq $0, {reg(acc[n])}")
    acc = redc_row(b, acc, n)
    for i in range(1, n):
        b(f"movq {mem('b', i)}, %%rdx")
        b(f"xorl %k[{acc[n]}], %k[{acc[n]}]")  # already zero; clears CF and OF
        for j in range(n):
            b(f"mulxq {mem('a', j)}, %[lo], %[hi]")
            b(f"adcxq %[lo], {reg(acc[j])}")
            b(f"adoxq %[hi], {reg(acc[j + 1])}")
        b(f"adcq $0, {reg(acc[n])}")
        acc = redc_row(b, acc, n)
    copies = [acc[n], "lo", "hi", "rdx", "c0", "c1"][:n]
    final_subtract(b, acc[:n], copies, n)
    return b.lines, n + 1, acc[:n]


def gen_sqr(n):
    """Square = off-diagonal products, doubled, plus the diagonal; then REDC of the low
    half plus the high half: (L + H*R + m*p)/R = (L + m*p)/R + H with m taken from L.

    For 6 limbs the 12 product limbs do not fit the register file next to the pointers,
    so finished limbs go to scratch memory: limbs 1 and 2 during the off-diagonal pass
    (slots 6, 7), the high half (slots 0..5) before the doubling pass."""
    b = Block()
    spill = n == 6
    pool = [f"t{i}" for i in range(2 * n - 4 if spill else 2 * n + 1)]
    free = list(pool)
    loc = {}

    def take(k):
        loc[k] = free.pop(0)
        return loc[k]

    def slot(k):
        return f"%[s{k - n if k >= n else k + 5}]"

    def spill_limb(k):
        b(f"movq {reg(loc[k])}, {slot(k)}")
        free.append(loc[k])
        loc[k] = None

    # Off-diagonal products a_i*a_j (i < j) land in limbs 1 .. 2n-2.
    if not spill:
        take(0)
    for k in range(1, n + 1):
        take(k)
    b(f"movq {mem('a', 0)}, %%rdx")
    b(f"mulxq {mem('a', 1)}, {reg(loc[1])}, {reg(loc[2])}")
    for j in range(2, n):
        b(f"mulxq {mem('a', j)}, %[lo], {reg(loc[j + 1])}")
        b(f"{'addq' if j == 2 else 'adcq'} %[lo], {reg(loc[j])}")
    b(f"adcq $0, {reg(loc[n])}")
    if spill:
        spill_limb(1)
        spill_limb(2)
    for i in range(1, n - 1):
        top = take(i + n)
        b(f"movq {mem('a', i)}, %%rdx")
        b(f"xorl %k[{top}], %k[{top}]")
        for j in range(i + 1, n):
            b(f"mulxq {mem('a', j)}, %[lo], %[hi]")
            b(f"adcxq %[lo], {reg(loc[i + j])}")
            b(f"adoxq %[hi], {reg(loc[i + j + 1])}")
        b(f"adcq $0, {reg(top)}")

    if spill:
        for k in range(n, 2 * n - 1):
            spill_limb(k)
        loc[2 * n - 1] = None
        take(0)
        for k in (1, 2):
            r = free.pop(0)
            b(f"movq {slot(k)}, {reg(r)}")
            loc[k] = r
        tmp = free.pop(0)
    else:
        take(2 * n - 1)
        b(f"xorl %k[{loc[2 * n - 1]}], %k[{loc[2 * n - 1]}]")

    # Doubling on the CF chain, diagonal squares on the OF chain. Each limb is doubled
    # before its diagonal part is added, so the doubling sees only off-diagonal sums.
    b("xorl %k[lo], %k[lo]")
    for i in range(n):
        b(f"movq {mem('a', i)}, %%rdx")
        if i == 0:
            b(f"mulxq %%rdx, {reg(loc[0])}, %[hi]")
            parts = [(1, "hi")]
        else:
            b("mulxq %%rdx, %[lo], %[hi]")
            parts = [(2 * i, "lo"), (2 * i + 1, "hi")]
        for k, part in parts:
            if loc[k] is None:
                if k == 2 * n - 1:
                    b(f"movq $0, {reg(tmp)}")  # mov, unlike xor, leaves the flags alone
                else:
                    b(f"movq {slot(k)}, {reg(tmp)}")
                b(f"adcxq {reg(tmp)}, {reg(tmp)}")
                b(f"adoxq %[{part}], {reg(tmp)}")
                b(f"movq {reg(tmp)}, {slot(k)}")
            else:
                b(f"adcxq {reg(loc[k])}, {reg(loc[k])}")
                b(f"adoxq %[{part}], {reg(loc[k])}")

    # REDC of the low half.
    zero = free.pop(0)
    b(f"xorl %k[{zero}], %k[{zero}]")
    acc = [loc[k] for k in range(n)] + [zero]
    for _ in range(n):
        acc = redc_row(b, acc, n)
    for j in range(n):
        k = n + j
        src = slot(k) if loc[k] is None else reg(loc[k])
        b(f"{'addq' if j == 0 else 'adcq'} {src}, {reg(acc[j])}")
    if spill:
        copies = [f"%[s{j}]" for j in range(n)]
    else:
        copies = [loc[n + j] for j in range(n)]
    final_subtract(b, acc[:n], copies, n)
    return b.lines, len(pool), spill, acc[:n]


def gen_add(n, spill):
    """t = a + b (no carry out: 2p < 2^(64n)); then t - p unless that borrows."""
    b = Block()
    for j in range(n):
        b(f"{'addq' if j == 0 else 'adcq'} %[b{j}], %[t{j}]")
    copies = [f"%[c{j}]" if spill else f"c{j}" for j in range(n)]
    final_subtract(b, [f"t{j}" for j in range(n)], copies, n)
    return b.lines


def gen_sub(n, spill):
    """t = a - b; then t + p. The addition carries out exactly when the subtraction
    borrowed (then t = a - b + 2^(64n) and a - b + p >= 0), so that carry picks t + p."""
    b = Block()
    for j in range(n):
        b(f"{'subq' if j == 0 else 'sbbq'} %[b{j}], %[t{j}]")
    for j in range(n):
        b(f"movq %[t{j}], %[c{j}]")
    if spill:  # add p in place; without a carry, restore a - b from the scratch copies
        for j in range(n):
            b(f"{'addq' if j == 0 else 'adcq'} %[p{j}], %[t{j}]")
        for j in range(n):
            b(f"cmovncq %[c{j}], %[t{j}]")
    else:
        for j in range(n):
            b(f"{'addq' if j == 0 else 'adcq'} %[p{j}], %[c{j}]")
        for j in range(n):
            b(f"cmovcq %[c{j}], %[t{j}]")
    return b.lines


HEADER = """\
// Generated by src/ff/gen_fp_x86.py; edit the generator, not this file.
//
// Montgomery multiplication and squaring for 4- and 6-limb moduli with BMI2/ADX
// (mulx, adcx, adox): two independent carry chains per row, so the products of a row
// retire in parallel; and modular addition and subtraction on plain x86-64 (adc, sbb,
// cmov). Host only; fp.hpp decides when to call these.
#pragma once

#include <cstdint>

namespace cuzk::ff::x86 {

// The 4-limb product is always inlined: GCC rates its asm block too large to inline,
// and then every field operation is a call with its operands spilled to memory; forcing
// it made the MSM's bucket loop about 20% faster (BN254 G1, 2^16 points). The others are
// left to GCC: add/sub are small and inlined anyway, and squaring and the 6-limb product
// need more registers, so forced inlining can leave none for their operands ("impossible
// constraints", seen with the 6-limb product inside Fp2 code).
#define CUZK_X86_INLINE inline __attribute__((always_inline))
//
// The templates take the field's parameter struct (ff/params.hpp), not a pointer to its
// modulus limbs: a pointer to a subobject as a template argument is C++20 that clang 14
// rejects. The limbs are still memory operands naming the struct's static constant.
"""

ADX_BEGIN = """
// Multiplication needs BMI2 (mulx) and ADX (adcx, adox).
#if defined(__BMI2__) && defined(__ADX__)
"""
ADX_END = """
#endif  // __BMI2__ && __ADX__
"""


def fmt_asm(lines):
    return "\n".join(f'      "{l}\\n\\t"' for l in lines)


def limb_operands(name, n, constraint, src):
    return ", ".join(f'[{name}{j}] "{constraint}"({src}[{j}])' for j in range(n))


def emit_mul(n, pointers=False):
    """pointers: a and b as base registers, and a "memory" clobber for what the block
    reads through them (clang's 6-limb product, see the caller)."""
    global POINTERS
    POINTERS = {"a", "b"} if pointers else set()
    lines, nt, res = gen_mul(n)
    extra = ["c0", "c1"] if n == 6 else []
    ts = ", ".join([f"t{i}" for i in range(nt)] + extra)
    outs = ", ".join(f'[{t}] "=&r"({t})' for t in [f"t{i}" for i in range(nt)] + extra)
    stores = " ".join(f"out[{j}] = {r};" for j, r in enumerate(res))
    if pointers:
        ab_ops = '[a] "r"(a), [b] "r"(b)'
        clobbers = '"rdx", "cc", "memory"'
    else:
        ab_ops = (f'{limb_operands("a", n, "rm" if n == 4 else "m", "a")},\n'
                  f'        {limb_operands("b", n, "m", "b")}')
        clobbers = '"rdx", "cc"'
    return f"""
// out = a * b * R^-1 mod p for a {n}-limb p; INV = -p^-1 mod 2^64. out may alias a or b.
template <class Params, uint64_t INV>
{"CUZK_X86_INLINE" if n == 4 else "inline"} void mont_mul_{n}(uint64_t* out, const uint64_t* a, const uint64_t* b) {{
  constexpr const uint64_t* P = Params::MODULUS.limb;
  uint64_t {ts}, lo, hi;
  asm(
{fmt_asm(lines)}
      : {outs}, [lo] "=&r"(lo), [hi] "=&r"(hi)
      : {ab_ops},
        {limb_operands("p", n, "m", "P")}, [inv] "n"(INV)
      : {clobbers});
  {stores}
}}
"""


def emit_mul_6():
    # Eleven temporaries and rdx leave three registers. GCC folds the per-limb operands
    # into rsp- or base-relative addresses; clang can spend an address register on each
    # (seen in batch_inverse's loops: "inline assembly requires more registers than
    # available"), so under clang a and b are two base registers.
    return ("\n#if defined(__clang__)\n" + emit_mul(6, pointers=True) + "\n#else\n" + emit_mul(6) +
            "\n#endif  // __clang__\n")


def emit_sqr(n):
    global POINTERS
    POINTERS = {"p"} if n == 6 else set()
    lines, nt, spill, res = gen_sqr(n)
    ts = ", ".join(f"t{i}" for i in range(nt))
    outs = ", ".join(f'[t{i}] "=&r"(t{i})' for i in range(nt))
    scratch_decl = f"  uint64_t s[{n + 2}];\n" if spill else ""
    scratch_ops = "".join(f', [s{j}] "=m"(s[{j}])' for j in range(n + 2)) if spill else ""
    if POINTERS:
        p_ops = '[p] "r"(P), "m"(*(const uint64_t(*)[%d])P)' % n
    else:
        p_ops = limb_operands("p", n, "m", "P")
    stores = " ".join(f"out[{j}] = {r};" for j, r in enumerate(res))
    return f"""
// out = a^2 * R^-1 mod p for a {n}-limb p; INV = -p^-1 mod 2^64. out may alias a.
template <class Params, uint64_t INV>
inline void mont_sqr_{n}(uint64_t* out, const uint64_t* a) {{
  constexpr const uint64_t* P = Params::MODULUS.limb;
  uint64_t {ts}, lo, hi;
{scratch_decl}  asm(
{fmt_asm(lines)}
      : {outs}, [lo] "=&r"(lo), [hi] "=&r"(hi){scratch_ops}
      : {limb_operands("a", n, "m", "a")},
        {p_ops}, [inv] "n"(INV)
      : "rdx", "cc");
  {stores}
}}
"""


def emit_addsub(name, gen, n, doc):
    # Values travel in registers ("+r"/"rm" operands), so chains of additions need no
    # store/load round trip through memory.
    # Six limbs keep the copies in scratch memory: twelve live registers plus operand
    # addresses can exceed what GCC has left around an inlined call site.
    global POINTERS
    POINTERS = set()
    spill = n == 6
    lines = gen(n, spill)
    ts = ", ".join(f"t{j} = a[{j}]" for j in range(n))
    cs = ", ".join(f"c{j}" for j in range(n))
    outs = ", ".join(f'[t{j}] "+r"(t{j})' for j in range(n))
    outs += ", " + ", ".join(f'[c{j}] "{"=m" if spill else "=&r"}"(c{j})' for j in range(n))
    ins = ", ".join(f'[b{j}] "m"(b[{j}])' for j in range(n))
    ps = ", ".join(f'[p{j}] "m"(P[{j}])' for j in range(n))
    stores = " ".join(f"out[{j}] = t{j};" for j in range(n))
    return f"""
// {doc} for a {n}-limb p, operands < p. out may alias a or b.
template <class Params>
inline void {name}_{n}(uint64_t* out, const uint64_t* a, const uint64_t* b) {{
  constexpr const uint64_t* P = Params::MODULUS.limb;
  uint64_t {ts}, {cs};
  asm(
{fmt_asm(lines)}
      : {outs}
      : {ins},
        {ps}
      : "cc");
  {stores}
}}
"""


def main():
    out = [HEADER]
    out.append(ADX_BEGIN)
    for n in (4, 6):
        out.append(emit_mul(n) if n == 4 else emit_mul_6())
        out.append(emit_sqr(n))
    out.append(ADX_END)
    for n in (4, 6):
        out.append(emit_addsub("mod_add", gen_add, n, "out = a + b mod p"))
        out.append(emit_addsub("mod_sub", gen_sub, n, "out = a - b mod p"))
    out.append("\n#undef CUZK_X86_INLINE\n\n}  // namespace cuzk::ff::x86\n")
    print("".join(out), end="")


if __name__ == "__main__":
    main()
