// The self-test circuit: a tiny demo circuit with a throwaway dev key, proved once per
// device before the daemon reports ready.
#pragma once

#include <string>
#include <vector>

#include "core/status.hpp"

namespace cuzk::daemon {

class SelftestCircuit {
 public:
  // Writes the key and witness under a fresh private directory in $TMPDIR.
  static Result<SelftestCircuit> create(uint32_t constraints);
  SelftestCircuit(SelftestCircuit&& o) noexcept
      : dir_(std::move(o.dir_)), zkey_(std::move(o.zkey_)), wtns_(std::move(o.wtns_)) {
    o.dir_.clear();
  }
  SelftestCircuit(const SelftestCircuit&) = delete;
  ~SelftestCircuit();

  const std::string& zkey() const { return zkey_; }
  const std::vector<uint8_t>& wtns() const { return wtns_; }

 private:
  SelftestCircuit() = default;
  std::string dir_, zkey_;
  std::vector<uint8_t> wtns_;
};

}  // namespace cuzk::daemon
