// --backend auto|cpu|cuda for prove, demo and bench.
#include "cuzk/util.hpp"
#include "groth16/precompute_spec.hpp"

#if defined(CUZK_WITH_CUDA)
#include "cuda/device.hpp"
#include "cuda/prover/cuda_backend.hpp"
#include "cuda/setup/fixed_base.hpp"
#endif

namespace cuzk::app {

template <class C>
Result<std::unique_ptr<groth16::Backend<C>>> make_backend(const std::string& choice, ThreadPool& pool,
                                                          const std::string& precompute) {
  if (choice != "auto" && choice != "cpu" && choice != "cuda") {
    return invalid_argument("--backend " + choice + ": expected auto, cpu or cuda");
  }
  CUZK_ASSIGN_OR_RETURN(auto sections, groth16::parse_precompute_spec(precompute, "--precompute"));
  if (choice == "cpu") return std::unique_ptr<groth16::Backend<C>>(new groth16::CpuBackend<C>(pool));
#if defined(CUZK_WITH_CUDA)
  if (choice == "cuda" || cuda::cuda_device_available()) {
    cuda::CudaBackendOptions o;
    o.precompute = std::move(sections);
    CUZK_ASSIGN_OR_RETURN(auto b, cuda::CudaBackend<C>::create(o, pool));
    return std::unique_ptr<groth16::Backend<C>>(std::move(b));
  }
#else
  (void)sections;
  if (choice == "cuda") {
    return Status{StatusCode::kUnavailable, "--backend cuda: this cuzk was built without CUDA (no nvcc at build time)"};
  }
#endif
  return std::unique_ptr<groth16::Backend<C>>(new groth16::CpuBackend<C>(pool));
}

template <class C>
Result<groth16::FixedBaseMuls<C>> setup_muls(const std::string& choice, [[maybe_unused]] ThreadPool& pool) {
  groth16::FixedBaseMuls<C> muls;
  if (choice == "cpu") return muls;
#if defined(CUZK_WITH_CUDA)
  if (choice == "cuda" || cuda::cuda_device_available()) {
    CUZK_RETURN_IF_ERROR(cuda::set_device(0));
    muls.g1 = [&pool](std::span<const typename C::Fr> k, std::span<ec::Affine<typename C::G1>> out) {
      return cuda::fixed_base_mul<typename C::G1>(C::G1::generator(), k, out, pool);
    };
    muls.g2 = [&pool](std::span<const typename C::Fr> k, std::span<ec::Affine<typename C::G2>> out) {
      return cuda::fixed_base_mul<typename C::G2>(C::G2::generator(), k, out, pool);
    };
  }
#else
  if (choice == "cuda") {
    return Status{StatusCode::kUnavailable, "--backend cuda: this cuzk was built without CUDA (no nvcc at build time)"};
  }
#endif
  return muls;
}

template Result<groth16::FixedBaseMuls<bn254::Curve>> setup_muls<bn254::Curve>(const std::string&, ThreadPool&);
template Result<groth16::FixedBaseMuls<bls12_381::Curve>> setup_muls<bls12_381::Curve>(const std::string&,
                                                                                     ThreadPool&);

template Result<std::unique_ptr<groth16::Backend<bn254::Curve>>> make_backend<bn254::Curve>(const std::string&,
                                                                                           ThreadPool&,
                                                                                           const std::string&);
template Result<std::unique_ptr<groth16::Backend<bls12_381::Curve>>> make_backend<bls12_381::Curve>(
    const std::string&, ThreadPool&, const std::string&);

}  // namespace cuzk::app
