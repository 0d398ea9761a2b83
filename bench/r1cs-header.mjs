// Prints an .r1cs file's header as "constraints public wires" (public = outputs + public
// inputs, the signals snarkjs counts as nPublic). Reads only the section headers and the
// header section, so it is quick on large files.
// usage: node bench/r1cs-header.mjs <circuit.r1cs>
import { openSync, readSync } from 'node:fs';

const path = process.argv[2];
if (!path) {
  console.error('usage: node r1cs-header.mjs <circuit.r1cs>');
  process.exit(2);
}
const fd = openSync(path, 'r');
const read = (pos, len) => {
  const b = Buffer.alloc(len);
  if (readSync(fd, b, 0, len, pos) !== len) throw new Error(`${path}: truncated at ${pos}`);
  return b;
};
const head = read(0, 12);
if (head.toString('latin1', 0, 4) !== 'r1cs') throw new Error(`${path}: not an r1cs file`);
const nSections = head.readUInt32LE(8);
let pos = 12;
for (let s = 0; s < nSections; s++) {
  const sh = read(pos, 12);
  const type = sh.readUInt32LE(0);
  const size = Number(sh.readBigUInt64LE(4));
  pos += 12;
  if (type === 1) {
    // n8, prime (n8 bytes), nWires, nPubOut, nPubIn, nPrvIn, nLabels (u64), nConstraints
    const n8 = read(pos, 4).readUInt32LE(0);
    const h = read(pos + 4 + n8, 28);
    const [nWires, nPubOut, nPubIn] = [0, 4, 8].map((o) => h.readUInt32LE(o));
    const nConstraints = h.readUInt32LE(24);
    console.log(`${nConstraints} ${nPubOut + nPubIn} ${nWires}`);
    process.exit(0);
  }
  pos += size;
}
throw new Error(`${path}: no header section`);
