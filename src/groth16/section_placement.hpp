// Which MSM sections of a key a GPU backend keeps in device memory and which it streams
// from host memory, when the device cannot hold them all. Streaming a section costs its
// bytes over the host link in every proof, so of the sets of streamed sections that fit
// the device, the one streaming the fewest bytes is taken (ties: fewer sections, then a set
// without H, whose MSM follows the H pipeline on a proof's critical path, then the set
// whose sections come first in MsmSection order). Plain C++: the CUDA backend says what
// fits (its allocator's budget), this chooses.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>

#include "groth16/precompute_spec.hpp"

namespace cuzk::groth16 {

constexpr size_t kMsmSections = 5;

// A set of sections: bit size_t(s) stands for section s.
struct SectionSet {
  unsigned bits = 0;

  static SectionSet all() { return {(1u << kMsmSections) - 1}; }
  bool has(MsmSection s) const { return (bits >> size_t(s) & 1u) != 0; }
  bool empty() const { return bits == 0; }
  bool full() const { return bits == all().bits; }
  void add(MsmSection s) { bits |= 1u << size_t(s); }
  friend bool operator==(SectionSet, SectionSet) = default;
};

// "none", "B2", "B2 and H", "A, B1 and L", "all".
std::string describe(SectionSet set);

// The set streaming the fewest of `bytes` (each section's point bytes, indexed by
// MsmSection) for which `fits(set)` holds; nullopt when none does. `fits` is asked about
// each set at most once, cheapest first, and the first that fits is the answer (a caller
// with rules of its own, such as "everything or nothing", says no to the other sets).
std::optional<SectionSet> choose_streamed(const std::array<size_t, kMsmSections>& bytes,
                                          const std::function<bool(SectionSet)>& fits);

}  // namespace cuzk::groth16
