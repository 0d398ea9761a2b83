// Device MSM timings (a benchmark, not a test): bases and scalars already on the device,
// the whole Msm::run timed with CUDA events (median after one warm-up), every timed result
// checked against the CPU discrete-log oracle (msm_fixtures.hpp), device memory from the
// allocator's peak. Prints a markdown table with the peer figures of GPU-NOTES.md.
// Rows marked "pre c" run with precomputed bases of c-bit windows (the table's bytes and
// build time beside them); "c=N" rows force the window width (a sweep).
// Usage: cuda_msm_bench [--runs N] [--max-log K] [--sweep C1,C2,..] [--g2-sweep C1,C2,..]
//                       [--pre C1,C2,..] [--groups G1,G2,..] [--accumulation choice|xyzz|affine|both]
//                       [--cache-freed]
//   K: skip sizes above 2^K; --sweep: also BLS12-381 G1 2^22..2^27 and BN254 G1 2^24 at
//   each forced width; --g2-sweep: BLS12-381 G2 2^20/2^22 likewise; --pre: the
//   precomputed rows at these widths instead of the choice; --groups: only these groups
//   (bls12_381_g1, bn254_g1, bls12_381_g2, bn254_g2; default all); --accumulation: the
//   level-1 path (MsmStats::accumulation), "both" runs every case with XYZZ then affine;
//   --cache-freed: the allocator keeps freed blocks for reuse, as the daemon runs it, so
//   the timed runs after the warm-up take their scratch without cudaMalloc / cudaFree.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/thread_pool.hpp"
#include "cuda/allocator.hpp"
#include "cuda/device.hpp"
#include "msm_fixtures.hpp"

