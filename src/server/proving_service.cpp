#include "server/proving_service.hpp"

#include <cstring>

#include "ff/fields.hpp"
#include "formats/wtns.hpp"
#include "formats/wtns_buffer.hpp"
#include "server/proto_convert.hpp"

namespace cuzk::server {

namespace {

grpc::Status invalid(const std::string& m) { return {grpc::StatusCode::INVALID_ARGUMENT, m}; }

// The range check for the circuit's field, run by read_file as it reads (none for a circuit
// it does not know: admission refuses that before looking at the witness).
std::optional<formats::ValueScan> value_scan_for(const engine::Engine& engine, const std::string& circuit_id) {
  auto info = engine.circuit(circuit_id);
  if (!info.is_ok()) return std::nullopt;
  if (info->shape.curve == formats::CurveId::kBn254) return formats::wtns_value_scan<bn254::Fr>();
  return formats::wtns_value_scan<bls12_381::Fr>();
}

}  // namespace

grpc::Status ProvingService::admit(const v1::SubmitProofRequest& req, formats::WtnsBuffer wtns,
                                   Clock::time_point received_at, v1::SubmitProofResponse* out) {
  engine::SubmitRequest r;
  r.request_id = req.request_id();
  r.circuit_id = req.circuit_id();
  r.priority = from_proto(req.priority());
  r.wtns_buffer = std::make_shared<formats::WtnsBuffer>(std::move(wtns));
  r.received_at = received_at;
  auto s = engine_.submit(r);
  if (!s.is_ok()) return to_grpc(s.status());
  out->set_job_id(s->job_id);
  out->set_deduplicated(s->deduplicated);
  return grpc::Status::OK;
}

grpc::Status ProvingService::submit_unary(grpc::ServerContext* ctx, v1::SubmitProofRequest& req,
                                          v1::SubmitProofResponse* out) {
  const auto received_at = Clock::now();
  switch (req.witness_case()) {
    case v1::SubmitProofRequest::kWitnessWtns: {
      if (req.witness_wtns().size() > limits_.max_witness_bytes) {
        return {grpc::StatusCode::RESOURCE_EXHAUSTED, "witness of " + std::to_string(req.witness_wtns().size()) +
                                                          " bytes exceeds max_witness_bytes " +
                                                          std::to_string(limits_.max_witness_bytes)};
      }
      // The job takes the message's bytes over: no copy.
      return admit(req, formats::WtnsBuffer::adopt(std::move(*req.mutable_witness_wtns())), received_at, out);
    }
    case v1::SubmitProofRequest::kWitnessPath: {
      if (!limits_.allow_witness_path) {
        return invalid("this daemon does not read witness files (allow_witness_path = false); send the bytes");
      }
      // Only a client on this host (the Unix socket) names files the daemon can read.
      if (ctx->peer().rfind("unix:", 0) != 0) {
        return invalid("witness_path is accepted on the Unix socket only; send the bytes over TCP");
      }
      // Read into memory the job owns, not mapped: the client may truncate or delete the file
      // while the proof runs, and a truncated mapping would crash the daemon (SIGBUS).
      const auto scan = value_scan_for(engine_, req.circuit_id());
      auto file = formats::WtnsBuffer::read_file(req.witness_path(), limits_.max_witness_bytes, engine_.intake_pool(),
                                                 scan ? &*scan : nullptr, &buffers_);
      if (!file.is_ok()) return to_grpc(file.status());
      return admit(req, std::move(file).value(), received_at, out);
    }
    default:
      return invalid("no witness: set witness_wtns or witness_path");
  }
}

// gRPC's synchronous handlers see their request as const, but the message is the call's own
// (gRPC creates it for this call and destroys it after the handler returns): moving its
// witness bytes out into the job is safe and saves a copy of up to a GiB.
grpc::Status ProvingService::SubmitProof(grpc::ServerContext* ctx, const v1::SubmitProofRequest* req,
                                         v1::SubmitProofResponse* out) {
  return submit_unary(ctx, const_cast<v1::SubmitProofRequest&>(*req), out);
}

grpc::Status ProvingService::SubmitProofStream(grpc::ServerContext* ctx,
                                               grpc::ServerReader<v1::SubmitProofChunk>* reader,
                                               v1::SubmitProofResponse* out) {
  v1::SubmitProofChunk chunk;
  if (!reader->Read(&chunk)) return invalid("empty stream: the first chunk must carry the request");
  const auto received_at = Clock::now();
  if (chunk.part_case() != v1::SubmitProofChunk::kRequest) {
    return invalid("the first chunk must carry the request, not witness bytes");
  }
  v1::SubmitProofRequest req = std::move(*chunk.mutable_request());
  if (req.witness_case() != v1::SubmitProofRequest::WITNESS_NOT_SET) {
    return submit_unary(ctx, req, out);
  }
  const uint64_t size = req.witness_size();
  if (size == 0) return invalid("witness_size must give the .wtns size the chunks carry");
  if (size > limits_.max_witness_bytes) {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED, "witness_size " + std::to_string(size) +
                                                      " exceeds max_witness_bytes " +
                                                      std::to_string(limits_.max_witness_bytes)};
  }
  // The chunks go straight into the buffer the job keeps (its values aligned there); a reused
  // one is overwritten in full or refused below as truncated.
  auto buf = formats::WtnsBuffer::allocate(size_t(size), formats::WtnsBuffer::kValuesOffset, &buffers_);
  if (!buf.is_ok()) return to_grpc(buf.status());
  size_t got = 0;
  while (reader->Read(&chunk)) {
    if (chunk.part_case() != v1::SubmitProofChunk::kWitnessChunk)
      return invalid("a second request chunk in the stream");
    const std::string& part = chunk.witness_chunk();
    if (got + part.size() > size) {
      return invalid("the stream carries more than witness_size = " + std::to_string(size) + " bytes");
    }
    std::memcpy(buf->data() + got, part.data(), part.size());
    got += part.size();
  }
  if (got != size) {
    return invalid("truncated stream: " + std::to_string(got) + " of witness_size = " + std::to_string(size) +
                   " bytes arrived");
  }
  return admit(req, std::move(buf).value(), received_at, out);
}

