// Merges cuzk's Google Benchmark JSON with the peers' rows into one markdown table.
// usage: node bench/make_table.mjs <cuzk.json> <blst.json> <noble.json>
import { readFileSync } from 'node:fs';

const [cuzkPath, blstPath, noblePath] = process.argv.slice(2);
if (!noblePath) {
  console.error('usage: node make_table.mjs <cuzk.json> <blst.json> <noble.json>');
  process.exit(2);
}

const toNs = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 };
const cuzk = new Map();
for (const b of JSON.parse(readFileSync(cuzkPath, 'utf8')).benchmarks) {
  // With --benchmark_repetitions the median is its own aggregate row.
  if (b.run_type === 'aggregate' && b.aggregate_name === 'median') cuzk.set(b.run_name, b.real_time * toNs[b.time_unit]);
}
if (cuzk.size === 0) throw new Error(`${cuzkPath}: no median rows (run micro_bench with --benchmark_repetitions)`);

const peers = [
  ['blst', blstPath],
  ['noble', noblePath],
].map(([peer, path]) => ({ peer, rows: new Map(JSON.parse(readFileSync(path, 'utf8')).map((r) => [r.name, r])) }));

function human(ns) {
  const [div, unit] = ns >= 1e6 ? [1e6, 'ms'] : ns >= 1e3 ? [1e3, 'µs'] : [1, 'ns'];
  const v = ns / div;
  return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ${unit}`;
}

// Each distinct peer note becomes a numbered footnote.
const notes = [];
function footnote(peer, note) {
  const text = `${peer}: ${note}`;
  let i = notes.indexOf(text);
  if (i < 0) i = notes.push(text) - 1;
  return `[${i + 1}]`;
}

const lines = ['| op | cuzk | blst | noble |', '|---|---:|---:|---:|'];
for (const [name, ns] of cuzk) {
  const cells = peers.map(({ peer, rows }) => {
    const r = rows.get(name);
    return r ? `${human(r.ns)} ${footnote(peer, r.note)}` : 'n/a';
  });
  lines.push(`| ${name} | ${human(ns)} | ${cells.join(' | ')} |`);
}
lines.push('', 'Median of the repetitions, time per operation, one thread. cuzk: Google Benchmark real time.');
notes.forEach((n, i) => lines.push(`[${i + 1}] ${n}`));
console.log(lines.join('\n'));
