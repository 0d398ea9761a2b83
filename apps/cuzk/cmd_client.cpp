// `cuzk client ...`: one RPC each against a running cuzk-daemon.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>

#include "cuzk/client_commands.hpp"
#include "cuzk/daemon_client.hpp"
#include "engine/memory_budget.hpp"
#include "engine/priority.hpp"

namespace cuzk::app {

namespace {

struct ClientOptions {
  DaemonAddress addr;
  // prove
  std::string circuit, wtns, proof_out, public_out, priority = "normal", request_id;
  uint32_t timeout_ms = 0;
  bool by_path = false;
  // register / evict / cancel / jobs
  std::string zkey, job, state;
  bool preload = false, unregister = false;
  uint32_t limit = 0;
};

const char* tier_name(v1::KeyTier t) {
  switch (t) {
    case v1::KEY_TIER_DISK:
      return "disk";
    case v1::KEY_TIER_MAPPED:
      return "mapped";
    case v1::KEY_TIER_PINNED_HOST:
      return "pinned_host";
    case v1::KEY_TIER_DEVICE:
      return "device";
    default:
      return "unknown";
  }
}

int rpc_failed(const char* what, const grpc::Status& s) {
  std::fprintf(stderr, "cuzk client %s: %s\n", what, describe(s).c_str());
  return 1;
}

void print_circuit(const v1::CircuitInfo& c) {
  std::printf("%-24s %-9s %8u wires  domain %-8u %-7s %10s  %s\n", c.circuit_id().c_str(), c.curve().c_str(),
              c.n_vars(), c.domain_size(), tier_name(c.tier()), engine::format_bytes(c.key_bytes()).c_str(),
              c.zkey_path().c_str());
}

void print_job(const v1::JobInfo& j) {
  std::printf("%s  %-10s %-8s %-20s %s%s%s\n", j.job_id().c_str(), v1::JobState_Name(j.state()).substr(10).c_str(),
              v1::Priority_Name(j.priority()).substr(9).c_str(), j.circuit_id().c_str(),
              j.request_id().empty() ? "" : ("request " + j.request_id() + " ").c_str(),
              j.error().empty() ? "" : "error: ", j.error().c_str());
}

bool write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text << "\n";
  return bool(out);
}

int prove(ClientOptions& o) {
  auto c = DaemonClient::connect(o.addr);
  if (!c.is_ok()) return std::fprintf(stderr, "cuzk client: %s\n", c.status().message().c_str()), 1;
  auto prio = engine::parse_priority(o.priority);
  if (!prio) return std::fprintf(stderr, "cuzk client prove: unknown priority %s\n", o.priority.c_str()), 2;
  v1::SubmitProofRequest req;
  req.set_circuit_id(o.circuit);
  req.set_request_id(o.request_id);
  req.set_priority(v1::Priority(int(*prio) + 1));
  v1::SubmitProofResponse sub;
  grpc::Status s;
  if (o.by_path) {
    req.set_witness_path(o.wtns);
    auto ctx = c->context();
    s = c->stub().SubmitProof(ctx.get(), req, &sub);
  } else {
    std::ifstream in(o.wtns, std::ios::binary);
    if (!in) return std::fprintf(stderr, "cuzk client prove: cannot read %s\n", o.wtns.c_str()), 1;
    std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    s = c->submit(req, bytes, &sub);
  }
  if (!s.ok()) return rpc_failed("prove", s);
  std::printf("job %s%s\n", sub.job_id().c_str(), sub.deduplicated() ? " (existing job for this request id)" : "");
  v1::AwaitProofRequest await;
  await.set_job_id(sub.job_id());
  v1::AwaitProofResponse r;
  do {
    await.set_timeout_ms(o.timeout_ms == 0 ? 60000 : o.timeout_ms);
    auto ctx = c->context();
    s = c->stub().AwaitProof(ctx.get(), await, &r);
    if (!s.ok()) return rpc_failed("prove", s);
  } while (o.timeout_ms == 0 && r.outcome() == v1::AwaitProofResponse::TIMEOUT);
  if (r.outcome() != v1::AwaitProofResponse::COMPLETED) {
    std::fprintf(stderr, "cuzk client prove: job %s %s%s%s\n", sub.job_id().c_str(),
                 v1::AwaitProofResponse::Outcome_Name(r.outcome()).c_str(), r.job().error().empty() ? "" : ": ",
                 r.job().error().c_str());
    return 1;
  }
  const auto& t = r.timings();
  std::printf(
      "OK on %s in %.1f ms (queue %.1f, key load %.1f, synthesis %.1f, prestage %s, compute %.1f "
      "[ntt/h %.1f, msm %.1f], verify %.1f)\n",
      t.device().c_str(), t.total_ms(), t.queue_wait_ms(), t.key_load_ms(), t.synthesis_ms(), t.prestage().c_str(),
      t.gpu_compute_ms(), t.ntt_h_ms(), t.msm_ms(), t.verify_ms());
  if (!o.proof_out.empty() && !write_text(o.proof_out, r.result().proof_json())) return 1;
  if (!o.public_out.empty() && !write_text(o.public_out, r.result().public_json())) return 1;
  if (o.proof_out.empty()) std::printf("%s\n", r.result().proof_json().c_str());
  return 0;
}

int status(ClientOptions& o) {
  auto c = DaemonClient::connect(o.addr);
  if (!c.is_ok()) return std::fprintf(stderr, "cuzk client: %s\n", c.status().message().c_str()), 1;
  v1::GetStatusResponse r;
  auto ctx = c->context(std::chrono::seconds(10));
  grpc::Status s = c->stub().GetStatus(ctx.get(), {}, &r);
  if (!s.ok()) return rpc_failed("status", s);
  std::printf("%s on %s: %s%s, %u jobs in flight\n", r.version().c_str(), c->target().c_str(),
              r.ready() ? "ready" : "NOT ready", r.draining() ? ", draining" : "", r.jobs_in_flight());
  std::printf("host memory: %s in flight of %s (peak %s); key cache %s of %s\n",
              engine::format_bytes(r.host_memory().in_flight_bytes()).c_str(),
              engine::format_bytes(r.host_memory().limit_bytes()).c_str(),
              engine::format_bytes(r.host_memory().peak_bytes()).c_str(),
              engine::format_bytes(r.key_cache_bytes()).c_str(),
              engine::format_bytes(r.key_cache_limit_bytes()).c_str());
  for (const auto& d : r.devices()) {
    std::printf(
        "device %s: %s [%s], %u/%u workers busy, memory %s reserved, %s free of %s (baseline %s), "
        "%llu ok, %llu failed, %llu prestage fallbacks, %llu resets%s\n",
        d.id().c_str(), d.name().c_str(), d.backend().c_str(), d.busy_workers(), d.workers(),
        engine::format_bytes(d.vram_reserved_bytes()).c_str(), engine::format_bytes(d.vram_free_bytes()).c_str(),
        engine::format_bytes(d.vram_total_bytes()).c_str(), engine::format_bytes(d.vram_baseline_bytes()).c_str(),
        (unsigned long long)d.proofs_completed(), (unsigned long long)d.proofs_failed(),
        (unsigned long long)d.prestage_fallbacks(), (unsigned long long)d.resets(),
        d.dead()       ? ", DEAD"
        : d.poisoned() ? ", POISONED"
                       : "");
    if (d.alloc_cache_hits() + d.alloc_cache_misses() != 0) {
      std::printf("  allocator: %s kept, %llu allocations from kept blocks, %llu cudaMalloc, %llu trims\n",
                  engine::format_bytes(d.alloc_cached_bytes()).c_str(), (unsigned long long)d.alloc_cache_hits(),
                  (unsigned long long)d.alloc_cache_misses(), (unsigned long long)d.alloc_trims());
    }
  }
  for (const auto& q : r.queues()) {
    std::printf("queue %-10s critical %u high %u normal %u low %u\n", q.stage().c_str(), q.critical(), q.high(),
                q.normal(), q.low());
  }
  for (const auto& k : r.keys()) {
    std::string where;
    for (const auto& p : k.placements()) {
      where += "; on " + p.device() + " " + tier_name(p.tier());
      if (p.device_bytes() != 0) where += " (" + engine::format_bytes(p.device_bytes()) + " there)";
    }
    std::printf("key %s: %s, %s, %u proofs holding it%s\n", k.circuit_id().c_str(), tier_name(k.tier()),
                engine::format_bytes(k.bytes()).c_str(), k.refs(), where.c_str());
  }
  v1::ListCircuitsResponse lc;
  auto ctx2 = c->context(std::chrono::seconds(10));
  if (c->stub().ListCircuits(ctx2.get(), {}, &lc).ok()) {
    for (const auto& ci : lc.circuits()) print_circuit(ci);
  }
  return 0;
}

int register_circuit(ClientOptions& o) {
  auto c = DaemonClient::connect(o.addr);
  if (!c.is_ok()) return std::fprintf(stderr, "cuzk client: %s\n", c.status().message().c_str()), 1;
  v1::RegisterCircuitRequest req;
  req.set_circuit_id(o.circuit);
  req.set_zkey_path(o.zkey);
  req.set_preload(o.preload);
  v1::RegisterCircuitResponse r;
  auto ctx = c->context();
  grpc::Status s = c->stub().RegisterCircuit(ctx.get(), req, &r);
  if (!s.ok()) return rpc_failed("register", s);
  print_circuit(r.circuit());
  return 0;
}

int preload(ClientOptions& o) {
  auto c = DaemonClient::connect(o.addr);
  if (!c.is_ok()) return std::fprintf(stderr, "cuzk client: %s\n", c.status().message().c_str()), 1;
  v1::PreloadCircuitRequest req;
  req.set_circuit_id(o.circuit);
  v1::PreloadCircuitResponse r;
  auto ctx = c->context();
  grpc::Status s = c->stub().PreloadCircuit(ctx.get(), req, &r);
  if (!s.ok()) return rpc_failed("preload", s);
  print_circuit(r.circuit());
  std::printf("loaded in %.1f ms\n", r.key_load_ms());
  return 0;
}

int evict(ClientOptions& o) {
  auto c = DaemonClient::connect(o.addr);
  if (!c.is_ok()) return std::fprintf(stderr, "cuzk client: %s\n", c.status().message().c_str()), 1;
  v1::EvictCircuitRequest req;
  req.set_circuit_id(o.circuit);
  req.set_unregister(o.unregister);
  v1::EvictCircuitResponse r;
  auto ctx = c->context();
  grpc::Status s = c->stub().EvictCircuit(ctx.get(), req, &r);
  if (!s.ok()) return rpc_failed("evict", s);
  std::printf("%s: %s%s\n", o.circuit.c_str(), r.evicted() ? "key dropped" : "key was not loaded",
              o.unregister ? ", unregistered" : "");
  return 0;
}

int cancel(ClientOptions& o) {
  auto c = DaemonClient::connect(o.addr);
  if (!c.is_ok()) return std::fprintf(stderr, "cuzk client: %s\n", c.status().message().c_str()), 1;
  v1::CancelProofRequest req;
  req.set_job_id(o.job);
  v1::CancelProofResponse r;
  auto ctx = c->context();
  grpc::Status s = c->stub().CancelProof(ctx.get(), req, &r);
  if (!s.ok()) return rpc_failed("cancel", s);
  std::printf("%s: %s%s\n", o.job.c_str(), v1::JobState_Name(r.state()).substr(10).c_str(),
              r.cancelled() ? "" : " (already finished)");
  return 0;
}

int jobs(ClientOptions& o) {
  auto c = DaemonClient::connect(o.addr);
  if (!c.is_ok()) return std::fprintf(stderr, "cuzk client: %s\n", c.status().message().c_str()), 1;
  v1::ListJobsRequest req;
  if (!o.state.empty()) {
    v1::JobState st;
    std::string name = "JOB_STATE_" + o.state;
    for (auto& ch : name) ch = char(std::toupper(uint8_t(ch)));
    if (!v1::JobState_Parse(name, &st))
      return std::fprintf(stderr, "cuzk client jobs: unknown state %s\n", o.state.c_str()), 2;
    req.set_state(st);
  }
  req.set_limit(o.limit);
  v1::ListJobsResponse r;
  auto ctx = c->context();
  grpc::Status s = c->stub().ListJobs(ctx.get(), req, &r);
  if (!s.ok()) return rpc_failed("jobs", s);
  for (const auto& j : r.jobs()) print_job(j);
  return 0;
}

}  // namespace