grpc::Status ProvingService::await_job(grpc::ServerContext* ctx, const std::string& job_id, uint32_t timeout_ms,
                                       v1::AwaitProofResponse* out) {
  const bool forever = timeout_ms == 0;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    // Short slices, so a client that goes away frees its handler thread.
    auto slice = std::chrono::milliseconds(200);
    if (!forever) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      slice = std::max(std::chrono::milliseconds(0), std::min(slice, left));
    }
    auto rec = engine_.await(job_id, slice);
    if (!rec.is_ok()) return to_grpc(rec.status());
    if (engine::is_terminal(rec->state) || (!forever && Clock::now() >= deadline) || ctx->IsCancelled()) {
      fill_await(*rec, *out);
      return grpc::Status::OK;
    }
  }
}

grpc::Status ProvingService::AwaitProof(grpc::ServerContext* ctx, const v1::AwaitProofRequest* req,
                                        v1::AwaitProofResponse* out) {
  if (req->timeout_ms() == 0) {
    auto rec = engine_.await(req->job_id(), std::chrono::milliseconds(0));
    if (!rec.is_ok()) return to_grpc(rec.status());
    fill_await(*rec, *out);
    return grpc::Status::OK;
  }
  return await_job(ctx, req->job_id(), req->timeout_ms(), out);
}

grpc::Status ProvingService::Prove(grpc::ServerContext* ctx, const v1::ProveRequest* req, v1::AwaitProofResponse* out) {
  v1::SubmitProofResponse submitted;
  // The call's own message, as in SubmitProof.
  grpc::Status s = submit_unary(ctx, *const_cast<v1::ProveRequest&>(*req).mutable_request(), &submitted);
  if (!s.ok()) return s;
  return await_job(ctx, submitted.job_id(), req->timeout_ms(), out);
}

