// Between the engine's types and the cuzk.v1 messages, and from engine Status to the gRPC
// code a client acts on (bad input, not found, retry later, draining, fault).
#pragma once

#include <grpcpp/support/status.h>

#include "cuzk/v1/proving.pb.h"
#include "engine/engine.hpp"

namespace cuzk::server {

grpc::Status to_grpc(const Status& s);
const char* grpc_code_name(grpc::StatusCode code);

engine::Priority from_proto(v1::Priority p);
v1::Priority to_proto(engine::Priority p);
v1::JobState to_proto(engine::JobState s);
v1::KeyTier to_proto(engine::KeyTier t);

void fill(const engine::JobRecord& r, v1::JobInfo& out);
void fill(const engine::ProofTimings& t, v1::ProofTimings& out);
void fill(const engine::ProofResult& r, v1::ProofResult& out);
void fill(const engine::KeyPlacement& p, v1::KeyPlacement& out);
void fill(const engine::CircuitInfo& c, v1::CircuitInfo& out);
void fill(const engine::EngineStatus& s, v1::GetStatusResponse& out);
// An AwaitProof answer from the job as it stands (TIMEOUT while it is not finished).
void fill_await(const engine::JobRecord& r, v1::AwaitProofResponse& out);

}  // namespace cuzk::server
