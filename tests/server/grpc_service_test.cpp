// cuzk.v1 end to end through real gRPC over a Unix socket, in one process: the engine on
// the CPU device behind ProvingService and GrpcServer, called through the generated stub.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "cuzk/v1/proving.grpc.pb.h"
#include "engine/cpu_device.hpp"
#include "engine/demo_keys.hpp"
#include "engine/engine.hpp"
#include "server/grpc_server.hpp"
#include "server/http_endpoints.hpp"
#include "server/proving_service.hpp"

namespace cuzk::server {
namespace {

using namespace std::chrono_literals;
using engine::testing::DemoKey;

class GrpcServiceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new groth16::testing::ScratchDir();
    small_ = new DemoKey(engine::testing::make_demo_key<bn254::Curve>(*dir_, "small", (1 << 10) - 5));
    bls_ = new DemoKey(engine::testing::make_demo_key<bls12_381::Curve>(*dir_, "bls", (1 << 8) - 5));
  }
  static void TearDownTestSuite() {
    delete small_;
    delete bls_;
    delete dir_;
  }

  void start(unsigned workers = 2, uint64_t max_witness = uint64_t(1) << 20) {
    engine::EngineConfig cfg;
    cfg.gpu_workers_per_device = workers;
    cfg.host_memory_bytes = uint64_t(1) << 32;
    cfg.key_cache_bytes = uint64_t(1) << 32;
    std::vector<std::unique_ptr<engine::Device>> devices;
    devices.push_back(std::make_unique<engine::CpuDevice>(0, uint64_t(1) << 32, 2));
    engine_ = std::make_unique<engine::Engine>(cfg, std::move(devices), nullptr);
    ServiceLimits limits;
    limits.max_witness_bytes = max_witness;
    service_ = std::make_unique<ProvingService>(*engine_, limits);
    ListenConfig listen;
    listen.unix_socket = dir_->file("s" + std::to_string(counter_++) + ".sock");
    listen.max_message_bytes = max_witness + (1 << 20);
    auto s = GrpcServer::start(*service_, listen);
    ASSERT_TRUE(s.is_ok()) << s.status().to_string();
    server_ = std::move(*s);
    socket_ = listen.unix_socket;
    stub_ = v1::ProvingEngine::NewStub(grpc::CreateChannel("unix:" + socket_, grpc::InsecureChannelCredentials()));
    ASSERT_TRUE(register_circuit("small", small_->zkey).ok());
  }

  // Registers and preloads a circuit through the service.
  grpc::Status register_circuit(const std::string& id, const std::string& zkey) {
    v1::RegisterCircuitRequest reg;
    reg.set_circuit_id(id);
    reg.set_zkey_path(zkey);
    reg.set_preload(true);
    v1::RegisterCircuitResponse rr;
    grpc::ClientContext ctx;
    return stub_->RegisterCircuit(&ctx, reg, &rr);
  }

  void TearDown() override {
    if (server_) server_->shutdown(1000);
    if (engine_) engine_->shutdown(0s);
  }

  v1::SubmitProofRequest request(const std::vector<uint8_t>& wtns, v1::Priority p = v1::PRIORITY_NORMAL,
                                 const std::string& circuit = "small") {
    v1::SubmitProofRequest r;
    r.set_circuit_id(circuit);
    r.set_priority(p);
    r.set_witness_wtns(std::string(wtns.begin(), wtns.end()));
    return r;
  }

  grpc::Status submit(const v1::SubmitProofRequest& r, std::string* job = nullptr, bool* dedup = nullptr) {
    grpc::ClientContext ctx;
    v1::SubmitProofResponse out;
    grpc::Status s = stub_->SubmitProof(&ctx, r, &out);
    if (job) *job = out.job_id();
    if (dedup) *dedup = out.deduplicated();
    return s;
  }

  v1::AwaitProofResponse await(const std::string& job, uint32_t timeout_ms = 60000) {
    grpc::ClientContext ctx;
    v1::AwaitProofRequest r;
    r.set_job_id(job);
    r.set_timeout_ms(timeout_ms);
    v1::AwaitProofResponse out;
    EXPECT_TRUE(stub_->AwaitProof(&ctx, r, &out).ok());
    return out;
  }

  v1::GetStatusResponse status() {
    grpc::ClientContext ctx;
    v1::GetStatusResponse out;
    EXPECT_TRUE(stub_->GetStatus(&ctx, {}, &out).ok());
    return out;
  }

