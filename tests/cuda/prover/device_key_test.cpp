// The dev setup straight into device memory (cuda/prover/device_key.hpp). With the same
// toxic waste it builds the key dev_setup writes to a .zkey: the same header, IC and
// section 4, and every point section equal point for point (downloaded and compared); its
// proofs equal the CPU's for the same r and s and verify. A fault at any of its
// allocations, copies or launches fails it with that fault and leaves the device at its
// baseline, and the next build succeeds; sections that do not fit beside a proof move to
// host memory and are streamed; prepare() refuses a key with no host points and
// prepare_with_points() sections of the wrong size.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cuda/allocator.hpp"
#include "cuda/cuda_test_util.hpp"
#include "cuda/fault.hpp"
#include "cuda/ntt/ntt.hpp"
#include "cuda/prover/cuda_backend.hpp"
#include "cuda/prover/device_key.hpp"
#include "cuda/prover/same_proofs.hpp"  // tests/cuda
#include "formats/zkey.hpp"
#include "groth16/demo_circuit.hpp"
#include "groth16/prover.hpp"
#include "groth16/scratch_dir.hpp"  // tests/groth16
#include "groth16/setup.hpp"

namespace cuzk::cuda {
namespace {

DeviceAllocator& allocator() {
  auto a = DeviceAllocator::for_device(0);
  EXPECT_TRUE(a.is_ok());
  return **a;
}

template <class Fr>
groth16::ToxicWaste<Fr> fresh_toxic(const std::string& salt) {
  auto rng = testing::seeded_rng(salt);
  auto draw = [&] { return Fr::from_u64(rng()) * Fr::from_u64(rng()) + Fr::from_u64(rng() | 1); };
  return {draw(), draw(), draw(), draw()};
}

template <class T>
std::vector<T> download(const DeviceBuffer<T>& buf) {
  std::vector<T> host(buf.size());
  auto s = Stream::create();
  EXPECT_TRUE(s.is_ok());
  EXPECT_TRUE(buf.download(std::span<T>(host), *s).is_ok());
  EXPECT_TRUE(s->synchronize().is_ok());
  return host;
}

template <class T>
void expect_same_bytes(const char* name, const std::vector<T>& got, std::span<const T> want) {
  ASSERT_EQ(got.size(), want.size()) << name;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(T)), 0) << name << " point " << i;
  }
}

template <class C>
class CudaDeviceKey : public ::testing::Test {
 protected:
  void SetUp() override { CUZK_SKIP_WITHOUT_DEVICE(); }
  void TearDown() override { disarm_faults(); }
};
using Curves = ::testing::Types<bn254::Curve, bls12_381::Curve>;
TYPED_TEST_SUITE(CudaDeviceKey, Curves);

