#include "cuda/setup/fixed_base_table.hpp"

#include "ec/batch_affine.hpp"
#include "ec/curves.hpp"
#include "ec/jacobian.hpp"

namespace cuzk::cuda::setup_detail {

template <class G>
std::vector<ec::Affine<G>> fixed_base_table(const ec::Affine<G>& base, unsigned windows, unsigned bits,
                                            ThreadPool& pool) {
  using Jac = ec::Jacobian<G>;
  const size_t row_len = (size_t(1) << bits) - 1;
  std::vector<Jac> starts(windows);
  Jac g = Jac::from_affine(base);
  for (unsigned k = 0; k < windows; ++k) {
    starts[k] = g;
    for (unsigned i = 0; i < bits; ++i) g = g.dbl();
  }
  std::vector<ec::Affine<G>> table(size_t(windows) * row_len);
  pool.run(windows, [&](size_t k) {
    std::vector<Jac> row(row_len);
    row[0] = starts[k];
    for (size_t d = 1; d < row_len; ++d) row[d] = row[d - 1] + starts[k];
    ec::batch_to_affine(row.data(), row_len, table.data() + k * row_len);
  });
  return table;
}

template std::vector<ec::Affine<bn254::G1Config>> fixed_base_table(const ec::Affine<bn254::G1Config>&, unsigned,
                                                                   unsigned, ThreadPool&);
template std::vector<ec::Affine<bn254::G2Config>> fixed_base_table(const ec::Affine<bn254::G2Config>&, unsigned,
                                                                   unsigned, ThreadPool&);
template std::vector<ec::Affine<bls12_381::G1Config>> fixed_base_table(const ec::Affine<bls12_381::G1Config>&, unsigned,
                                                                       unsigned, ThreadPool&);
template std::vector<ec::Affine<bls12_381::G2Config>> fixed_base_table(const ec::Affine<bls12_381::G2Config>&, unsigned,
                                                                       unsigned, ThreadPool&);

}  // namespace cuzk::cuda::setup_detail
