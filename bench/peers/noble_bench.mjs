// @noble/curves (pure JavaScript, BigInt arithmetic) on the ops cuzk's micro_bench times.
// usage: node bench/peers/noble_bench.mjs [--reps N] [--min-ms M]
import { createHash } from 'node:crypto';
import { importPeer, measure, options, report } from './timing.mjs';

const { bn254 } = await importPeer('@noble/curves/bn254.js');
const { bls12_381 } = await importPeer('@noble/curves/bls12-381.js');
const opts = options();

// Fixed operands, so every run times the same inputs.
let counter = 0;
function randomBelow(n) {
  const h = Buffer.concat([0, 1].map((i) => createHash('sha256').update(`noble-bench:${counter++}:${i}`).digest()));
  return 1n + (BigInt('0x' + h.toString('hex')) % (n - 1n));
}

const rows = [];
for (const [name, curve] of [
  ['bls12_381', bls12_381],
  ['bn254', bn254],
]) {
  const { Fp, Fr } = curve.fields;
  const r = Fr.ORDER;
  for (const [op, F] of [
    ['Fr_mul', Fr],
    ['Fq_mul', Fp],
  ]) {
    let a = randomBelow(F.ORDER);
    const b = randomBelow(F.ORDER);
    rows.push({ name: `${name}/${op}`, ns: measure(() => (a = F.mul(a, b)), opts), note: 'Field.mul on bigints' });
  }
  for (const [g, G] of [
    ['G1', curve.G1.Point],
    ['G2', curve.G2.Point],
  ]) {
    // Affine points (Z = 1), built without noble's cached generator tables.
    const P = G.fromAffine(G.BASE.multiply(randomBelow(r)).toAffine());
    const Q = G.fromAffine(G.BASE.multiply(randomBelow(r)).toAffine());
    let acc = P;
    rows.push({
      name: `${name}/${g}_mixed_add`,
      ns: measure(() => (acc = acc.add(Q)), opts),
      note: 'Point.add, a complete projective addition (noble has no mixed addition)',
    });
    const k = randomBelow(r);
    rows.push({
      name: `${name}/${g}_scalar_mul`,
      ns: measure(() => P.multiply(k), opts),
      note: 'Point.multiply (constant-time) of a non-generator point by a random scalar',
    });
  }
  const P = curve.G1.Point.BASE.multiply(randomBelow(r));
  const Q = curve.G2.Point.BASE.multiply(randomBelow(r));
  rows.push({
    name: `${name}/pairing`,
    ns: measure(() => curve.pairing(P, Q), opts),
    note: 'pairing(P, Q) with the final exponentiation',
  });
}
report(rows);
