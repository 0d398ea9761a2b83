// Small demo circuits with dev-setup keys in a scratch directory, for the engine and
// server tests: a zkey path and the matching .wtns bytes.
#pragma once

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/thread_pool.hpp"
#include "ec/curves.hpp"
#include "formats/wtns.hpp"
#include "groth16/demo_circuit.hpp"
#include "groth16/scratch_dir.hpp"
#include "groth16/setup.hpp"

namespace cuzk::engine::testing {

struct DemoKey {
  std::string zkey, wtns_path;
  std::vector<uint8_t> wtns;
};

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::string& path, const std::vector<uint8_t>& b) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

// A demo circuit of `constraints` constraints on curve C, its key and witness under `dir`.
template <class C>
DemoKey make_demo_key(const groth16::testing::ScratchDir& dir, const std::string& name, uint32_t constraints) {
  using Fr = typename C::Fr;
  ThreadPool pool(2);
  auto circuit = groth16::make_demo_circuit<Fr>(constraints, 7);
  if (!circuit.is_ok()) std::abort();
  DemoKey k;
  k.zkey = dir.file(name + ".zkey");
  k.wtns_path = dir.file(name + ".wtns");
  if (!groth16::dev_setup<C>(circuit->r1cs, k.zkey, pool).is_ok()) std::abort();
  if (!formats::write_wtns<Fr>(k.wtns_path, circuit->witness).is_ok()) std::abort();
  k.wtns = read_bytes(k.wtns_path);
  return k;
}

}  // namespace cuzk::engine::testing
