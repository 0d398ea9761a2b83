#include "engine/admission.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/thread_pool.hpp"

namespace cuzk::engine {

namespace {

uint64_t mix64(uint64_t x) {  // splitmix64's finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

uint64_t payload_digest(const std::string& circuit_id, std::span<const uint8_t> wtns, ThreadPool* pool) {
  // Four independent multiply-rotate lanes over 8-byte words, several GB/s on one core, over
  // 4 MiB blocks hashed apart (on the pool's threads) and folded in order: the same digest on
  // any number of threads, and a 512 MiB witness no longer ~0.1 s on the submitting thread.
  constexpr size_t kBlock = size_t(4) << 20;
  constexpr uint64_t kP = 0x9e3779b97f4a7c15ull;
  auto lanes = [](std::span<const uint8_t> bytes, uint64_t seed) {
    uint64_t lane[4] = {0x243f6a8885a308d3ull ^ seed, 0x13198a2e03707344ull, 0xa4093822299f31d0ull,
                        0x082efa98ec4e6c89ull};
    auto absorb = [&](uint64_t& h, uint64_t w) {
      h = (h ^ w) * kP;
      h = (h << 31) | (h >> 33);
    };
    const uint8_t* p = bytes.data();
    size_t n = bytes.size(), i = 0;
    for (; i + 32 <= n; i += 32) {
      uint64_t w[4];
      std::memcpy(w, p + i, 32);
      for (int k = 0; k < 4; ++k) absorb(lane[k], w[k]);
    }
    for (; i < n; ++i) absorb(lane[i & 3], p[i]);
    return mix64(mix64(lane[0]) ^ mix64(lane[1] + 1) ^ mix64(lane[2] + 2) ^ mix64(lane[3] + 3) ^ n);
  };
  const size_t blocks = (wtns.size() + kBlock - 1) / kBlock;
  std::vector<uint64_t> block(blocks);
  auto hash_blocks = [&](size_t lo, size_t hi) {
    for (size_t b = lo; b < hi; ++b)
      block[b] = lanes(wtns.subspan(b * kBlock, std::min(kBlock, wtns.size() - b * kBlock)), b);
  };
  if (pool != nullptr) {
    pool->parallel_for(0, blocks, hash_blocks);
  } else {
    hash_blocks(0, blocks);
  }
  uint64_t d = lanes({reinterpret_cast<const uint8_t*>(circuit_id.data()), circuit_id.size()}, ~uint64_t(0));
  for (uint64_t h : block) d = mix64(d ^ h) + kP;
  return mix64(d ^ wtns.size());
}

Admission::Admission(Pipeline& p) : p_(p), id_rng_(std::random_device{}()) {}

ThreadPool* Admission::intake_pool(std::optional<size_t> device) const {
  for (Device* d : p_.devices) {
    if (!device || d->index() == *device) return &d->host_pool();
  }
  return nullptr;
}

std::string Admission::next_job_id() {
  std::lock_guard lock(id_mu_);
  char buf[24];
  std::snprintf(buf, sizeof buf, "job-%016llx", static_cast<unsigned long long>(id_rng_()));
  return buf;
}

Result<Submitted> Admission::submit(const SubmitRequest& r) {
  const auto started = r.received_at.value_or(PendingProof::Clock::now());
  if (draining_) return Status(StatusCode::kUnavailable, "the daemon is shutting down and admits no new proofs");
  CUZK_RETURN_IF_ERROR(check_circuit_id(r.circuit_id));
  CUZK_ASSIGN_OR_RETURN(CircuitInfo circuit, p_.keys.info(r.circuit_id));
  formats::WtnsBuffer wtns;
  if (r.wtns_buffer) {
    wtns = std::move(*r.wtns_buffer);
  } else {
    CUZK_ASSIGN_OR_RETURN(wtns, formats::WtnsBuffer::copy_of(r.wtns));
  }
  // Only an idempotent resubmission (same request_id) is compared against it; taken before
  // decoding, which may move the values within the buffer.
  ThreadPool* pool = intake_pool(r.pinned_device);
  const uint64_t digest = r.request_id.empty() ? 0 : payload_digest(r.circuit_id, wtns.bytes(), pool);
  CUZK_ASSIGN_OR_RETURN(auto witness, decode_witness(circuit.shape, std::move(wtns), pool));

  // Could it ever fit? Then it is worth queueing; otherwise say so now.
  const uint64_t work = 3 * circuit.shape.domain_bytes();
  if (!p_.host.can_ever_fit(witness->bytes() + work, r.priority)) {
    return Status(StatusCode::kResourceExhausted,
                  "circuit " + r.circuit_id + ": a proof needs " + format_bytes(witness->bytes() + work) +
                      " of host memory, the budget allows " + format_bytes(p_.host.limit()));
  }
  bool fits_a_device = false;
  for (Device* d : p_.devices) {
    if (r.pinned_device && d->index() != *r.pinned_device) continue;
    const BackendBytes b = d->index() < circuit.device_bytes.size() ? circuit.device_bytes[d->index()] : BackendBytes{};
    fits_a_device |=
        d->memory().can_ever_fit(d->stage_bytes(circuit.shape, b.upload, b.compute).fallback_path(), r.priority);
  }
  if (!fits_a_device) {
    return Status(
        StatusCode::kResourceExhausted,
        "circuit " + r.circuit_id + ": a proof does not fit the memory of any device, even without pre-staging");
  }

  JobRecord rec;
  rec.job_id = next_job_id();
  rec.request_id = r.request_id;
  rec.circuit_id = r.circuit_id;
  rec.priority = r.priority;
  rec.payload_digest = digest;
  rec.submitted = SystemClock::now();
  CUZK_ASSIGN_OR_RETURN(JobTable::Inserted ins, p_.jobs.insert(rec));
  if (ins.existed) return Submitted{ins.record.job_id, true};

  auto proof = std::make_shared<PendingProof>();
  proof->job_id = rec.job_id;
  proof->circuit_id = r.circuit_id;
  proof->priority = r.priority;
  proof->shape = circuit.shape;
  proof->pinned_device = r.pinned_device;
  proof->admitted = started;
  p_.track(proof);
  auto reserved = p_.host.reserve(witness->bytes(), r.priority, proof->cancel.get_token());
  if (!reserved.is_ok()) {
    p_.fail(proof, reserved.status());
    return Submitted{rec.job_id, false};
  }
  proof->host_witness = std::move(*reserved);
  proof->witness = std::move(witness);
  proof->timings.admission_ms = PendingProof::ms_since(started);
  proof->enter_queue();
  ProofPtr queued = proof;
  if (!p_.scheduler.synthesis().try_push(queued, r.priority)) {
    p_.untrack(rec.job_id);
    p_.jobs.erase(rec.job_id);
    return Status(StatusCode::kResourceExhausted, "the admission queue is full (" +
                                                      std::to_string(p_.scheduler.synthesis().capacity()) +
                                                      " proofs waiting); retry later");
  }
  return Submitted{rec.job_id, false};
}

}  // namespace cuzk::engine
