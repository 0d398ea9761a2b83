#!/usr/bin/env python3
"""Two micro_bench binaries (or any Google Benchmark programs) timed in turns, A B A B ...

On a shared machine the same binary's rows drift by tens of percent between runs, so one
run of each compares little. This runs them alternately ROUNDS times (each run
--benchmark_repetitions=REPS) and prints, per benchmark, the minimum and the median of
every repetition of each, and B's minimum against A's.

  bench/micro_ab.py A B [--filter REGEX] [--rounds 6] [--reps 3]
"""
import argparse
import collections
import json
import statistics
import subprocess
import sys


def run(binary, regex, reps):
    out = subprocess.run(
        [binary, "--benchmark_filter=" + regex, "--benchmark_repetitions=%d" % reps, "--benchmark_format=json"],
        capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("micro_ab: %s exited %d: %s" % (binary, out.returncode, out.stderr.strip()[-500:]))
    benchmarks = json.loads(out.stdout)["benchmarks"]
    rows = collections.defaultdict(list)
    for b in benchmarks:
        if b.get("run_type") == "iteration":
            if b.get("error_occurred"):
                sys.exit("micro_ab: %s: %s: %s" % (binary, b["run_name"], b.get("error_message", "error")))
            rows[b["run_name"]].append(b["real_time"])
    return rows, benchmarks[0].get("time_unit", "ns") if benchmarks else "ns"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--filter", default=".", help="benchmark regex (default: all)")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    times = {args.a: collections.defaultdict(list), args.b: collections.defaultdict(list)}
    unit = "ns"
    for r in range(args.rounds):
        for binary in (args.a, args.b):
            rows, unit = run(binary, args.filter, args.reps)
            for name, t in rows.items():
                times[binary][name].extend(t)
        print("micro_ab: round %d of %d done" % (r + 1, args.rounds), file=sys.stderr)
    names = [n for n in times[args.a] if n in times[args.b]]
    if not names:
        sys.exit("micro_ab: no benchmark ran in both binaries (filter %r)" % args.filter)
    print("A = %s, B = %s; %d rounds of %d repetitions each, in turns; times in %s" %
          (args.a, args.b, args.rounds, args.reps, unit))
    print("| benchmark | min A | min B | median A | median B | B / A (min) |")
    print("|---|---:|---:|---:|---:|---:|")
    for n in names:
        a, b = times[args.a][n], times[args.b][n]
        print("| %s | %.1f | %.1f | %.1f | %.1f | %+.1f%% |" %
              (n, min(a), min(b), statistics.median(a), statistics.median(b), 100 * (min(b) / min(a) - 1)))


if __name__ == "__main__":
    main()
