// Groth16 synthesis on the device: a = A·w, b = B·w over the evaluation domain from the
// key's coefficient rows (resident on the device), and c = a∘b, so that only the witness
// crosses PCIe per proof. Same values as groth16::synthesize_abc (field sums are exact, so
// the order within a row does not matter).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/status.hpp"
#include "cuda/stream.hpp"

namespace cuzk::cuda {

// One matrix in CSR form on the device: row i holds entries [row_start[i], row_start[i+1]),
// each a witness index and a coefficient in the zkey's coef·R² form (one Montgomery product
// with the canonical witness value gives coef·w in Montgomery form).
template <class Fr>
struct DeviceRows {
  const uint32_t* row_start = nullptr;  // n + 1 offsets
  const uint32_t* signal = nullptr;
  const Fr* coef = nullptr;
};

// a, b, c: n elements each (Montgomery form); w: the witness, canonical.
template <class Fr>
Status synthesize_abc(const DeviceRows<Fr>& A, const DeviceRows<Fr>& B, const typename Fr::Int* w, Fr* a, Fr* b,
                      Fr* c, size_t n, const Stream& s);

}  // namespace cuzk::cuda
