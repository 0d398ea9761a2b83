// Writes known-answer vectors computed by @noble/curves, an independent implementation,
// for cuzk's fields, curves, encodings and pairings to be checked against.
//
// usage: node gen_vectors.mjs <out.txt> [seed]
//
// One vector per line, tokens separated by single spaces:
//   <curve> <group> <op> <args...> = <results...>
// group: Fq, Fr, Fq2, Fq12, G1, G2, or GT for pairings.
// curve: bn254 | bls12_381. Field elements are canonical decimal integers; an Fq2
// element is two tokens (c0 c1); an Fq12 element is twelve, in tower order
// c0.c0.c0 c0.c0.c1 c0.c1.c0 ... c1.c2.c1. Points are affine coordinates, the point at
// infinity written as all-zero coordinates (cuzk's convention). Encodings are lowercase
// hex. "none" marks a non-square for sqrt and "reject" an encoding that must not decode.
// Lines starting with '#' are comments. The same seed always gives the same file.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { bn254 } from '@noble/curves/bn254.js';
import { bls12_381 } from '@noble/curves/bls12-381.js';

const [outPath, seed = 'cuzk-interop-v1'] = process.argv.slice(2);
if (!outPath) {
  console.error('usage: node gen_vectors.mjs <out.txt> [seed]');
  process.exit(2);
}

// Deterministic stream of big integers: SHA-256 in counter mode over the seed.
let counter = 0;
function randomBelow(n) {
  let bytes = Buffer.alloc(0);
  while (bytes.length < 64) {
    bytes = Buffer.concat([bytes, createHash('sha256').update(`${seed}:${counter++}`).digest()]);
  }
  // 512 random bits reduced mod n: the bias is below 2^-128, irrelevant for test inputs.
  return BigInt('0x' + bytes.toString('hex')) % n;
}

const lines = [];
const emit = (...tokens) => lines.push(tokens.join(' '));
const dec = (x) => x.toString(10);
const fq2 = (e) => [dec(e.c0), dec(e.c1)];
const fq12 = (e) => [e.c0, e.c1].flatMap((f6) => [f6.c0, f6.c1, f6.c2].flatMap(fq2));
const g1 = (P) => {
  const a = P.toAffine();
  return [dec(a.x), dec(a.y)];
};
const g2 = (P) => {
  const a = P.toAffine();
  return [...fq2(a.x), ...fq2(a.y)];
};
const hex = (bytes) => Buffer.from(bytes).toString('hex');

function primeFieldVectors(name, group, F, count) {
  const p = F.ORDER;
  const special = [0n, 1n, 2n, p - 1n, p - 2n, (p - 1n) / 2n];
  const samples = [...special.map((a) => [a, randomBelow(p)]), ...Array.from({ length: count }, () => [randomBelow(p), randomBelow(p)])];
  for (const [a, b] of samples) {
    emit(name, group, 'add', dec(a), dec(b), '=', dec(F.add(a, b)));
    emit(name, group, 'sub', dec(a), dec(b), '=', dec(F.sub(a, b)));
    emit(name, group, 'mul', dec(a), dec(b), '=', dec(F.mul(a, b)));
    emit(name, group, 'neg', dec(a), '=', dec(F.neg(a)));
    emit(name, group, 'square', dec(a), '=', dec(F.sqr(a)));
    if (a !== 0n) emit(name, group, 'inv', dec(a), '=', dec(F.inv(a)));
    // Squares and non-squares both, so a sqrt that accepts everything fails.
    for (const x of [a, F.sqr(a)]) {
      let root = null;
      try {
        root = F.sqrt(x);
      } catch {
        root = null;
      }
      emit(name, group, 'sqrt', dec(x), '=', root === null ? 'none' : dec(root));
    }
  }
}

function fq2Vectors(name, Fp, Fp2, count) {
  const rnd = () => ({ c0: randomBelow(Fp.ORDER), c1: randomBelow(Fp.ORDER) });
  for (let i = 0; i < count; ++i) {
    const a = rnd();
    const b = rnd();
    emit(name, 'Fq2', 'mul', ...fq2(a), ...fq2(b), '=', ...fq2(Fp2.mul(a, b)));
    emit(name, 'Fq2', 'square', ...fq2(a), '=', ...fq2(Fp2.sqr(a)));
    emit(name, 'Fq2', 'inv', ...fq2(a), '=', ...fq2(Fp2.inv(a)));
    for (const x of [a, Fp2.sqr(a)]) {
      let root = null;
      try {
        root = Fp2.sqrt(x);
      } catch {
        root = null;
      }
      emit(name, 'Fq2', 'sqrt', ...fq2(x), '=', ...(root === null ? ['none'] : fq2(root)));
    }
  }
}