namespace cuzk::cuda {
namespace {

using msm_fixtures::Mix;

struct Case {
  Mix mix;
  unsigned log_n;
  const char* peer;           // sppark v0.1.15 on this H200 (GPU-NOTES.md), "" if none
  unsigned force_c = 0;       // forced window width (0: the choice)
  int pre_c = -1;             // precomputed bases of this width (0: their choice; -1: none)
  unsigned accumulation = 0;  // MsmStats::accumulation
};

struct Row {
  std::string group, mix, peer, note, mode = "pippenger";
  unsigned log_n = 0;
  double table_mib = 0, build_ms = 0;
  double median_ms = 0, min_ms = 0;
  size_t scratch_peak = 0, scratch_bound = 0;
  MsmStats stats, profile;
  bool ok = false;
};

const char* mix_name(Mix m) {
  switch (m) {
    case Mix::kUniform:
      return "uniform";
    case Mix::kWitness:
      return "45% 0, 45% 1, 10% uniform";
    default:
      return "other";
  }
}

template <class G>
void bench_group(const char* name, const std::vector<Case>& group_cases, const std::vector<unsigned>& accumulations,
                 unsigned max_log, int runs, ThreadPool& pool, std::mt19937_64& rng, const Stream& s,
                 std::vector<Row>& rows) {
  std::vector<Case> cases;
  for (const Case& c : group_cases) {
    for (unsigned a : accumulations) {
      cases.push_back(c);
      cases.back().accumulation = a;
    }
  }
  unsigned top = 0;
  for (const Case& c : cases) {
    if (c.log_n <= max_log) top = std::max(top, c.log_n);
  }
  if (top == 0) return;
  const auto bases = msm_fixtures::make_bases<G>(size_t(1) << top, rng(), pool);
  for (const Case& c : cases) {
    if (c.log_n > max_log) continue;
    Row row;
    row.group = name;
    row.mix = mix_name(c.mix);
    row.peer = c.peer;
    row.log_n = c.log_n;
    const size_t n = size_t(1) << c.log_n;
    const auto scalars = msm_fixtures::make_scalars<G>(n, c.mix, rng);
    const auto expected = msm_fixtures::oracle<G>(bases, scalars, pool).to_affine();
    auto in = msm_fixtures::upload<G>(bases.points, n, scalars, s);
    auto alloc = DeviceAllocator::current();
    auto start = Event::create(), end = Event::create();
    if (!in.is_ok() || !alloc.is_ok() || !start.is_ok() || !end.is_ok()) {
      row.note = "setup failed";
      rows.push_back(row);
      continue;
    }
    std::optional<PrecomputedBases<G>> pre;
    if (c.pre_c >= 0) {
      const unsigned pc = c.pre_c > 0 ? unsigned(c.pre_c) : PrecomputedBases<G>::choose_window_bits(n);
      const auto t0 = std::chrono::steady_clock::now();
      auto built = PrecomputedBases<G>::build(in->bases.data(), n, pc, s);
      if (!built.is_ok()) {
        row.note = built.status().to_string();
        rows.push_back(row);
        continue;
      }
      row.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      pre.emplace(std::move(built).value());
      row.table_mib = double(pre->table_bytes()) / (1 << 20);
      row.mode = "pre " + std::to_string(pc);
    } else if (c.force_c != 0) {
      row.mode = "c=" + std::to_string(c.force_c);
    }
    if (c.accumulation != 0) row.mode += c.accumulation == 1 ? " xyzz" : " affine";
    auto run_once = [&](MsmStats* st) {
      st->force_window_bits = c.force_c;
      st->accumulation = c.accumulation;
      return pre ? Msm<G>::run(*pre, in->scalars.data(), n, s, nullptr, st)
                 : Msm<G>::run(in->bases.data(), in->scalars.data(), n, s, nullptr, st);
    };
    const size_t held = (*alloc)->stats().allocated_bytes;
    (*alloc)->reset_peak();
    std::vector<double> ms;
    bool ok = true;
    for (int r = 0; r <= runs && ok; ++r) {
      Status st = start->record(s);
      auto res = run_once(&row.stats);
      if (st.is_ok()) st = end->record(s);
      if (st.is_ok()) st = end->synchronize();
      if (!res.is_ok() || !st.is_ok()) {
        row.note = (!res.is_ok() ? res.status() : st).to_string();
        ok = false;
        break;
      }
      if (res->to_affine() != expected) {
        row.note = "WRONG RESULT";
        ok = false;
        break;
      }
      auto t = Event::elapsed_ms(*start, *end);
      if (r > 0 && t.is_ok()) ms.push_back(*t);
    }
    if (ok) {
      // One more, untimed, with the stage events on.
      row.profile.profile = true;
      auto res = run_once(&row.profile);
      if (!res.is_ok() || res->to_affine() != expected) {
        row.note = "profiled run failed";
        ok = false;
      }
    }
    row.ok = ok && !ms.empty();
    if (row.ok) {
      std::sort(ms.begin(), ms.end());
      row.median_ms = ms[ms.size() / 2];
      row.min_ms = ms.front();
    }
    row.scratch_peak = (*alloc)->stats().peak_bytes - held;
    row.scratch_bound = pre ? Msm<G>::scratch_bytes(n, *pre) : Msm<G>::scratch_bytes(n);
    rows.push_back(row);
    std::fprintf(stderr, "%s 2^%u %s %s: %.2f ms %s\n", name, c.log_n, row.mix.c_str(), row.mode.c_str(), row.median_ms,
                 row.ok ? "ok" : row.note.c_str());
  }
}

int run(int argc, char** argv) {
  int runs = 5;
  unsigned max_log = 24;
  bool cache_freed = false;
  std::vector<unsigned> sweep, g2_sweep, pre_widths;
  std::string groups = "bls12_381_g1,bn254_g1,bls12_381_g2,bn254_g2";
  std::vector<unsigned> accumulations = {0};
  auto parse_list = [](const char* a) {
    std::vector<unsigned> v;
    for (const char* p = a; *p != 0;) {
      v.push_back(unsigned(std::strtoul(p, const_cast<char**>(&p), 10)));
      if (*p == ',') {
        ++p;
      } else if (*p != 0) {
        return std::vector<unsigned>{};
      }
    }
    return v;
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--max-log" && i + 1 < argc) {
      max_log = unsigned(std::atoi(argv[++i]));
    } else if (arg == "--sweep" && i + 1 < argc) {
      sweep = parse_list(argv[++i]);
    } else if (arg == "--g2-sweep" && i + 1 < argc) {
      g2_sweep = parse_list(argv[++i]);
    } else if (arg == "--groups" && i + 1 < argc) {
      groups = argv[++i];
    } else if (arg == "--pre" && i + 1 < argc) {
      pre_widths = parse_list(argv[++i]);
    } else if (arg == "--cache-freed") {
      cache_freed = true;
    } else if (arg == "--accumulation" && i + 1 < argc) {
      const std::string a = argv[++i];
      accumulations = a == "xyzz"     ? std::vector<unsigned>{1}
                      : a == "affine" ? std::vector<unsigned>{2}
                      : a == "both"   ? std::vector<unsigned>{1, 2}
                                      : std::vector<unsigned>{0};
    } else {
      std::fprintf(stderr,
                   "usage: %s [--runs N] [--max-log K] [--sweep C1,C2,..] [--g2-sweep C1,C2,..] [--pre C1,C2,..] "
                   "[--groups G1,G2,..] [--accumulation choice|xyzz|affine|both] [--cache-freed]\n",
                   argv[0]);
      return 2;
    }
  }
  if (pre_widths.empty()) pre_widths.push_back(0);
  // The precomputed rows and the sweep, appended to a group's cases.
  auto extra = [&](std::vector<Case> cases, std::vector<std::pair<unsigned, const char*>> sizes, bool with_pre) {
    for (auto [log_n, peer] : sizes) {
      for (unsigned c : sweep) cases.push_back({Mix::kUniform, log_n, peer, c, -1});
      if (with_pre) {
        for (unsigned c : pre_widths) cases.push_back({Mix::kUniform, log_n, peer, 0, int(c)});
      }
    }
    return cases;
  };
  auto count = device_count();
  if (!count.is_ok() || *count == 0) {
    std::fprintf(stderr, "cuda_msm_bench: no CUDA device\n");
    return 2;
  }
  auto info = device_info(0);
  auto stream = Stream::create();
  if (!info.is_ok() || !stream.is_ok()) {
    std::fprintf(stderr, "cuda_msm_bench: %s\n", (!info.is_ok() ? info.status() : stream.status()).to_string().c_str());
    return 1;
  }
  if (cache_freed) {
    auto alloc = DeviceAllocator::current();
    BudgetOptions options;
    options.cache_freed = true;
    const Status st = alloc.is_ok() ? (*alloc)->configure(options) : alloc.status();
    if (!st.is_ok()) {
      std::fprintf(stderr, "cuda_msm_bench: --cache-freed: %s\n", st.to_string().c_str());
      return 1;
    }
  }
  ThreadPool pool;
  std::mt19937_64 rng(std::random_device{}());
  std::vector<Row> rows;
  const auto wanted = [&](const char* g) {
    return ("," + groups + ",").find(std::string(",") + g + ",") != std::string::npos;
  };
  if (wanted("bls12_381_g1")) {
    bench_group<bls12_381::G1Config>("bls12_381 G1",
                                     extra(extra({{Mix::kUniform, 20, "20.4"},
                                                  {Mix::kUniform, 22, "52.9"},
                                                  {Mix::kUniform, 24, "154.4"},
                                                  {Mix::kUniform, 26, "566"},
                                                  {Mix::kUniform, 27, ""},  // with --max-log 27: the 2^27 H MSM
                                                  {Mix::kWitness, 22, "17.4"}},
                                                 {{22, "52.9"}, {24, "154.4"}, {26, "566"}}, true),
                                           {{27, ""}}, false),  // the sweep only: no table fits
                                     accumulations, max_log, runs, pool, rng, *stream, rows);
  }
  if (wanted("bn254_g1")) {
    bench_group<bn254::G1Config>(
        "bn254 G1",
        extra({{Mix::kUniform, 20, "12.5"}, {Mix::kUniform, 22, "26.6"}, {Mix::kUniform, 24, "78.5"}}, {{24, "78.5"}},
              true),
        accumulations, max_log, runs, pool, rng, *stream, rows);
  }
  sweep = g2_sweep;  // G2: its own sweep, at 2^20 and 2^22
  if (wanted("bls12_381_g2")) {
    std::vector<Case> g2 =
        extra({{Mix::kUniform, 20, "46.6"}, {Mix::kUniform, 22, "137.5"}, {Mix::kWitness, 22, "40.8"}}, {{20, "46.6"}},
              false);
    g2 = extra(g2, {{22, "137.5"}}, true);
    bench_group<bls12_381::G2Config>("bls12_381 G2", g2, accumulations, max_log, runs, pool, rng, *stream, rows);
  }
  if (wanted("bn254_g2")) {
    bench_group<bn254::G2Config>("bn254 G2", {{Mix::kUniform, 20, ""}}, accumulations, max_log, runs, pool, rng,
                                 *stream, rows);
  }

