// The cuzk subcommands. Each returns the process exit status and prints its own errors.
#pragma once

#include <cstdint>
#include <string>

namespace cuzk::app {

// `verify`: check the proof against the key's own verification key before writing it
// (exit 1, nothing written, when it fails). `precompute`: --precompute (off by default for
// one proof: building the tables costs more than they save once).
int cmd_prove(const std::string& zkey, const std::string& wtns, const std::string& proof, const std::string& pub,
              unsigned threads, const std::string& backend, bool verify = true, const std::string& precompute = "off");

// Exit 0 when the proof is valid, 1 when it is not (or an input cannot be read).
int cmd_verify(const std::string& vk, const std::string& pub, const std::string& proof);

struct SetupArgs {
  std::string r1cs;       // circuit file, or empty with demo_constraints > 0
  uint32_t demo_constraints = 0;
  std::string curve = "bn254";  // for --demo: bn254 | bls12_381
  std::string zkey, vk, wtns;   // wtns: where to write the demo witness (optional)
  unsigned threads = 0;
  std::string backend = "auto";  // where the point multiplications run
};
int cmd_setup(const SetupArgs& a);

struct DemoArgs {
  uint32_t constraints = (1 << 16) - 5;  // with 4 public signals, fills a 2^16 domain
  int proofs = 3;
  std::string curve = "bn254";
  std::string cache;  // empty: $CUZK_CACHE, else ~/.cache/cuzk
  unsigned threads = 0;
  bool skip_selfcheck = false;
  std::string backend = "auto";  // auto | cpu | cuda
  std::string precompute = "auto";
};
int cmd_demo(const DemoArgs& a);

struct BenchArgs {
  std::string zkey, wtns;  // both given, or neither (then the demo circuit is used)
  uint32_t demo_constraints = (1 << 16) - 5;
  std::string curve = "bn254";
  std::string cache;
  int runs = 5;
  unsigned threads = 0;
  std::string backend = "auto";
  std::string precompute = "auto";  // --precompute: precomputed MSM bases on the GPU
  bool key_on_device = false;       // --key-on-device: the demo key built in device memory
  std::string circuit = "demo";     // --builtin: demo (mostly 0/1 witness) or chain (full-size values)
};
int cmd_bench(const BenchArgs& a);
// `bench --key-on-device` (cmd_device_key_bench.cpp): no zkey file, CUDA only.
int cmd_bench_device_key(const BenchArgs& a);

}  // namespace cuzk::app
