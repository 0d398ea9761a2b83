#include "groth16/demo_circuit.hpp"

#include <algorithm>
#include <initializer_list>
#include <span>
#include <string>

#include "ff/fields.hpp"

namespace cuzk::groth16 {
namespace {

// splitmix64: a tiny, well-mixed generator; the demo needs reproducibility, not secrecy.
struct SplitMix {
  uint64_t s;
  uint64_t operator()() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

// Both built-in circuits have two outputs and two public inputs (wires 1..4), all wires
// labelled; the witness in standard form, as a .wtns stores it.
template <class Fr>
DemoCircuit<Fr> finish_circuit(formats::R1cs<Fr> r, const std::vector<Fr>& w) {
  r.n_vars = uint32_t(w.size());
  r.n_outputs = 2;
  r.n_pub_inputs = 2;
  r.n_prv_inputs = 0;
  r.n_labels = w.size();
  DemoCircuit<Fr> out;
  out.witness.resize(w.size());
  for (size_t i = 0; i < w.size(); ++i) out.witness[i] = w[i].to_canonical();
  out.r1cs = std::move(r);
  return out;
}

template <class Fr>
class Builder {
 public:
  using Term = formats::R1csTerm<Fr>;
  static constexpr uint32_t kOne = 0, kOut = 1, kWord = 2, kX = 3, kY = 4;

  explicit Builder(uint64_t seed) : rng_{seed} {
    w_ = {Fr::one(), Fr::zero(), Fr::zero(), Fr::random(rng_), Fr::random(rng_)};
  }

  uint32_t wire(const Fr& v) {
    w_.push_back(v);
    return uint32_t(w_.size() - 1);
  }
  // Constraints are appended straight from the callers' lists (no temporaries on the heap:
  // a 2^27-constraint demo builds 134 M of them).
  void add(std::initializer_list<Term> a, std::initializer_list<Term> b, std::initializer_list<Term> c) {
    r_.add_constraint(std::span<const Term>(a.begin(), a.size()), std::span<const Term>(b.begin(), b.size()),
                      std::span<const Term>(c.begin(), c.size()));
  }
  // Sizes the vectors once (the exact counts, from a dry run of the shape), so that building
  // a large circuit never holds a vector and its doubled copy at once.
  void reserve(size_t terms, size_t constraints, size_t wires) {
    r_.terms.reserve(terms);
    r_.offsets.reserve(3 * constraints + 1);
    w_.reserve(wires);
    bits_.reserve(wires);
  }

  // b·(b − 1) = 0.
  void fresh_bit() {
    uint32_t b = wire(Fr::from_u64(rng_() & 1));
    add({{b, Fr::one()}}, {{b, Fr::one()}, {kOne, -Fr::one()}}, {});
    bits_.push_back(b);
  }
  // c = a XOR b for boolean a, b: 2a·b = a + b − c. The inputs come from recent bits at
  // SHA-like rotation distances.
  void xor_bit() {
    size_t n = bits_.size();
    uint32_t a = bits_[n - 1 - rng_() % std::min<size_t>(n, 7)];
    uint32_t b = bits_[n - 1 - rng_() % std::min<size_t>(n, 32)];
    Fr va = w_[a], vb = w_[b];
    uint32_t c = wire(va + vb - (va * vb).dbl());
    add({{a, Fr::from_u64(2)}}, {{b, Fr::one()}}, {{a, Fr::one()}, {b, Fr::one()}, {c, -Fr::one()}});
    bits_.push_back(c);
  }
  // 0 = Σ 2^i·bit_i − word, over the last (up to) 32 bits.
  void pack(uint32_t word_wire) {
    std::vector<Term> lc;
    Fr sum = Fr::zero(), pow = Fr::one();
    size_t take = std::min<size_t>(bits_.size(), 32);
    for (size_t i = 0; i < take; ++i) {
      uint32_t b = bits_[bits_.size() - take + i];
      lc.push_back({b, pow});
      sum += pow * w_[b];
      pow = pow.dbl();
    }
    w_[word_wire] = sum;
    lc.push_back({word_wire, -Fr::one()});
    r_.add_constraint({}, {}, lc);
  }
  // t' = t·(t + y); the last step writes the output wire.
  uint32_t arith_step(uint32_t t, bool last) {
    Fr v = w_[t] * (w_[t] + w_[kY]);
    uint32_t next = last ? kOut : wire(v);
    w_[next] = v;
    add({{t, Fr::one()}}, {{t, Fr::one()}, {kY, Fr::one()}}, {{next, Fr::one()}});
    return next;
  }

  DemoCircuit<Fr> finish() { return finish_circuit(std::move(r_), w_); }

  size_t n_bits() const { return bits_.size(); }