function fq12Vectors(name, Fp, Fp12, count) {
  const rnd = () => {
    const f2 = () => ({ c0: randomBelow(Fp.ORDER), c1: randomBelow(Fp.ORDER) });
    const f6 = () => ({ c0: f2(), c1: f2(), c2: f2() });
    return { c0: f6(), c1: f6() };
  };
  for (let i = 0; i < count; ++i) {
    const a = rnd();
    const b = rnd();
    emit(name, 'Fq12', 'mul', ...fq12(a), ...fq12(b), '=', ...fq12(Fp12.mul(a, b)));
    emit(name, 'Fq12', 'square', ...fq12(a), '=', ...fq12(Fp12.sqr(a)));
    emit(name, 'Fq12', 'inv', ...fq12(a), '=', ...fq12(Fp12.inv(a)));
  }
}

function scalarsFor(r, count) {
  return [0n, 1n, 2n, 3n, r - 1n, ...Array.from({ length: count }, () => randomBelow(r))];
}

function groupVectors(name, curve, count) {
  const r = curve.fields.Fr.ORDER;
  for (const [group, G, coords] of [
    ['G1', curve.G1.Point, g1],
    ['G2', curve.G2.Point, g2],
  ]) {
    emit(name, group, 'generator', '=', ...coords(G.BASE));
    const points = [];
    for (const k of scalarsFor(r, count)) {
      const P = G.BASE.multiplyUnsafe(k);
      emit(name, group, 'mul', dec(k), '=', ...coords(P));
      points.push(P);
    }
    // Addition, including the cases a complete formula must get right: doubling,
    // P + (-P), and either operand at infinity.
    const rnd = points.slice(5);
    const pairs = [
      [rnd[0], rnd[1]],
      [rnd[1], rnd[2]],
      [rnd[0], rnd[0]],
      [rnd[0], rnd[0].negate()],
      [rnd[0], G.ZERO],
      [G.ZERO, rnd[1]],
      [G.ZERO, G.ZERO],
    ];
    for (const [P, Q] of pairs) emit(name, group, 'add', ...coords(P), ...coords(Q), '=', ...coords(P.add(Q)));
    for (const P of [rnd[0], rnd[1], G.ZERO]) emit(name, group, 'double', ...coords(P), '=', ...coords(P.double()));
    for (const P of [rnd[0], G.ZERO]) emit(name, group, 'neg', ...coords(P), '=', ...coords(P.negate()));
  }
}