grpc::Status ProvingService::CancelProof(grpc::ServerContext*, const v1::CancelProofRequest* req,
                                         v1::CancelProofResponse* out) {
  auto before = engine_.await(req->job_id(), std::chrono::milliseconds(0));
  if (!before.is_ok()) return to_grpc(before.status());
  auto after = engine_.cancel(req->job_id());
  if (!after.is_ok()) return to_grpc(after.status());
  out->set_state(to_proto(*after));
  out->set_cancelled(!engine::is_terminal(before->state) && *after == engine::JobState::kCancelled);
  return grpc::Status::OK;
}

grpc::Status ProvingService::ListJobs(grpc::ServerContext*, const v1::ListJobsRequest* req, v1::ListJobsResponse* out) {
  std::optional<engine::JobState> state;
  switch (req->state()) {
    case v1::JOB_STATE_QUEUED:
      state = engine::JobState::kQueued;
      break;
    case v1::JOB_STATE_RUNNING:
      state = engine::JobState::kRunning;
      break;
    case v1::JOB_STATE_COMPLETED:
      state = engine::JobState::kCompleted;
      break;
    case v1::JOB_STATE_FAILED:
      state = engine::JobState::kFailed;
      break;
    case v1::JOB_STATE_CANCELLED:
      state = engine::JobState::kCancelled;
      break;
    default:
      break;
  }
  for (const auto& j : engine_.jobs(state, req->limit())) fill(j, *out->add_jobs());
  return grpc::Status::OK;
}

grpc::Status ProvingService::GetStatus(grpc::ServerContext*, const v1::GetStatusRequest*, v1::GetStatusResponse* out) {
  fill(engine_.status(), *out);
  out->set_version(limits_.version);
  return grpc::Status::OK;
}

grpc::Status ProvingService::GetMetrics(grpc::ServerContext*, const v1::GetMetricsRequest*,
                                        v1::GetMetricsResponse* out) {
  out->set_prometheus_text(engine_.metrics_text());
  return grpc::Status::OK;
}

grpc::Status ProvingService::RegisterCircuit(grpc::ServerContext*, const v1::RegisterCircuitRequest* req,
                                             v1::RegisterCircuitResponse* out) {
  auto c = engine_.register_circuit(req->circuit_id(), req->zkey_path(), req->preload());
  if (!c.is_ok()) return to_grpc(c.status());
  fill(*c, *out->mutable_circuit());
  return grpc::Status::OK;
}

grpc::Status ProvingService::ListCircuits(grpc::ServerContext*, const v1::ListCircuitsRequest*,
                                          v1::ListCircuitsResponse* out) {
  for (const auto& c : engine_.circuits()) fill(c, *out->add_circuits());
  return grpc::Status::OK;
}

grpc::Status ProvingService::EvictCircuit(grpc::ServerContext*, const v1::EvictCircuitRequest* req,
                                          v1::EvictCircuitResponse* out) {
  auto e = engine_.evict(req->circuit_id(), req->unregister());
  if (!e.is_ok()) return to_grpc(e.status());
  out->set_evicted(*e);
  return grpc::Status::OK;
}

grpc::Status ProvingService::PreloadCircuit(grpc::ServerContext*, const v1::PreloadCircuitRequest* req,
                                            v1::PreloadCircuitResponse* out) {
  auto ms = engine_.preload(req->circuit_id());
  if (!ms.is_ok()) return to_grpc(ms.status());
  out->set_key_load_ms(*ms);
  auto c = engine_.circuit(req->circuit_id());
  if (c.is_ok()) fill(*c, *out->mutable_circuit());
  return grpc::Status::OK;
}

}  // namespace cuzk::server
