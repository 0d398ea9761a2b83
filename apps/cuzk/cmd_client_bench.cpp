// `cuzk bench --daemon ADDR --circuit ID --count N --concurrency J [--priority P]`: a stream
// of proofs through a running daemon, one line per proof, then the steady-state seconds per
// proof, latency percentiles, and each device's memory before and after (a leak shows).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>
#include <vector>

#include "cuzk/client_commands.hpp"
#include "cuzk/daemon_client.hpp"
#include "cuzk/util.hpp"
#include "engine/memory_budget.hpp"
#include "engine/priority.hpp"

namespace cuzk::app {

namespace {

using Clock = std::chrono::steady_clock;

void print_memory(DaemonClient& c, const char* when) {
  v1::GetStatusResponse r;
  auto ctx = c.context(std::chrono::seconds(10));
  if (!c.stub().GetStatus(ctx.get(), {}, &r).ok()) return;
  for (const auto& d : r.devices()) {
    std::printf("memory %-6s %s: %s reserved, %s free of %s (idle baseline %s)\n", when, d.id().c_str(),
                engine::format_bytes(d.vram_reserved_bytes()).c_str(),
                engine::format_bytes(d.vram_free_bytes()).c_str(), engine::format_bytes(d.vram_total_bytes()).c_str(),
                engine::format_bytes(d.vram_baseline_bytes()).c_str());
  }
  std::printf("memory %-6s host: %s in flight of %s\n", when,
              engine::format_bytes(r.host_memory().in_flight_bytes()).c_str(),
              engine::format_bytes(r.host_memory().limit_bytes()).c_str());
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = size_t(q * double(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

}  // namespace

int cmd_bench_daemon(const DaemonBenchArgs& a) {
  auto prio = engine::parse_priority(a.priority);
  if (!prio) return std::fprintf(stderr, "cuzk bench: unknown priority %s\n", a.priority.c_str()), 2;
  if (a.count < 1 || a.concurrency < 1)
    return std::fprintf(stderr, "cuzk bench: --count and --concurrency must be >= 1\n"), 2;
  auto client = DaemonClient::connect({a.daemon, a.token_file, a.tls_ca_file});
  if (!client.is_ok()) return fail(client.status(), "bench");

  std::string wtns_path = a.wtns;
  if (wtns_path.empty()) {
    // The built-in demo circuit: built (or found) in the cache, then registered under --circuit.
    ThreadPool pool = make_pool(0);
    auto files = ensure_demo_files(a.curve, a.demo_constraints, a.cache, a.setup_backend, pool);
    if (!files.is_ok()) return fail(files.status(), "bench");
    v1::RegisterCircuitRequest req;
    req.set_circuit_id(a.circuit);
    req.set_zkey_path(files->zkey);
    req.set_preload(true);
    v1::RegisterCircuitResponse r;
    auto ctx = client->context();
    grpc::Status s = client->stub().RegisterCircuit(ctx.get(), req, &r);
    if (!s.ok())
      return std::fprintf(stderr, "cuzk bench: register %s: %s\n", a.circuit.c_str(), describe(s).c_str()), 1;
    std::printf("registered the demo circuit as \"%s\": %s (%u wires, domain %u)\n", a.circuit.c_str(),
                files->zkey.c_str(), r.circuit().n_vars(), r.circuit().domain_size());
    wtns_path = files->wtns;
  }
  std::vector<uint8_t> wtns;
  if (a.witness_path) {
    std::error_code ec;
    auto abs = std::filesystem::absolute(wtns_path, ec);
    if (ec || !std::filesystem::is_regular_file(abs, ec))
      return std::fprintf(stderr, "cuzk bench: %s is not a readable file\n", wtns_path.c_str()), 1;
    wtns_path = abs.string();
  } else {
    std::ifstream in(wtns_path, std::ios::binary);
    if (!in) return std::fprintf(stderr, "cuzk bench: cannot read %s\n", wtns_path.c_str()), 1;
    wtns.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  std::printf("cuzk bench: %d proofs of \"%s\" on %s, concurrency %d, priority %s, witness %s\n", a.count,
              a.circuit.c_str(), client->target().c_str(), a.concurrency, engine::priority_name(*prio),
              a.witness_path ? ("by path " + wtns_path).c_str() : ("bytes (" + engine::format_bytes(wtns.size()) + ")").c_str());
  print_memory(*client, "before");
  std::fflush(stdout);

  std::atomic<int> next{0};
  std::mutex mu;
  std::vector<double> latencies;
  std::vector<Clock::time_point> done_at;
  int failures = 0;
  const auto start = Clock::now();
  auto worker = [&] {
    for (int i = next++; i < a.count; i = next++) {
      auto t0 = Clock::now();
      v1::SubmitProofRequest req;
      req.set_circuit_id(a.circuit);
      req.set_priority(v1::Priority(int(*prio) + 1));
      if (a.witness_path) req.set_witness_path(wtns_path);
      v1::SubmitProofResponse sub;
      grpc::Status s = client->submit(req, wtns, &sub);
      const double submit_secs = std::chrono::duration<double>(Clock::now() - t0).count();
      std::string error;
      if (!s.ok()) {
        error = describe(s);
      } else {
        v1::AwaitProofRequest await;
        await.set_job_id(sub.job_id());
        await.set_timeout_ms(60000);
        v1::AwaitProofResponse r;
        do {
          auto ctx = client->context();
          s = client->stub().AwaitProof(ctx.get(), await, &r);
        } while (s.ok() && r.outcome() == v1::AwaitProofResponse::TIMEOUT);
        if (!s.ok()) {
          error = describe(s);
        } else if (r.outcome() != v1::AwaitProofResponse::COMPLETED) {
          error = v1::AwaitProofResponse::Outcome_Name(r.outcome()) +
                  (r.job().error().empty() ? "" : ": " + r.job().error());
        }
      }
      double secs = std::chrono::duration<double>(Clock::now() - t0).count();
      std::lock_guard lock(mu);
      if (error.empty()) {
        std::printf("[%d/%d] OK %.2fs (submit %.2fs)\n", i + 1, a.count, secs, submit_secs);
        latencies.push_back(secs);
        done_at.push_back(Clock::now());
      } else {
        std::printf("[%d/%d] FAILED %.1fs: %s\n", i + 1, a.count, secs, error.c_str());
        ++failures;
      }
      std::fflush(stdout);
    }
  };
  std::vector<std::thread> threads;
  for (int j = 0; j < a.concurrency; ++j) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();

  std::sort(done_at.begin(), done_at.end());
  // Steady state: between the first and the last completion, so start-up is left out.
  double steady = done_at.size() >= 2 ? std::chrono::duration<double>(done_at.back() - done_at.front()).count() /
                                            double(done_at.size() - 1)
                                      : wall;
  std::printf("%d/%d OK in %.2f s; steady state %.3f s/proof (%.2f proofs/s)\n", a.count - failures, a.count, wall,
              steady, steady > 0 ? 1 / steady : 0.0);
  std::printf("latency p50 %.3f s, p90 %.3f s, p99 %.3f s, max %.3f s\n", percentile(latencies, 0.5),
              percentile(latencies, 0.9), percentile(latencies, 0.99), percentile(latencies, 1.0));
  print_memory(*client, "after");
  return failures == 0 ? 0 : 1;
}

}  // namespace cuzk::app
