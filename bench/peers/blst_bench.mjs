// supranational/blst through its node binding @chainsafe/blst. The binding exposes the
// BLS signature API only, not field or raw group operations, so each row times the
// nearest call and its note says what that call does. BLS12-381 only.
// usage: node bench/peers/blst_bench.mjs [--reps N] [--min-ms M]
import { createHash } from 'node:crypto';
import { importPeer, measure, options, report } from './timing.mjs';

const blst = (await importPeer('@chainsafe/blst')).default;
const opts = options();

const ikm = (i) => createHash('sha256').update(`blst-bench:${i}`).digest();
const msg = new Uint8Array(createHash('sha256').update('blst-bench:message').digest());

const sk = blst.SecretKey.fromKeygen(ikm(0));
const pk = sk.toPublicKey();
const sig = sk.sign(msg);

// Sums of many points: the binding folds each one in with blst's affine+projective
// addition, so total time / (n - 1) bounds one mixed addition from above (it also
// pays for walking the JavaScript array).
const n = 1024;
const keys = Array.from({ length: n }, (_, i) => blst.SecretKey.fromKeygen(ikm(i + 1)));
const pks = keys.map((k) => k.toPublicKey());
const sigs = keys.map((k) => k.sign(msg));

report([
  {
    name: 'bls12_381/G1_mixed_add',
    ns: measure(() => blst.aggregatePublicKeys(pks, false), opts, n - 1),
    note: `aggregatePublicKeys of ${n} keys without validation, divided by ${n - 1}`,
  },
  {
    name: 'bls12_381/G2_mixed_add',
    ns: measure(() => blst.aggregateSignatures(sigs, false), opts, n - 1),
    note: `aggregateSignatures of ${n} signatures without group checks, divided by ${n - 1}`,
  },
  {
    name: 'bls12_381/G1_scalar_mul',
    ns: measure(() => sk.toPublicKey(), opts),
    note: 'SecretKey.toPublicKey: [sk]G1 for the generator G1 and a conversion to affine',
  },
  {
    name: 'bls12_381/G2_scalar_mul',
    ns: measure(() => sk.sign(msg), opts),
    note: 'SecretKey.sign: hash-to-G2 of a 32-byte message, then [sk]H and a conversion to affine',
  },
  {
    name: 'bls12_381/pairing',
    ns: measure(() => blst.verify(msg, pk, sig, false, false), opts),
    note: 'verify without validation: hash-to-G2, a two-pair Miller loop and one final exponentiation',
  },
]);