  // Waits until no proof holds host or device memory.
  void expect_memory_returns_to_zero() {
    v1::GetStatusResponse s;
    for (int i = 0; i < 500; ++i) {
      s = status();
      if (s.host_memory().in_flight_bytes() == 0 && s.devices(0).vram_reserved_bytes() == 0) break;
      std::this_thread::sleep_for(10ms);
    }
    EXPECT_EQ(s.host_memory().in_flight_bytes(), 0u);
    EXPECT_EQ(s.devices(0).vram_reserved_bytes(), 0u);
  }

  static groth16::testing::ScratchDir* dir_;
  static DemoKey* small_;
  static DemoKey* bls_;
  static inline int counter_ = 0;
  std::unique_ptr<engine::Engine> engine_;
  std::unique_ptr<ProvingService> service_;
  std::unique_ptr<GrpcServer> server_;
  std::string socket_;
  std::unique_ptr<v1::ProvingEngine::Stub> stub_;
};

groth16::testing::ScratchDir* GrpcServiceTest::dir_ = nullptr;
DemoKey* GrpcServiceTest::small_ = nullptr;
DemoKey* GrpcServiceTest::bls_ = nullptr;

TEST_F(GrpcServiceTest, ProveOverTheUnixSocketReturnsAVerifiedProof) {
  start();
  struct stat st {};
  ASSERT_EQ(stat(socket_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  grpc::ClientContext ctx;
  v1::ProveRequest req;
  *req.mutable_request() = request(small_->wtns);
  v1::AwaitProofResponse r;
  ASSERT_TRUE(stub_->Prove(&ctx, req, &r).ok());
  EXPECT_EQ(r.outcome(), v1::AwaitProofResponse::COMPLETED) << r.job().error();
  EXPECT_NE(r.result().proof_json().find("pi_a"), std::string::npos);
  EXPECT_EQ(r.result().public_signals_size(), 4);
  EXPECT_EQ(r.result().curve(), "bn128");
  EXPECT_EQ(r.timings().prestage(), "ok");
  EXPECT_GT(r.timings().verify_ms(), 0);
  EXPECT_EQ(r.timings().device(), "cpu:0");
}

TEST_F(GrpcServiceTest, ManyConcurrentClientsAllComplete) {
  start();
  std::atomic<int> completed{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 8; ++c) {
    clients.emplace_back([&] {
      auto stub =
          v1::ProvingEngine::NewStub(grpc::CreateChannel("unix:" + socket_, grpc::InsecureChannelCredentials()));
      for (int i = 0; i < 2; ++i) {
        grpc::ClientContext ctx;
        v1::ProveRequest req;
        *req.mutable_request() = request(small_->wtns);
        v1::AwaitProofResponse r;
        if (stub->Prove(&ctx, req, &r).ok() && r.outcome() == v1::AwaitProofResponse::COMPLETED) ++completed;
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(completed.load(), 16);
  expect_memory_returns_to_zero();
}

TEST_F(GrpcServiceTest, CriticalBehindTwentyNormalFinishesBeforeTheQueuedOnes) {
  start(1);
  std::vector<std::string> normal(20);
  for (auto& id : normal) ASSERT_TRUE(submit(request(small_->wtns), &id).ok());
  std::string critical;
  ASSERT_TRUE(submit(request(small_->wtns, v1::PRIORITY_CRITICAL), &critical).ok());
  auto c = await(critical);
  ASSERT_EQ(c.outcome(), v1::AwaitProofResponse::COMPLETED);
  int after = 0;
  for (const auto& id : normal) {
    auto n = await(id);
    EXPECT_EQ(n.outcome(), v1::AwaitProofResponse::COMPLETED);
    after += n.job().finished_unix_ms() > c.job().finished_unix_ms();
  }
  EXPECT_GE(after, 15);
}

TEST_F(GrpcServiceTest, CancelQueuedAndRunningJobsFreesTheirMemory) {
  start(1, uint64_t(1) << 22);
  // The first job proves a circuit 32 times the size of the others, so that it is still
  // running when its cancel arrives, a few round trips after it started: with the small
  // circuit it could finish first on a fast machine (a CI run saw COMPLETED).
  auto slow = engine::testing::make_demo_key<bn254::Curve>(*dir_, "slow", (1 << 15) - 5);
  ASSERT_TRUE(register_circuit("slow", slow.zkey).ok());
  std::vector<std::string> ids(6);
  ASSERT_TRUE(submit(request(slow.wtns, v1::PRIORITY_NORMAL, "slow"), &ids[0]).ok());
  for (size_t i = 1; i < ids.size(); ++i) ASSERT_TRUE(submit(request(small_->wtns), &ids[i]).ok());
  for (const std::string& id : {ids.back(), ids.front()}) {
    grpc::ClientContext ctx;
    v1::CancelProofRequest req;
    req.set_job_id(id);
    v1::CancelProofResponse r;
    ASSERT_TRUE(stub_->CancelProof(&ctx, req, &r).ok());
    EXPECT_EQ(r.state(), v1::JOB_STATE_CANCELLED);
  }
  EXPECT_EQ(await(ids.back()).outcome(), v1::AwaitProofResponse::CANCELLED);
  EXPECT_EQ(await(ids.front()).outcome(), v1::AwaitProofResponse::CANCELLED);
  EXPECT_EQ(await(ids[3]).outcome(), v1::AwaitProofResponse::COMPLETED);
  expect_memory_returns_to_zero();
  grpc::ClientContext ctx;
  v1::CancelProofRequest unknown;
  unknown.set_job_id("job-0000");
  v1::CancelProofResponse r;
  EXPECT_EQ(stub_->CancelProof(&ctx, unknown, &r).error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(GrpcServiceTest, ResubmittingARequestIdReturnsTheSameJob) {
  start();
  auto r = request(small_->wtns);
  r.set_request_id("idem-1");
  std::string a, b;
  bool dedup = false;
  ASSERT_TRUE(submit(r, &a).ok());
  ASSERT_TRUE(submit(r, &b, &dedup).ok());
  EXPECT_EQ(a, b);
  EXPECT_TRUE(dedup);
  auto other = request(bls_->wtns);
  other.set_request_id("idem-1");
  EXPECT_EQ(submit(other).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(await(a).outcome(), v1::AwaitProofResponse::COMPLETED);
}

TEST_F(GrpcServiceTest, AwaitProofTimesOutOnAQueuedJob) {
  start(1);
  std::vector<std::string> ids(8);
  for (auto& id : ids) ASSERT_TRUE(submit(request(small_->wtns), &id).ok());
  auto t0 = std::chrono::steady_clock::now();
  auto r = await(ids.back(), 5);
  EXPECT_EQ(r.outcome(), v1::AwaitProofResponse::TIMEOUT);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
  EXPECT_EQ(await(ids.back()).outcome(), v1::AwaitProofResponse::COMPLETED);
}

TEST_F(GrpcServiceTest, BadRequestsGetTheirCodesAndTheDaemonKeepsServing) {
  start(2, 64 << 10);
  EXPECT_EQ(submit(request(small_->wtns, v1::PRIORITY_NORMAL, "unknown")).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(submit(request(bls_->wtns)).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(submit(request(std::vector<uint8_t>(500, 0xee))).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  auto other = engine::testing::make_demo_key<bn254::Curve>(*dir_, "other", (1 << 9) - 5);
  EXPECT_EQ(submit(request(other.wtns)).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  v1::SubmitProofRequest none;
  none.set_circuit_id("small");
  EXPECT_EQ(submit(none).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(submit(request(std::vector<uint8_t>(65 << 10, 1))).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);

  // Streams: truncated, longer than announced, announced beyond the limit.
  auto stream = [&](uint64_t announced, size_t sent) {
    grpc::ClientContext ctx;
    v1::SubmitProofResponse out;
    auto w = stub_->SubmitProofStream(&ctx, &out);
    v1::SubmitProofChunk first;
    first.mutable_request()->set_circuit_id("small");
    first.mutable_request()->set_witness_size(announced);
    w->Write(first);
    for (size_t off = 0; off < sent; off += 4096) {
      v1::SubmitProofChunk c;
      size_t n = std::min<size_t>(4096, sent - off);
      std::string bytes(n, 0);
      for (size_t i = 0; i < n; ++i) bytes[i] = char(off + i < small_->wtns.size() ? small_->wtns[off + i] : 0);
      c.set_witness_chunk(bytes);
      if (!w->Write(c)) break;
    }
    w->WritesDone();
    return w->Finish().error_code();
  };
  EXPECT_EQ(stream(small_->wtns.size(), small_->wtns.size() - 100), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(stream(100, 5000), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(stream(uint64_t(1) << 30, 10), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(stream(small_->wtns.size(), small_->wtns.size()), grpc::StatusCode::OK);

  // Keys: truncated, not a zkey, missing.
  auto bytes = engine::testing::read_bytes(small_->zkey);
  std::string truncated = dir_->file("t.zkey");
  engine::testing::write_bytes(truncated, std::vector<uint8_t>(bytes.begin(), bytes.begin() + 1000));
  for (auto [path, code] : {std::pair{truncated, grpc::StatusCode::INVALID_ARGUMENT},
                            {small_->wtns_path, grpc::StatusCode::INVALID_ARGUMENT},
                            {dir_->file("none.zkey"), grpc::StatusCode::NOT_FOUND}}) {
    grpc::ClientContext ctx;
    v1::RegisterCircuitRequest reg;
    reg.set_circuit_id("bad");
    reg.set_zkey_path(path);
    v1::RegisterCircuitResponse rr;
    EXPECT_EQ(stub_->RegisterCircuit(&ctx, reg, &rr).error_code(), code) << path;
  }
  v1::AwaitProofRequest aw;
  aw.set_job_id("job-nope");
  grpc::ClientContext actx;
  v1::AwaitProofResponse ar;
  EXPECT_EQ(stub_->AwaitProof(&actx, aw, &ar).error_code(), grpc::StatusCode::NOT_FOUND);

  grpc::ClientContext ctx;
  v1::ProveRequest req;
  *req.mutable_request() = request(small_->wtns);
  v1::AwaitProofResponse r;
  ASSERT_TRUE(stub_->Prove(&ctx, req, &r).ok());
  EXPECT_EQ(r.outcome(), v1::AwaitProofResponse::COMPLETED);
}

// The daemon's one range check, on every way a witness arrives: the error names the index.
TEST_F(GrpcServiceTest, UnreducedWitnessValueIsInvalidArgumentNamingItsIndexOnEveryPath) {
  start();
  constexpr size_t kValues = 76;  // value 0 of a .wtns of 32-byte values
  const size_t n = (small_->wtns.size() - kValues) / 32;
  auto by_stream = [&](const std::vector<uint8_t>& w) {
    grpc::ClientContext ctx;
    v1::SubmitProofResponse out;
    auto writer = stub_->SubmitProofStream(&ctx, &out);
    v1::SubmitProofChunk first;
    first.mutable_request()->set_circuit_id("small");
    first.mutable_request()->set_witness_size(w.size());
    writer->Write(first);
    for (size_t off = 0; off < w.size(); off += 5000) {
      v1::SubmitProofChunk c;
      c.set_witness_chunk(std::string(w.begin() + off, w.begin() + std::min(w.size(), off + 5000)));
      if (!writer->Write(c)) break;
    }
    writer->WritesDone();
    return writer->Finish();
  };
  for (size_t i : {size_t(1), n / 2, n - 1}) {
    std::vector<uint8_t> bad = small_->wtns;
    std::memset(bad.data() + kValues + 32 * i, 0xff, 32);
    const std::string want = std::string("value ").append(std::to_string(i)).append(" is not reduced below r");
    const std::string path = dir_->file(std::to_string(i).append("-bad.wtns"));
    engine::testing::write_bytes(path, bad);
    v1::SubmitProofRequest by_path;
    by_path.set_circuit_id("small");
    by_path.set_witness_path(path);
    for (const grpc::Status& st : {submit(request(bad)), by_stream(bad), submit(by_path)}) {
      EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << i;
      EXPECT_NE(st.error_message().find(want), std::string::npos) << st.error_message();
    }
  }
  std::string job;
  ASSERT_TRUE(by_stream(small_->wtns).ok());
  ASSERT_TRUE(submit(request(small_->wtns), &job).ok());
  EXPECT_EQ(await(job).outcome(), v1::AwaitProofResponse::COMPLETED);
}

// witness_path is read into memory the job owns: the client may truncate or delete the file
// as soon as SubmitProof returns, and the daemon neither crashes (SIGBUS) nor fails the job.
TEST_F(GrpcServiceTest, WitnessPathTruncatedOrDeletedAfterSubmissionStillProves) {
  start();
  std::vector<std::string> jobs;
  for (int k = 0; k < 4; ++k) {
    const std::string path = dir_->file(std::string("w").append(std::to_string(k)).append(".wtns"));
    engine::testing::write_bytes(path, small_->wtns);
    v1::SubmitProofRequest r;
    r.set_circuit_id("small");
    r.set_witness_path(path);
    std::string job;
    ASSERT_TRUE(submit(r, &job).ok());
    jobs.push_back(job);
    if (k % 2 == 0) {
      ASSERT_EQ(::truncate(path.c_str(), 100), 0);
    } else {
      ASSERT_EQ(std::remove(path.c_str()), 0);
    }
  }
  for (const auto& job : jobs) {
    auto r = await(job);
    EXPECT_EQ(r.outcome(), v1::AwaitProofResponse::COMPLETED) << r.job().error();
    EXPECT_GT(r.timings().admission_ms(), 0);
    EXPECT_GE(r.timings().total_ms(), r.timings().admission_ms());
  }
  // Files already truncated or gone when submitted: refused, and the daemon keeps serving.
  v1::SubmitProofRequest r;
  r.set_circuit_id("small");
  r.set_witness_path(dir_->file("w0.wtns"));
  EXPECT_EQ(submit(r).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  r.set_witness_path(dir_->file("w1.wtns"));
  EXPECT_EQ(submit(r).error_code(), grpc::StatusCode::NOT_FOUND);
  std::string job;
  ASSERT_TRUE(submit(request(small_->wtns), &job).ok());
  EXPECT_EQ(await(job).outcome(), v1::AwaitProofResponse::COMPLETED);
  expect_memory_returns_to_zero();
}

TEST_F(GrpcServiceTest, DrainingDaemonAnswersUnavailable) {
  start();
  engine_->shutdown(1s);
  EXPECT_EQ(submit(request(small_->wtns)).error_code(), grpc::StatusCode::UNAVAILABLE);
}

TEST_F(GrpcServiceTest, StickyDeviceFaultFailsOneJobAndTheDaemonResetsAndKeepsServing) {
  start();
  auto& cpu = static_cast<engine::CpuDevice&>(*engine_->devices()[0]);
  ASSERT_TRUE(cpu.arm_faults("sticky:1").is_ok());
  std::string job;
  ASSERT_TRUE(submit(request(small_->wtns), &job).ok());
  v1::AwaitProofResponse bad = await(job);
  EXPECT_EQ(bad.outcome(), v1::AwaitProofResponse::FAILED);
  EXPECT_NE(bad.job().error().find("sticky device fault"), std::string::npos) << bad.job().error();
  v1::GetStatusResponse s;
  for (int i = 0; i < 500; ++i) {
    s = status();
    if (s.devices(0).resets() == 1 && !s.devices(0).poisoned()) break;
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(s.devices(0).resets(), 1u);
  EXPECT_FALSE(s.devices(0).poisoned());
  EXPECT_FALSE(s.devices(0).dead());
  ASSERT_TRUE(submit(request(small_->wtns), &job).ok());
  EXPECT_EQ(await(job).outcome(), v1::AwaitProofResponse::COMPLETED);
  // The key's tier on the device, and its bytes per tier, as GetStatus and ListCircuits say.
  s = status();
  ASSERT_EQ(s.keys_size(), 1);
  ASSERT_EQ(s.keys(0).placements_size(), 1);
  EXPECT_EQ(s.keys(0).placements(0).device(), "cpu:0");
  EXPECT_EQ(s.keys(0).placements(0).tier(), v1::KEY_TIER_MAPPED);
  EXPECT_EQ(s.keys(0).mapped_bytes(), s.keys(0).bytes());
  EXPECT_EQ(s.keys(0).device_bytes(), 0u);
  grpc::ClientContext ctx;
  v1::ListCircuitsResponse lc;
  ASSERT_TRUE(stub_->ListCircuits(&ctx, {}, &lc).ok());
  ASSERT_EQ(lc.circuits_size(), 1);
  ASSERT_EQ(lc.circuits(0).placements_size(), 1);
  EXPECT_EQ(lc.circuits(0).placements(0).tier(), v1::KEY_TIER_MAPPED);
  EXPECT_NE(engine_->metrics_text().find("cuzk_device_resets_total{device=\"cpu:0\"} 1"), std::string::npos);
  expect_memory_returns_to_zero();
}

TEST_F(GrpcServiceTest, MetricsPassPromtoolAndReadyzFollowsTheSelfTest) {
  start();
  auto http = HttpEndpoints::start(*engine_, "127.0.0.1", 0);
  ASSERT_TRUE(http.is_ok()) << http.status().to_string();
  httplib::Client client("127.0.0.1", (*http)->port());
  EXPECT_EQ(client.Get("/healthz")->status, 200);
  EXPECT_EQ(client.Get("/readyz")->status, 503);
  ASSERT_TRUE(engine_->self_test("small", small_->wtns, 60s).is_ok());
  EXPECT_EQ(client.Get("/readyz")->status, 200);
  auto m = client.Get("/metrics");
  ASSERT_TRUE(m);
  EXPECT_NE(m->body.find("cuzk_gpu_compute_seconds_bucket"), std::string::npos);
  EXPECT_NE(m->body.find("cuzk_admission_seconds_bucket"), std::string::npos);
  std::string path = dir_->file("metrics.txt");
  engine::testing::write_bytes(path, std::vector<uint8_t>(m->body.begin(), m->body.end()));
  if (std::system("command -v promtool >/dev/null 2>&1") != 0) GTEST_SKIP() << "promtool not installed";
  EXPECT_EQ(std::system(("promtool check metrics < " + path).c_str()), 0) << m->body;
}

}  // namespace
}  // namespace cuzk::server