  std::printf("command: ");
  for (int i = 0; i < argc; ++i) std::printf("%s%s", i ? " " : "", argv[i]);
  std::printf(
      "\ndevice: %s (%d SMs); whole Msm::run, inputs on the device, median of %d after a warm-up, CUDA "
      "events; every timed result checked against the CPU oracle; scratch %s\n\n",
      info->name.c_str(), info->sm_count, runs,
      cache_freed ? "from blocks the allocator keeps (--cache-freed)" : "allocated and freed by every run");
  std::printf(
      "| group | scalars | n | mode | median ms | min ms | ns/point | sppark ms | c x windows (group) | ones / rest | "
      "scratch peak MiB | scratch_bytes MiB | table MiB | build ms | checked |\n");
  std::printf("|---|---|---:|---|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---|\n");
  int status = 0;
  for (const Row& r : rows) {
    const double n = double(size_t(1) << r.log_n);
    std::printf(
        "| %s | %s | 2^%u | %s | %.2f | %.2f | %.2f | %s | %u x %u (%u) | %zu / %zu | %.0f | %.0f | %.0f | %.0f | %s "
        "|\n",
        r.group.c_str(), r.mix.c_str(), r.log_n, r.mode.c_str(), r.median_ms, r.min_ms, r.median_ms * 1e6 / n,
        r.peer.c_str(), r.stats.window_bits, r.stats.windows, r.stats.windows_per_group, r.stats.ones, r.stats.rest,
        double(r.scratch_peak) / (1 << 20), double(r.scratch_bound) / (1 << 20), r.table_mib, r.build_ms,
        r.ok ? "yes" : r.note.c_str());
    if (!r.ok) status = 1;
  }
  std::printf("\nStages of one more run of each (CUDA events; split includes the wait for its counts):\n\n");
  std::printf(
      "| group | scalars | n | mode | split ms | ones ms | digits+sort ms | accumulate ms (partial levels) | reduce ms "
      "(levels after the first) |\n");
  std::printf("|---|---|---:|---|---:|---:|---:|---:|---:|\n");
  for (const Row& r : rows) {
    const MsmStats& p = r.profile;
    std::printf("| %s | %s | 2^%u | %s | %.2f | %.2f | %.2f | %.2f (%.2f) | %.2f (%.2f) |\n", r.group.c_str(),
                r.mix.c_str(), r.log_n, r.mode.c_str(), p.split_ms, p.ones_ms, p.sort_ms, p.accumulate_ms,
                p.partials_ms, p.reduce_ms, p.reduce_tail_ms);
  }
  return status;
}

}  // namespace
}  // namespace cuzk::cuda

int main(int argc, char** argv) { return cuzk::cuda::run(argc, argv); }