TYPED_TEST(CudaDeviceKey, SameKeyAsTheZkeyAndTheSameProofs) {
  using C = TypeParam;
  using Fr = typename C::Fr;
  for (uint32_t n : {100u, (1u << 12) - 5, (1u << 15) + 7}) {
    SCOPED_TRACE("constraints " + std::to_string(n));
    groth16::testing::ScratchDir dir;
    ThreadPool pool(std::max<size_t>(2, ThreadPool::default_threads()));
    auto circuit = groth16::make_demo_circuit<Fr>(n, n + 3);
    ASSERT_TRUE(circuit.is_ok());
    const auto tw = fresh_toxic<Fr>(std::string("device-key-") + C::NAME + std::to_string(n));
    auto vk = groth16::dev_setup<C>(circuit->r1cs, dir.file("k.zkey"), pool, {}, {}, tw);
    ASSERT_TRUE(vk.is_ok()) << vk.status().to_string();
    auto file = formats::Zkey<C>::open(dir.file("k.zkey"));
    ASSERT_TRUE(file.is_ok()) << file.status().to_string();

    auto dk = dev_setup_on_device<C>(circuit->r1cs, "device key", pool, {}, tw);
    ASSERT_TRUE(dk.is_ok()) << dk.status().to_string();
    const auto& a = dk->zkey.header();
    const auto& b = file->header();
    EXPECT_EQ(a.n_vars, b.n_vars);
    EXPECT_EQ(a.n_public, b.n_public);
    EXPECT_EQ(a.domain_size, b.domain_size);
    EXPECT_EQ(std::memcmp(&a.alpha1, &b.alpha1, sizeof a.alpha1), 0);
    EXPECT_EQ(std::memcmp(&a.beta1, &b.beta1, sizeof a.beta1), 0);
    EXPECT_EQ(std::memcmp(&a.delta1, &b.delta1, sizeof a.delta1), 0);
    EXPECT_EQ(std::memcmp(&a.beta2, &b.beta2, sizeof a.beta2), 0);
    EXPECT_EQ(std::memcmp(&a.gamma2, &b.gamma2, sizeof a.gamma2), 0);
    EXPECT_EQ(std::memcmp(&a.delta2, &b.delta2, sizeof a.delta2), 0);
    expect_same_bytes("IC", std::vector(dk->zkey.ic().begin(), dk->zkey.ic().end()), file->ic());
    const auto ca = dk->zkey.coefficients().bytes(), cb = file->coefficients().bytes();
    ASSERT_EQ(ca.size(), cb.size());
    EXPECT_EQ(std::memcmp(ca.data(), cb.data(), ca.size()), 0);
    expect_same_bytes("A", download(dk->points.a), file->a());
    expect_same_bytes("B1", download(dk->points.b1), file->b1());
    expect_same_bytes("B2", download(dk->points.b2), file->b2());
    expect_same_bytes("C", download(dk->points.c), file->c());
    expect_same_bytes("H", download(dk->points.h), file->h());

    // Proofs against the device-built key equal the CPU's against the file.
    groth16::CpuBackend<C> cpu(pool);
    auto cpu_prover = groth16::Prover<C>::create(*file, cpu, pool);
    ASSERT_TRUE(cpu_prover.is_ok()) << cpu_prover.status().to_string();
    auto gpu = CudaBackend<C>::create(CudaBackendOptions{}, pool);
    ASSERT_TRUE(gpu.is_ok()) << gpu.status().to_string();
    auto prover = groth16::Prover<C>::create(dk->zkey, **gpu, pool, [&](const groth16::KeyView<C>& view) {
      return (*gpu)->prepare_with_points(view, std::move(dk->points));
    });
    ASSERT_TRUE(prover.is_ok()) << prover.status().to_string();
    EXPECT_EQ(prover->prepared().placement(), "device");
    testing_prover::expect_same_proofs<C>(*cpu_prover, *prover, circuit->witness, dk->vk,
                                          std::string("device-key-proof-") + C::NAME + std::to_string(n));
    testing_prover::expect_same_proofs<C>(*cpu_prover, *prover, circuit->witness, *vk,
                                          std::string("device-key-proof2-") + C::NAME + std::to_string(n));
  }
  Status base = allocator().check_baseline(0);
  EXPECT_TRUE(base.is_ok()) << base.to_string();
}

