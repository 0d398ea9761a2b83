// A built-in demo circuit of any size, shaped like real circom workloads, with its witness.
//
// Real Groth16 circuits (SHA-256, Poseidon-free Merkle paths, signature checks) are mostly
// bit logic: boolean-constrained wires, XOR/AND gates between bits, and packing of 32
// bits into words. So the witness is dominated by 0s and 1s, which is what the 0/1 paths
// of an MSM are built for. The demo reproduces that mix:
//   ~7/8 of the constraints: fresh bits b·(b−1) = 0, XORs 2a·b = a + b − c, and every 33rd
//        a packing row 0 = Σ 2^i·bit_i − word (a dense linear combination);
//   ~1/8: a dense arithmetic chain t_{k+1} = t_k·(t_k + y) over full-size field values;
//   public signals: out = t_last and word = the last packed word (outputs, wires 1, 2),
//   then the public inputs x = t_0 and y (wires 3, 4), as in circom's wire order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "formats/r1cs.hpp"

namespace cuzk::groth16 {

template <class Fr>
struct DemoCircuit {
  formats::R1cs<Fr> r1cs;
  std::vector<typename Fr::Int> witness;  // standard form, as a .wtns stores it
};

// The smallest constraint count the demo's shape needs.
inline constexpr uint32_t kDemoMinConstraints = 4;

// Builds a satisfiable circuit of exactly `n_constraints` constraints; `seed` picks the
// public inputs and the bits, so equal seeds give equal circuits and witnesses.
template <class Fr>
Result<DemoCircuit<Fr>> make_demo_circuit(uint32_t n_constraints, uint64_t seed);

// The multiplication chain of bench/circuits/chain.circom (t_{i+1} = t_i·x + y, out =
// t_n², acc = t_n; outputs out, acc then public inputs x, y), with the constraints circom
// emits for it once the linear ones are substituted: t_i·x = t_{i+1} − y per step, then
// acc·acc = out. Every witness value is a full field element, the opposite of the demo's
// mostly 0/1 mix: every MSM then runs over uniform scalars. Exactly `n_constraints`
// constraints (n_constraints − 1 steps); `seed` picks x, y.
template <class Fr>
Result<DemoCircuit<Fr>> make_chain_circuit(uint32_t n_constraints, uint64_t seed);

// "demo" or "chain": the circuit of that name (make_demo_circuit / make_chain_circuit).
template <class Fr>
Result<DemoCircuit<Fr>> make_named_circuit(const std::string& name, uint32_t n_constraints, uint64_t seed);

}  // namespace cuzk::groth16
