// The pipeline's worker stages. Each runs on its own threads, pops its queue (highest
// priority first) until the queue is closed and drained, and hands the proof on or
// retires it. One file each: synthesis_stage.cpp, prestage_stage.cpp, device_worker.cpp,
// finalize_stage.cpp.
#pragma once

#include "engine/pipeline.hpp"

namespace cuzk::engine {

// Takes the circuit's key from the cache (loading it if needed) and reserves the host
// memory of the a, b, c evaluations. The evaluations themselves are computed inside the
// prover today (groth16::Prover::prove), so their time shows as synthesis_ms from there.
void run_synthesis_stage(Pipeline& p);

// Picks the device (the one pinned, else the least busy healthy one) and reserves the
// device memory of the pre-staged path; when it does not fit now, marks the proof for
// the fallback path (prestage=fallback) instead of waiting or overcommitting. Pre-staged,
// it runs device stage (a), the upload, here, outside the lock.
void run_prestage_stage(Pipeline& p);

// One of a device's gpu_workers_per_device workers: reserves the fallback path's memory
// (outside the lock, so a waiting worker holds nothing another needs), runs the kernel
// region (b) under the device's lock (with the upload, on the fallback path), reads back
// (c) outside it, frees the device memory, and checks the device against its idle
// baseline after a failure. A worker given `at_least` takes only proofs of that priority or
// above (each device has one more worker for CRITICAL proofs only).
void run_device_worker(Pipeline& p, Device& device, Priority at_least = Priority::kLow);

// Blinds the MSM sums into the proof, verifies it against the key's verification key (a
// proof that fails is never returned as a success), serializes it and retires the job.
void run_finalize_stage(Pipeline& p);

}  // namespace cuzk::engine