// zcash/bellperson encodings of BLS12-381 points (the form noble implements).
function encodingVectors(curve, count) {
  const name = 'bls12_381';
  const r = curve.fields.Fr.ORDER;
  const Fp = curve.fields.Fp;
  for (const [group, G, coords] of [
    ['G1', curve.G1.Point, g1],
    ['G2', curve.G2.Point, g2],
  ]) {
    const points = [G.ZERO, G.BASE, G.BASE.negate(), ...Array.from({ length: count }, () => G.BASE.multiply(1n + randomBelow(r - 1n)))];
    for (const P of points) {
      emit(name, group, 'compressed', ...coords(P), '=', P.toHex(true));
      emit(name, group, 'uncompressed', ...coords(P), '=', P.toHex(false));
    }
    // Encodings a decoder must refuse. Each one is confirmed against noble first.
    const bad = [];
    const good = G.BASE.toBytes(true);
    const flip = (bytes, i, mask) => {
      const b = Uint8Array.from(bytes);
      b[i] ^= mask;
      return b;
    };
    bad.push(['compression flag cleared', flip(good, 0, 0x80)]);
    bad.push(['infinity flag with a non-zero x', flip(good, 0, 0x40)]);
    const infBad = G.ZERO.toBytes(true);
    infBad[infBad.length - 1] = 1;
    bad.push(['infinity with a non-zero low byte', infBad]);
    const infSign = G.ZERO.toBytes(true);
    infSign[0] |= 0x20;
    bad.push(['infinity with the sign flag set', infSign]);
    const uncompressedFlagged = G.BASE.toBytes(false);
    uncompressedFlagged[0] |= 0x80;
    bad.push(['uncompressed with the compression flag set', uncompressedFlagged]);
    // x = p (the first coordinate of the encoding is not a canonical field element).
    const pBytes = Buffer.from(Fp.ORDER.toString(16).padStart(96, '0'), 'hex');
    const xIsP = Uint8Array.from(good);
    xIsP.set(pBytes, 0);
    xIsP[0] |= 0x80;
    bad.push(['x coordinate equal to the modulus', xIsP]);
    // An x with no point on the curve, and a point on the curve outside the subgroup.
    let offCurve = null;
    let offSubgroup = null;
    for (let x = 1n; !(offCurve && offSubgroup); ++x) {
      const enc = Buffer.alloc(good.length);
      enc.set(Buffer.from(x.toString(16).padStart(96, '0'), 'hex'), 0);
      enc[0] |= 0x80;
      let P = null;
      try {
        P = G.fromBytes(enc);
      } catch {
        P = null;
      }
      if (P !== null) continue;
      if (onCurveFromX(group, curve, x)) {
        if (!offSubgroup) offSubgroup = enc;
      } else if (!offCurve) {
        offCurve = enc;
      }
    }
    bad.push(['x with no point on the curve', offCurve]);
    bad.push(['a curve point outside the prime-order subgroup', offSubgroup]);
    bad.push(['truncated', good.subarray(0, good.length - 1)]);
    for (const [why, bytes] of bad) {
      let accepted = true;
      try {
        G.fromBytes(bytes);
      } catch {
        accepted = false;
      }
      if (accepted) throw new Error(`noble accepted an encoding meant to be invalid (${group}: ${why})`);
      lines.push(`# ${group}: ${why}`);
      emit(name, group, 'decode', hex(bytes), '=', 'reject');
    }
  }
}

// Whether x (an Fq value for G1, x.c1 = 0 for G2's Fq2) lies on the curve.
function onCurveFromX(group, curve, x) {
  const { Fp, Fp2 } = curve.fields;
  if (group === 'G1') {
    const rhs = Fp.add(Fp.mul(Fp.sqr(x), x), 4n);
    try {
      Fp.sqrt(rhs);
      return true;
    } catch {
      return false;
    }
  }
  // The 96-byte G2 encoding holds x.c1 first: our candidate sets x = x.c1 * u.
  const X = { c0: 0n, c1: x };
  const rhs = Fp2.add(Fp2.mul(Fp2.sqr(X), X), { c0: 4n, c1: 4n });
  try {
    Fp2.sqrt(rhs);
    return true;
  } catch {
    return false;
  }
}

// noble's pairing value is a fixed power of the reduced pairing (e^3 on BLS12-381, as in
// blst and snarkjs; e^(2x(6x^2+3x+1)) on BN254, as in snarkjs): written as noble returns it.
function pairingVectors(name, curve, count) {
  const r = curve.fields.Fr.ORDER;
  const cases = [[1n, 1n], ...Array.from({ length: count }, () => [1n + randomBelow(r - 1n), 1n + randomBelow(r - 1n)])];
  for (const [a, b] of cases) {
    const P = curve.G1.Point.BASE.multiply(a);
    const Q = curve.G2.Point.BASE.multiply(b);
    emit(name, 'GT', 'pairing', ...g1(P), ...g2(Q), '=', ...fq12(curve.pairing(P, Q)));
  }
}

lines.push(`# @noble/curves 2.4.0 known-answer vectors, seed ${seed}`);
for (const [name, curve] of [
  ['bn254', bn254],
  ['bls12_381', bls12_381],
]) {
  const { Fp, Fr, Fp2, Fp12 } = curve.fields;
  primeFieldVectors(name, 'Fq', Fp, 8);
  primeFieldVectors(name, 'Fr', Fr, 8);
  fq2Vectors(name, Fp, Fp2, 6);
  fq12Vectors(name, Fp, Fp12, 3);
  groupVectors(name, curve, 6);
  if (name === 'bls12_381') encodingVectors(curve, 4);
  pairingVectors(name, curve, 3);
}
writeFileSync(outPath, lines.join('\n') + '\n');
console.log(`wrote ${lines.length} lines to ${outPath}`);
