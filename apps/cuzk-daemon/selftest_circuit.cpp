#include "cuzk-daemon/selftest_circuit.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/thread_pool.hpp"
#include "ec/curves.hpp"
#include "formats/wtns.hpp"
#include "groth16/demo_circuit.hpp"
#include "groth16/setup.hpp"

namespace cuzk::daemon {

Result<SelftestCircuit> SelftestCircuit::create(uint32_t constraints) {
  using C = bn254::Curve;
  std::string tmpl = (std::filesystem::temp_directory_path() / "cuzk-selftest-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) return internal_error("self-test: cannot create a directory in $TMPDIR");
  SelftestCircuit s;
  s.dir_ = tmpl;
  s.zkey_ = tmpl + "/selftest.zkey";
  ThreadPool pool(1);
  CUZK_ASSIGN_OR_RETURN(auto circuit,
                        groth16::make_demo_circuit<C::Fr>(std::max(constraints, groth16::kDemoMinConstraints), 1));
  CUZK_RETURN_IF_ERROR(groth16::dev_setup<C>(circuit.r1cs, s.zkey_, pool).status());
  const std::string wtns = tmpl + "/selftest.wtns";
  CUZK_RETURN_IF_ERROR(formats::write_wtns<C::Fr>(wtns, circuit.witness));
  std::ifstream in(wtns, std::ios::binary);
  s.wtns_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return s;
}

SelftestCircuit::~SelftestCircuit() {
  if (dir_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

}  // namespace cuzk::daemon