 private:
  SplitMix rng_;
  std::vector<Fr> w_;
  std::vector<uint32_t> bits_;
  formats::R1cs<Fr> r_;
};

}  // namespace

template <class Fr>
Result<DemoCircuit<Fr>> make_demo_circuit(uint32_t n_constraints, uint64_t seed) {
  if (n_constraints < kDemoMinConstraints) {
    return invalid_argument("demo circuit: " + std::to_string(n_constraints) + " constraints requested, at least " +
                            std::to_string(kDemoMinConstraints) + " needed");
  }
  Builder<Fr> b(seed);
  uint32_t n_arith = std::max<uint32_t>(1, n_constraints / 8);
  uint32_t n_bool = n_constraints - n_arith - 1;  // the last row packs into the public word
  {
    // The loop below without the field work: which rows it adds does not depend on the seed.
    size_t terms = 0, wires = 5, bits = 0;
    for (uint32_t i = 0; i < n_bool; ++i) {
      if (i % 33 == 32) {
        terms += std::min<size_t>(bits, 32) + 1;
        ++wires;
      } else {
        terms += (i % 33 < 12 || bits < 2) ? 3 : 5;
        ++wires;
        ++bits;
      }
    }
    terms += std::min<size_t>(bits, 32) + 1 + 4 * size_t(n_arith);
    wires += n_arith - 1;
    b.reserve(terms, n_constraints, wires);
  }
  for (uint32_t i = 0; i < n_bool; ++i) {
    uint32_t phase = i % 33;
    if (phase == 32) {
      b.pack(b.wire(Fr::zero()));
    } else if (phase < 12 || b.n_bits() < 2) {
      b.fresh_bit();
    } else {
      b.xor_bit();
    }
  }
  b.pack(Builder<Fr>::kWord);
  uint32_t t = Builder<Fr>::kX;
  for (uint32_t i = 0; i < n_arith; ++i) t = b.arith_step(t, i + 1 == n_arith);
  return b.finish();
}

template <class Fr>
Result<DemoCircuit<Fr>> make_chain_circuit(uint32_t n_constraints, uint64_t seed) {
  using Term = formats::R1csTerm<Fr>;
  if (n_constraints < 2) {
    return invalid_argument("chain circuit: " + std::to_string(n_constraints) + " constraints requested, at least 2 needed");
  }
  constexpr uint32_t kOut = 1, kAcc = 2, kX = 3, kY = 4;
  const uint32_t steps = n_constraints - 1;
  SplitMix rng{seed};
  const Fr x = Fr::random(rng), y = Fr::random(rng);
  // Wires: 1, out, acc, x, y, then t_1 .. t_{steps-1} (t_0 = x, t_steps = acc).
  std::vector<Fr> w(size_t(5) + steps - 1);
  w[0] = Fr::one();
  w[kX] = x;
  w[kY] = y;
  formats::R1cs<Fr> r;
  r.terms.reserve(size_t(4) * steps + 3);
  r.offsets.reserve(size_t(3) * n_constraints + 1);
  auto t_wire = [&](uint32_t i) { return i == 0 ? kX : i == steps ? kAcc : 4 + i; };
  Fr t = x;
  for (uint32_t i = 0; i < steps; ++i) {
    const Fr next = t * x + y;
    w[t_wire(i + 1)] = next;
    const Term a[] = {{t_wire(i), Fr::one()}}, b[] = {{kX, Fr::one()}},
               c[] = {{t_wire(i + 1), Fr::one()}, {kY, -Fr::one()}};
    r.add_constraint(a, b, c);
    t = next;
  }
  w[kOut] = t * t;
  const Term a[] = {{kAcc, Fr::one()}}, b[] = {{kAcc, Fr::one()}}, c[] = {{kOut, Fr::one()}};
  r.add_constraint(a, b, c);
  return finish_circuit(std::move(r), w);
}

template <class Fr>
Result<DemoCircuit<Fr>> make_named_circuit(const std::string& name, uint32_t n_constraints, uint64_t seed) {
  if (name == "demo") return make_demo_circuit<Fr>(n_constraints, seed);
  if (name == "chain") return make_chain_circuit<Fr>(n_constraints, seed);
  return invalid_argument("circuit \"" + name + "\": expected demo or chain");
}

template Result<DemoCircuit<bn254::Fr>> make_demo_circuit<bn254::Fr>(uint32_t, uint64_t);
template Result<DemoCircuit<bn254::Fr>> make_chain_circuit<bn254::Fr>(uint32_t, uint64_t);
template Result<DemoCircuit<bls12_381::Fr>> make_chain_circuit<bls12_381::Fr>(uint32_t, uint64_t);
template Result<DemoCircuit<bn254::Fr>> make_named_circuit<bn254::Fr>(const std::string&, uint32_t, uint64_t);
template Result<DemoCircuit<bls12_381::Fr>> make_named_circuit<bls12_381::Fr>(const std::string&, uint32_t,
                                                                              uint64_t);
template Result<DemoCircuit<bls12_381::Fr>> make_demo_circuit<bls12_381::Fr>(uint32_t, uint64_t);

}  // namespace cuzk::groth16