// Faults at the build's allocations, copies and launches: the build fails with that fault,
// nothing stays allocated, and the next build proves.
TYPED_TEST(CudaDeviceKey, FaultsFailTheBuildCleanly) {
  using C = TypeParam;
  using Fr = typename C::Fr;
  ThreadPool pool(std::max<size_t>(2, ThreadPool::default_threads()));
  auto circuit = groth16::make_demo_circuit<Fr>((1u << 12) - 5, 11);
  ASSERT_TRUE(circuit.is_ok());
  for (const char* rule :
       {"alloc:1@setup.fixed_base.table", "alloc:2@setup.fixed_base.scalars", "alloc:1@setup.device_key.points_a",
        "alloc:1@setup.device_key.points_h", "alloc:1@setup.device_key.points_b2", "copy:1", "copy:4",
        "kernel:1@setup.fixed_base", "kernel:5@setup.fixed_base"}) {
    SCOPED_TRACE(rule);
    ASSERT_TRUE(arm_faults(rule).is_ok());
    auto dk = dev_setup_on_device<C>(circuit->r1cs, "device key", pool);
    disarm_faults();
    ASSERT_FALSE(dk.is_ok());
    EXPECT_NE(dk.status().message().find("injected"), std::string::npos) << dk.status().message();
    Status base = allocator().check_baseline(0);
    ASSERT_TRUE(base.is_ok()) << base.to_string();
    EXPECT_EQ(allocator().stats().reserved_bytes, 0u);
  }
  auto dk = dev_setup_on_device<C>(circuit->r1cs, "device key", pool);
  ASSERT_TRUE(dk.is_ok()) << dk.status().to_string();
  auto gpu = CudaBackend<C>::create(CudaBackendOptions{}, pool);
  ASSERT_TRUE(gpu.is_ok());
  auto prover = groth16::Prover<C>::create(dk->zkey, **gpu, pool, [&](const groth16::KeyView<C>& view) {
    return (*gpu)->prepare_with_points(view, std::move(dk->points));
  });
  ASSERT_TRUE(prover.is_ok()) << prover.status().to_string();
  auto out = prover->prove(circuit->witness);
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  Status v = groth16::verify<C>(dk->vk, out->proof, out->public_signals);
  EXPECT_TRUE(v.is_ok()) << v.to_string();
}