CLI::App* add_client_commands(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ClientOptions>();
  CLI::App* client = app.add_subcommand("client", "Talk to a running cuzk-daemon");
  client->require_subcommand(1);
  client->add_option("--daemon", o->addr.address, "socket path, unix:PATH or host:port (default: the per-user socket)");
  client->add_option("--token-file", o->addr.token_file, "bearer token for a TCP daemon");
  client->add_option("--tls-ca", o->addr.tls_ca_file, "CA certificate of a TCP daemon");

  auto on = [&exit_code, o](CLI::App* sub, int (*fn)(ClientOptions&)) {
    sub->final_callback([&exit_code, o, fn] { exit_code = fn(*o); });
  };
  auto* p = client->add_subcommand(
      "prove", "Prove a witness: cuzk client prove --circuit ID --wtns W.wtns [--proof P --public Q]");
  p->add_option("--circuit", o->circuit, "registered circuit id")->required();
  p->add_option("--wtns", o->wtns, "witness (.wtns)")->required();
  p->add_option("--proof", o->proof_out, "proof.json to write (default: print)");
  p->add_option("--public", o->public_out, "public.json to write");
  p->add_option("--priority", o->priority, "low, normal, high or critical")->capture_default_str();
  p->add_option("--request-id", o->request_id, "idempotency key: resubmitting it returns the same job");
  p->add_option("--timeout-ms", o->timeout_ms, "give up waiting after this long (0: wait)");
  p->add_flag("--by-path", o->by_path, "send the witness's path for the daemon to read (same host only)");
  on(p, prove);
  on(client->add_subcommand("status", "Queues, devices and their memory, resident keys, circuits"), status);
  auto* r = client->add_subcommand("register", "Bind a circuit id to a zkey: cuzk client register ID KEY.zkey");
  r->add_option("circuit", o->circuit, "circuit id")->required();
  r->add_option("zkey", o->zkey, "proving key path as the daemon sees it")->required();
  r->add_flag("--preload", o->preload, "load the key now");
  on(r, register_circuit);
  auto* pl = client->add_subcommand("preload", "Load a registered circuit's key now");
  pl->add_option("circuit", o->circuit, "circuit id")->required();
  on(pl, preload);
  auto* e = client->add_subcommand("evict", "Drop a circuit's loaded key");
  e->add_option("circuit", o->circuit, "circuit id")->required();
  e->add_flag("--unregister", o->unregister, "also forget the circuit id");
  on(e, evict);
  auto* c = client->add_subcommand("cancel", "Cancel a queued or running job");
  c->add_option("job", o->job, "job id")->required();
  on(c, cancel);
  auto* j = client->add_subcommand("jobs", "List jobs, newest first");
  j->add_option("--state", o->state, "queued, running, completed, failed or cancelled");
  j->add_option("--limit", o->limit, "at most this many");
  on(j, jobs);
  return client;
}

}  // namespace cuzk::app
