// Shared by the peer benchmarks: the timing loop, the command line, and loading the
// peers from tests/interop/node_modules (where `npm ci` put them).
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const interop = new URL('../../tests/interop/package.json', import.meta.url);
const requireFromInterop = createRequire(interop);

// Imports a package the way tests/interop would, so the peers need no install of their own.
export async function importPeer(specifier) {
  return import(pathToFileURL(requireFromInterop.resolve(specifier)).href);
}

// --reps N (default 5), --min-ms M: the time one repetition runs for (default 200).
export function options(argv = process.argv.slice(2)) {
  const opts = { reps: 5, minMs: 200 };
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '--reps') opts.reps = Number(argv[++i]);
    else if (argv[i] === '--min-ms') opts.minMs = Number(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]} (expected --reps N, --min-ms M)`);
  }
  if (!(opts.reps >= 1 && opts.minMs > 0)) throw new Error('--reps must be >= 1 and --min-ms > 0');
  return opts;
}

function elapsedNs(fn, iterations) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < iterations; ++i) fn();
  return Number(process.hrtime.bigint() - t0);
}

// Median over `reps` repetitions of the mean time of one call of fn, in nanoseconds.
// `perCall` divides each call's time when one call performs several operations.
export function measure(fn, { reps, minMs }, perCall = 1) {
  let iterations = 1;
  // Warm up (JIT, caches) while finding how many calls fill one repetition.
  while (elapsedNs(fn, iterations) < minMs * 1e6 && iterations < 1 << 30) iterations *= 2;
  const samples = [];
  for (let r = 0; r < reps; ++r) samples.push(elapsedNs(fn, iterations) / iterations / perCall);
  samples.sort((a, b) => a - b);
  const mid = samples.length >> 1;
  return samples.length % 2 ? samples[mid] : (samples[mid - 1] + samples[mid]) / 2;
}

// Rows are printed as one JSON array: { name, ns, note } with name `<curve>/<op>`,
// the same names as cuzk's micro_bench, and note saying what exactly was timed.
export function report(rows) {
  process.stdout.write(JSON.stringify(rows, null, 1) + '\n');
}
