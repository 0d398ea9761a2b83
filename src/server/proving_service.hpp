// cuzk.v1.ProvingEngine on top of an Engine. Handlers only translate: every decision
// (admission, scheduling, memory) is the engine's. Handlers that wait (AwaitProof, Prove)
// wait on the job table, never on a device worker.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "cuzk/v1/proving.grpc.pb.h"
#include "engine/engine.hpp"
#include "formats/wtns_buffer.hpp"

namespace cuzk::server {

struct ServiceLimits {
  uint64_t max_witness_bytes = uint64_t(1) << 30;  // larger witnesses: RESOURCE_EXHAUSTED
  bool allow_witness_path = true;                  // accept SubmitProofRequest.witness_path
  // Idle witness buffers kept for the next proof's file or stream (WtnsBufferPool); 0: none.
  uint64_t idle_witness_bytes = uint64_t(2) << 30;
  std::string version;
};

class ProvingService final : public v1::ProvingEngine::Service {
 public:
  ProvingService(engine::Engine& engine, ServiceLimits limits)
      : engine_(engine), limits_(std::move(limits)), buffers_(limits_.idle_witness_bytes) {}

  grpc::Status SubmitProof(grpc::ServerContext*, const v1::SubmitProofRequest*, v1::SubmitProofResponse*) override;
  grpc::Status SubmitProofStream(grpc::ServerContext*, grpc::ServerReader<v1::SubmitProofChunk>*,
                                 v1::SubmitProofResponse*) override;
  grpc::Status AwaitProof(grpc::ServerContext*, const v1::AwaitProofRequest*, v1::AwaitProofResponse*) override;
  grpc::Status Prove(grpc::ServerContext*, const v1::ProveRequest*, v1::AwaitProofResponse*) override;
  grpc::Status CancelProof(grpc::ServerContext*, const v1::CancelProofRequest*, v1::CancelProofResponse*) override;
  grpc::Status ListJobs(grpc::ServerContext*, const v1::ListJobsRequest*, v1::ListJobsResponse*) override;
  grpc::Status GetStatus(grpc::ServerContext*, const v1::GetStatusRequest*, v1::GetStatusResponse*) override;
  grpc::Status GetMetrics(grpc::ServerContext*, const v1::GetMetricsRequest*, v1::GetMetricsResponse*) override;
  grpc::Status RegisterCircuit(grpc::ServerContext*, const v1::RegisterCircuitRequest*,
                               v1::RegisterCircuitResponse*) override;
  grpc::Status ListCircuits(grpc::ServerContext*, const v1::ListCircuitsRequest*, v1::ListCircuitsResponse*) override;
  grpc::Status EvictCircuit(grpc::ServerContext*, const v1::EvictCircuitRequest*, v1::EvictCircuitResponse*) override;
  grpc::Status PreloadCircuit(grpc::ServerContext*, const v1::PreloadCircuitRequest*,
                              v1::PreloadCircuitResponse*) override;

 private:
  using Clock = std::chrono::steady_clock;

  // Admits `req` with its witness `wtns` (read from the request, file or stream since
  // `received_at`), which the job takes over.
  grpc::Status admit(const v1::SubmitProofRequest& req, formats::WtnsBuffer wtns, Clock::time_point received_at,
                     v1::SubmitProofResponse* out);
  // May move the witness bytes out of `req`.
  grpc::Status submit_unary(grpc::ServerContext* ctx, v1::SubmitProofRequest& req, v1::SubmitProofResponse* out);
  // Waits for the job until `timeout_ms` (0: until it finishes or the client goes away).
  grpc::Status await_job(grpc::ServerContext* ctx, const std::string& job_id, uint32_t timeout_ms,
                         v1::AwaitProofResponse* out);

  engine::Engine& engine_;
  const ServiceLimits limits_;
  // Jobs may outlive the service: their buffers then unmap instead of coming back.
  formats::WtnsBufferPool buffers_;
};

}  // namespace cuzk::server
