// A demo key and small helpers shared by the engine's fault and batching tests: engines on
// CPU devices, requests, waiting for results and checking returned proofs.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/cpu_device.hpp"
#include "engine/demo_keys.hpp"
#include "engine/engine.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/zkey.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::engine::testing {

class EngineFixture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new groth16::testing::ScratchDir();
    small_ = new DemoKey(make_demo_key<bn254::Curve>(*dir_, "small", (1 << 10) - 5));
  }
  static void TearDownTestSuite() {
    delete small_;
    delete dir_;
  }

  // An engine on `devices` CPU devices (2 threads each) with "small" registered and loaded.
  std::unique_ptr<Engine> make_engine(EngineConfig cfg, size_t devices = 1) {
    if (cfg.host_memory_bytes == 0) cfg.host_memory_bytes = uint64_t(1) << 32;
    if (cfg.key_cache_bytes == 0) cfg.key_cache_bytes = uint64_t(1) << 32;
    std::vector<std::unique_ptr<Device>> list;
    for (size_t i = 0; i < devices; ++i) list.push_back(std::make_unique<CpuDevice>(i, uint64_t(1) << 32, 2));
    auto e = std::make_unique<Engine>(cfg, std::move(list), log_sink());
    auto reg = e->register_circuit("small", small_->zkey, true);
    EXPECT_TRUE(reg.is_ok()) << reg.status().to_string();
    return e;
  }
  static CpuDevice& cpu(Engine& e, size_t i) { return static_cast<CpuDevice&>(*e.devices()[i]); }

  static SubmitRequest request(const std::string& circuit, Priority p = Priority::kNormal) {
    SubmitRequest r;
    r.circuit_id = circuit;
    r.wtns = small_->wtns;
    r.priority = p;
    return r;
  }
  static std::string submit(Engine& e, const std::string& circuit = "small", Priority p = Priority::kNormal) {
    auto s = e.submit(request(circuit, p));
    EXPECT_TRUE(s.is_ok()) << s.status().to_string();
    return s.is_ok() ? s->job_id : std::string();
  }

  static JobRecord finished(Engine& e, const std::string& job) {
    auto r = e.await(job, std::chrono::seconds(60));
    EXPECT_TRUE(r.is_ok()) << r.status().to_string();
    EXPECT_TRUE(is_terminal(r->state)) << job_state_name(r->state);
    return *r;
  }

  // The returned proof checks against the key's own verification key.
  static void expect_verifies(const JobRecord& rec) {
    ASSERT_EQ(rec.state, JobState::kCompleted) << rec.error.to_string();
    auto zkey = formats::Zkey<bn254::Curve>::open(small_->zkey);
    ASSERT_TRUE(zkey.is_ok());
    const auto& h = zkey->header();
    auto vk = groth16::make_verifying_key<bn254::Curve>(h.alpha1, h.beta2, h.gamma2, h.delta2, zkey->ic());
    auto proof = formats::proof_from_json<bn254::Curve>(*formats::Json::parse(rec.result.proof_json), "proof");
    ASSERT_TRUE(proof.is_ok()) << proof.status().to_string();
    auto pub = formats::public_from_json<bn254::Fr>(*formats::Json::parse(rec.result.public_json), "public");
    ASSERT_TRUE(pub.is_ok());
    std::vector<bn254::Fr::Int> ints;
    for (const auto& f : *pub) ints.push_back(f.to_canonical());
    EXPECT_TRUE(groth16::verify<bn254::Curve>(vk, *proof, ints).is_ok());
  }

  // Polls `done` for up to 30 s.
  template <class F>
  static bool eventually(F done) {
    for (int i = 0; i < 3000; ++i) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return done();
  }

  // Keeps the engine's log lines for logged(); CUZK_TEST_LOG=1 also prints them on stderr.
  LogSink log_sink() {
    return [this](LogLevel, const std::string& line) {
      std::lock_guard lock(log_mu_);
      log_.push_back(line);
      if (std::getenv("CUZK_TEST_LOG") != nullptr) std::fprintf(stderr, "log: %s\n", line.c_str());
    };
  }

  bool logged(const std::string& part) {
    std::lock_guard lock(log_mu_);
    for (const auto& l : log_) {
      if (l.find(part) != std::string::npos) return true;
    }
    return false;
  }

  static groth16::testing::ScratchDir* dir_;
  static DemoKey* small_;
  std::mutex log_mu_;
  std::vector<std::string> log_;
};

inline groth16::testing::ScratchDir* EngineFixture::dir_ = nullptr;
inline DemoKey* EngineFixture::small_ = nullptr;

}  // namespace cuzk::engine::testing