// A device-built key whose sections cannot all stay on the device beside a proof (ballast
// takes the room, as a smaller card would): the fewest bytes of sections move to
// page-locked host memory and are streamed in every proof ("mixed"), proofs still equal
// the CPU's; with force_streamed every section moves ("streamed"); with no room even for
// that, prepare fails with what it needed and the device returns to its baseline.
TYPED_TEST(CudaDeviceKey, SectionsThatDoNotFitMoveToHostMemory) {
  using C = TypeParam;
  using Fr = typename C::Fr;
  const uint32_t n = (1u << 16) + 7;
  groth16::testing::ScratchDir dir;
  ThreadPool pool(std::max<size_t>(2, ThreadPool::default_threads()));
  auto circuit = groth16::make_demo_circuit<Fr>(n, 19);
  ASSERT_TRUE(circuit.is_ok());
  const auto tw = fresh_toxic<Fr>(std::string("device-key-moved-") + C::NAME);
  auto vk = groth16::dev_setup<C>(circuit->r1cs, dir.file("k.zkey"), pool, {}, {}, tw);
  ASSERT_TRUE(vk.is_ok()) << vk.status().to_string();
  auto file = formats::Zkey<C>::open(dir.file("k.zkey"));
  ASSERT_TRUE(file.is_ok()) << file.status().to_string();
  groth16::CpuBackend<C> cpu(pool);
  auto cpu_prover = groth16::Prover<C>::create(*file, cpu, pool);
  ASSERT_TRUE(cpu_prover.is_ok()) << cpu_prover.status().to_string();

  CudaBackendOptions o;
  o.precompute.clear();
  o.msm_lanes = 1;
  o.stream_chunk_points = size_t(1) << 12;  // chunk buffers well below a section
  auto gpu = CudaBackend<C>::create(o, pool);
  ASSERT_TRUE(gpu.is_ok()) << gpu.status().to_string();
  auto prepare = [&](DeviceDevKey<C>& dk) {
    return groth16::Prover<C>::create(dk.zkey, **gpu, pool, [&](const groth16::KeyView<C>& view) {
      return (*gpu)->prepare_with_points(view, std::move(dk.points));
    });
  };
  auto build = [&] {
    auto dk = dev_setup_on_device<C>(circuit->r1cs, "device key", pool, {}, tw);
    EXPECT_TRUE(dk.is_ok()) << dk.status().to_string();
    return dk;
  };

  // What a resident key holds beside its points, and what one proof adds.
  size_t beside = 0, smallest = SIZE_MAX;
  {
    auto dk = build();
    ASSERT_TRUE(dk.is_ok());
    const size_t points = dk->points.bytes();
    for (size_t b : {dk->points.a.size_bytes(), dk->points.b1.size_bytes(), dk->points.b2.size_bytes(),
                     dk->points.c.size_bytes(), dk->points.h.size_bytes()}) {
      smallest = std::min(smallest, b);
    }
    auto prover = prepare(*dk);
    ASSERT_TRUE(prover.is_ok()) << prover.status().to_string();
    const auto& key = prover->prepared();
    ASSERT_EQ(key.placement(), "device");
    beside = key.resident_bytes() - points + (*gpu)->upload_bytes(key) + (*gpu)->compute_bytes(key);
  }
  ASSERT_GT(smallest, size_t(4) << 20);

  // Short by 2 MiB: one section moves (the smallest that makes room). A copy fault while it
  // moves, or host memory that cannot be pinned, fails prepare with that fault and frees the
  // key's device bytes; the next works.
  const size_t short_by = size_t(2) << 20;
  for (const char* rule : {"copy:1@DeviceBuffer::download", "alloc:1@prover.prepare.host_section"}) {
    SCOPED_TRACE(rule);
    auto dk = build();
    ASSERT_TRUE(dk.is_ok());
    auto ballast =
        DeviceBuffer<uint8_t>::allocate(allocator().stats().available_bytes() - beside + short_by, "test.ballast");
    ASSERT_TRUE(ballast.is_ok()) << ballast.status().to_string();
    ASSERT_TRUE(arm_faults(rule).is_ok());
    auto prover = prepare(*dk);
    disarm_faults();
    ASSERT_FALSE(prover.is_ok());
    EXPECT_NE(prover.status().message().find("injected"), std::string::npos) << prover.status().message();
    EXPECT_NE(prover.status().message().find("to host memory"), std::string::npos) << prover.status().message();
    Status base = allocator().check_baseline(ballast->size_bytes());
    EXPECT_TRUE(base.is_ok()) << base.to_string();
  }
  {
    auto dk = build();
    ASSERT_TRUE(dk.is_ok());
    auto ballast =
        DeviceBuffer<uint8_t>::allocate(allocator().stats().available_bytes() - beside + short_by, "test.ballast");
    ASSERT_TRUE(ballast.is_ok()) << ballast.status().to_string();
    auto prover = prepare(*dk);
    ASSERT_TRUE(prover.is_ok()) << prover.status().to_string();
    const auto& key = prover->prepared();
    EXPECT_EQ(key.placement().rfind("mixed (streamed: ", 0), 0u) << key.placement();
    EXPECT_EQ(key.placement().find(" and "), std::string::npos) << key.placement();  // one section
    EXPECT_NE(key.notes().find("moved from the device to page-locked host memory"), std::string::npos) << key.notes();
    testing_prover::expect_same_proofs<C>(*cpu_prover, *prover, circuit->witness, *vk,
                                          std::string("device-key-mixed-") + C::NAME);
    testing_prover::expect_same_proofs<C>(*cpu_prover, *prover, circuit->witness, *vk,
                                          std::string("device-key-mixed2-") + C::NAME);
  }
  // With lanes to spare the streamed section runs in a lane of its own beside the rest: a
  // lane of small chunks (256 points) fits in the ~4 MiB the moved section freed beyond
  // what was short; a third lane (a resident MSM's scratch) does not.
  {
    CudaBackendOptions o3 = o;
    o3.msm_lanes = 3;
    o3.stream_chunk_points = 256;
    auto gpu3 = CudaBackend<C>::create(o3, pool);
    ASSERT_TRUE(gpu3.is_ok());
    auto dk = build();
    ASSERT_TRUE(dk.is_ok());
    auto ballast = DeviceBuffer<uint8_t>::allocate(allocator().stats().available_bytes() - beside + (size_t(64) << 10),
                                                   "test.ballast");
    ASSERT_TRUE(ballast.is_ok()) << ballast.status().to_string();
    auto prover = groth16::Prover<C>::create(dk->zkey, **gpu3, pool, [&](const groth16::KeyView<C>& view) {
      return (*gpu3)->prepare_with_points(view, std::move(dk->points));
    });
    ASSERT_TRUE(prover.is_ok()) << prover.status().to_string();
    const auto& key = prover->prepared();
    EXPECT_EQ(key.placement().rfind("mixed (streamed: ", 0), 0u) << key.placement();
    EXPECT_EQ((*gpu3)->msm_lanes(key), 2u) << key.placement();
    testing_prover::expect_same_proofs<C>(*cpu_prover, *prover, circuit->witness, *vk,
                                          std::string("device-key-mixed-lanes-") + C::NAME);
  }

  // Every section streamed, on request.
  {
    CudaBackendOptions all = o;
    all.force_streamed = true;
    auto streaming = CudaBackend<C>::create(all, pool);
    ASSERT_TRUE(streaming.is_ok());
    auto dk = build();
    ASSERT_TRUE(dk.is_ok());
    auto prover = groth16::Prover<C>::create(dk->zkey, **streaming, pool, [&](const groth16::KeyView<C>& view) {
      return (*streaming)->prepare_with_points(view, std::move(dk->points));
    });
    ASSERT_TRUE(prover.is_ok()) << prover.status().to_string();
    EXPECT_EQ(prover->prepared().placement(), "streamed");
    testing_prover::expect_same_proofs<C>(*cpu_prover, *prover, circuit->witness, *vk,
                                          std::string("device-key-streamed-") + C::NAME);
  }

  // No room even with every section on the host: a clear refusal, nothing left behind.
  {
    auto dk = build();
    ASSERT_TRUE(dk.is_ok());
    // Room for the key's NTT domain (allocated first) and 1 MiB more: not even the coefficients fit.
    unsigned log_n = 0;
    while ((size_t(1) << log_n) < dk->zkey.header().domain_size) ++log_n;
    auto ballast = DeviceBuffer<uint8_t>::allocate(
        allocator().stats().available_bytes() - NttDomain<Fr>::device_bytes(log_n) - (size_t(1) << 20), "test.ballast");
    ASSERT_TRUE(ballast.is_ok()) << ballast.status().to_string();
    auto prover = prepare(*dk);
    ASSERT_FALSE(prover.is_ok());
    EXPECT_EQ(prover.status().code(), StatusCode::kResourceExhausted);
    EXPECT_NE(prover.status().message().find("device key"), std::string::npos) << prover.status().message();
    EXPECT_NE(prover.status().message().find("even with every section streamed"), std::string::npos)
        << prover.status().message();
  }
  Status base = allocator().check_baseline(0);
  EXPECT_TRUE(base.is_ok()) << base.to_string();
  EXPECT_EQ(allocator().stats().reserved_bytes, 0u);
}

TYPED_TEST(CudaDeviceKey, PrepareRefusesMissingOrMismatchedPoints) {
  using C = TypeParam;
  using Fr = typename C::Fr;
  ThreadPool pool(2);
  auto circuit = groth16::make_demo_circuit<Fr>(300, 13);
  ASSERT_TRUE(circuit.is_ok());
  auto dk = dev_setup_on_device<C>(circuit->r1cs, "device key", pool);
  ASSERT_TRUE(dk.is_ok()) << dk.status().to_string();
  auto gpu = CudaBackend<C>::create(CudaBackendOptions{}, pool);
  ASSERT_TRUE(gpu.is_ok());
  auto plain = groth16::Prover<C>::create(dk->zkey, **gpu, pool);
  ASSERT_FALSE(plain.is_ok());
  EXPECT_NE(plain.status().message().find("holds no points on the host"), std::string::npos)
      << plain.status().message();
  EXPECT_NE(plain.status().message().find("device key"), std::string::npos) << plain.status().message();
  DeviceKeyPoints<C> short_h = std::move(dk->points);
  auto h = DeviceBuffer<ec::Affine<typename C::G1>>::allocate(short_h.h.size() - 1, "test.short_h");
  ASSERT_TRUE(h.is_ok());
  short_h.h = std::move(*h);
  auto wrong = groth16::Prover<C>::create(dk->zkey, **gpu, pool, [&](const groth16::KeyView<C>& view) {
    return (*gpu)->prepare_with_points(view, std::move(short_h));
  });
  ASSERT_FALSE(wrong.is_ok());
  EXPECT_NE(wrong.status().message().find("device section H"), std::string::npos) << wrong.status().message();
}

}  // namespace
}  // namespace cuzk::cuda
