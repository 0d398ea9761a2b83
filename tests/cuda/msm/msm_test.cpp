// The device MSM equals the CPU msm (msm/pippenger.hpp) as a group element, on fresh
// random inputs every run, for G1 and G2 of both curves: sizes 1 .. 2^20 (2^22 on BN254
// G1, 2^16 on G2, whose CPU reference is slow), the scalar mixes that stress the 0/1
// split and the bucket balance, and the edge cases; forced window widths (every shape of
// the bucket reduction); and the precomputed-bases mode (shifted copies checked against
// CPU doublings, then the same cases again). Every run draws its scratch from a
// reservation of exactly Msm::scratch_bytes(n) (or scratch_bytes(n, pre)), so the bound
// is checked too.
#include <gtest/gtest.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/thread_pool.hpp"
#include "cuda/allocator.hpp"
#include "cuda/cuda_test_util.hpp"
#include "msm/pippenger.hpp"
#include "msm_fixtures.hpp"

namespace cuzk::cuda {
namespace {

using msm_fixtures::Mix;
using testing::seeded_rng;

template <class G>
struct GroupTraits;
template <>
struct GroupTraits<bn254::G1Config> {
  static constexpr const char* kName = "bn254_G1";
  static constexpr size_t kMaxSize = size_t(1) << 22;
};
template <>
struct GroupTraits<bn254::G2Config> {
  static constexpr const char* kName = "bn254_G2";
  static constexpr size_t kMaxSize = size_t(1) << 16;
};
template <>
struct GroupTraits<bls12_381::G1Config> {
  static constexpr const char* kName = "bls12_381_G1";
  static constexpr size_t kMaxSize = size_t(1) << 20;
};
template <>
struct GroupTraits<bls12_381::G2Config> {
  static constexpr const char* kName = "bls12_381_G2";
  static constexpr size_t kMaxSize = size_t(1) << 16;
};

struct GroupNames {
  template <class G>
  static std::string GetName(int) {
    return GroupTraits<G>::kName;
  }
};

ThreadPool& pool() {
  static ThreadPool p;
  return p;
}

template <class G>
class DeviceMsm : public ::testing::Test {
 protected:
  using A = ec::Affine<G>;
  using J = ec::Jacobian<G>;
  using Int = typename G::Scalar::Int;
  static constexpr size_t kMax = GroupTraits<G>::kMaxSize;

  static void SetUpTestSuite() {
    if (!testing::no_device_reason().empty()) return;
    auto rng = seeded_rng(std::string("bases ") + GroupTraits<G>::kName);
    bases_ = std::make_unique<msm_fixtures::Bases<G>>(msm_fixtures::make_bases<G>(kMax, rng(), pool()));
  }
  static void TearDownTestSuite() { bases_.reset(); }

  void SetUp() override {
    CUZK_SKIP_WITHOUT_DEVICE();
    auto s = Stream::create();
    ASSERT_TRUE(s.is_ok()) << s.status().to_string();
    stream_ = std::make_unique<Stream>(std::move(s).value());
  }

  // The device MSM of scalars[offset ..] against bases[0 ..], scratch from a reservation
  // of exactly scratch_bytes(n).
  J gpu(const std::vector<A>& bases, const std::vector<Int>& scalars, size_t offset = 0, MsmStats* stats = nullptr,
        PhasePauses* pauses = nullptr) {
    const size_t n = scalars.size() - offset;
    auto in = msm_fixtures::upload<G>(bases, n, scalars, *stream_);
    EXPECT_TRUE(in.is_ok()) << in.status().to_string();
    if (!in.is_ok()) return J::infinity();
    auto alloc = DeviceAllocator::current();
    EXPECT_TRUE(alloc.is_ok());
    auto reservation = (*alloc)->reserve(Msm<G>::scratch_bytes(n), "msm test scratch");
    EXPECT_TRUE(reservation.is_ok()) << reservation.status().to_string();
    if (!reservation.is_ok()) return J::infinity();
    auto r = Msm<G>::run(in->bases.data(), in->scalars.data() + offset, n, *stream_, &*reservation, stats, pauses);
    EXPECT_TRUE(r.is_ok()) << r.status().to_string();
    return r.is_ok() ? *r : J::infinity();
  }

  // The device MSM with precomputed bases.
  J gpu_pre(const PrecomputedBases<G>& pre, const std::vector<Int>& scalars, MsmStats* stats = nullptr,
            PhasePauses* pauses = nullptr) {
    const size_t n = scalars.size();
    auto d_scalars = DeviceBuffer<Int>::allocate(n, "msm test scalars");
    EXPECT_TRUE(d_scalars.is_ok()) << d_scalars.status().to_string();
    if (!d_scalars.is_ok()) return J::infinity();
    EXPECT_TRUE(d_scalars->upload(std::span(scalars.data(), n), *stream_).is_ok());
    auto alloc = DeviceAllocator::current();
    EXPECT_TRUE(alloc.is_ok());
    auto reservation = (*alloc)->reserve(Msm<G>::scratch_bytes(n, pre), "msm test scratch");
    EXPECT_TRUE(reservation.is_ok()) << reservation.status().to_string();
    if (!reservation.is_ok()) return J::infinity();
    auto r = Msm<G>::run(pre, d_scalars->data(), n, *stream_, &*reservation, stats, pauses);
    EXPECT_TRUE(r.is_ok()) << r.status().to_string();
    return r.is_ok() ? *r : J::infinity();
  }

  DeviceBuffer<A> upload_bases(const std::vector<A>& bases) {
    auto d = DeviceBuffer<A>::allocate(bases.size(), "msm test bases");
    EXPECT_TRUE(d.is_ok()) << d.status().to_string();
    if (!d.is_ok()) return {};
    EXPECT_TRUE(d->upload(std::span(bases.data(), bases.size()), *stream_).is_ok());
    EXPECT_TRUE(stream_->synchronize().is_ok());
    return std::move(d).value();
  }

  J cpu(const std::vector<A>& bases, const std::vector<Int>& scalars, size_t offset = 0) {
    const size_t n = scalars.size() - offset;
    return msm::msm<G>(std::span(bases.data(), n), std::span(scalars.data() + offset, n), pool());
  }

  void expect_matches_cpu(const std::vector<A>& bases, const std::vector<Int>& scalars, const std::string& what) {
    MsmStats stats;
    const J g = gpu(bases, scalars, 0, &stats);
    const J c = cpu(bases, scalars);
    EXPECT_EQ(g.to_affine(), c.to_affine()) << what << ": n = " << scalars.size() << ", ones " << stats.ones
                                            << ", rest " << stats.rest << ", c = " << stats.window_bits << ", windows "
                                            << stats.windows << " in groups of " << stats.windows_per_group;
  }

  std::vector<A> prefix(size_t n) const { return {bases_->points.begin(), bases_->points.begin() + n}; }

  std::unique_ptr<Stream> stream_;
  static inline std::unique_ptr<msm_fixtures::Bases<G>> bases_;
};

// Asks for one pause, at its `at`-th question, and records whether the device had finished
// this stream's queued work when pause() ran (a paced run drains before it pauses).
class OnePause final : public PhasePauses {
 public:
  OnePause(const Stream& s, size_t at) : s_(s), at_(at) {}
  bool wanted() const override { return ++asked_ == at_; }
  void pause() override {
    ++paused_;
    drained_ = cudaStreamQuery(s_.get()) == cudaSuccess;
  }
  size_t asked() const { return asked_; }
  size_t paused() const { return paused_; }
  bool drained() const { return drained_; }

 private:
  const Stream& s_;
  size_t at_;
  mutable size_t asked_ = 0;
  size_t paused_ = 0;
  bool drained_ = false;
};

using Groups = ::testing::Types<bn254::G1Config, bn254::G2Config, bls12_381::G1Config, bls12_381::G2Config>;
TYPED_TEST_SUITE(DeviceMsm, Groups, GroupNames);

TYPED_TEST(DeviceMsm, UniformScalarsMatchCpuAtEverySize) {
  auto rng = seeded_rng("uniform");
  for (size_t n : {size_t(1), size_t(2), size_t(3), size_t(100), size_t(1) << 10, size_t(1) << 16, size_t(1) << 20,
                   size_t(1) << 22}) {
    if (n > this->kMax) break;
    this->expect_matches_cpu(this->prefix(n), msm_fixtures::make_scalars<TypeParam>(n, Mix::kUniform, rng), "uniform");
  }
}

TYPED_TEST(DeviceMsm, WitnessLikeScalarsMatchCpu) {
  auto rng = seeded_rng("witness");
  for (size_t n : {size_t(100), size_t(1) << 16, size_t(1) << 20}) {
    if (n > this->kMax) break;
    this->expect_matches_cpu(this->prefix(n), msm_fixtures::make_scalars<TypeParam>(n, Mix::kWitness, rng), "witness");
  }
}

TYPED_TEST(DeviceMsm, OnlyZeroAndOneScalarsMatchCpu) {
  auto rng = seeded_rng("zero-one");
  for (size_t n : {size_t(1), size_t(1000), this->kMax}) {
    this->expect_matches_cpu(this->prefix(n), msm_fixtures::make_scalars<TypeParam>(n, Mix::kZeroOne, rng), "0/1");
  }
}

TYPED_TEST(DeviceMsm, OneNonTrivialScalarAmongManyZeroOne) {
  auto rng = seeded_rng("one among many");
  const size_t n = this->kMax;
  auto s = msm_fixtures::make_scalars<TypeParam>(n, Mix::kZeroOne, rng);
  s[rng() % n] = TypeParam::Scalar::random(rng).to_canonical();
  this->expect_matches_cpu(this->prefix(n), s, "one non-trivial among 0/1");
}

TYPED_TEST(DeviceMsm, AllZeroScalarsGiveInfinity) {
  auto rng = seeded_rng("zero");
  for (size_t n : {size_t(1), size_t(1000)}) {
    auto s = msm_fixtures::make_scalars<TypeParam>(n, Mix::kZero, rng);
    EXPECT_TRUE(this->gpu(this->prefix(n), s).is_infinity()) << "n = " << n;
  }
}

TYPED_TEST(DeviceMsm, EmptyInputGivesInfinity) {
  const std::vector<ec::Affine<TypeParam>> none;
  EXPECT_EQ(Msm<TypeParam>::scratch_bytes(0), size_t(0));
  auto r = Msm<TypeParam>::run(nullptr, nullptr, 0, *this->stream_);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_TRUE(r->is_infinity());
}

// r - 1 in every position puts every point into one bucket of every window: the
// accumulation's load balance and its partial sums across threads carry everything.
TYPED_TEST(DeviceMsm, ScalarRMinusOneEverywhereMatchesCpu) {
  auto rng = seeded_rng("r-1");
  for (size_t n : {size_t(1), size_t(5000), std::min<size_t>(this->kMax, size_t(1) << 18)}) {
    this->expect_matches_cpu(this->prefix(n), msm_fixtures::make_scalars<TypeParam>(n, Mix::kMax, rng), "r-1");
  }
  auto s = msm_fixtures::make_scalars<TypeParam>(4096, Mix::kUniform, rng);
  for (size_t i = 0; i < s.size(); i += 3) s[i] = (-TypeParam::Scalar::one()).to_canonical();
  this->expect_matches_cpu(this->prefix(s.size()), s, "r-1 among uniform");
}

TYPED_TEST(DeviceMsm, SmallScalarsMatchCpu) {
  auto rng = seeded_rng("small");
  const size_t n = std::min<size_t>(this->kMax, size_t(1) << 18);
  this->expect_matches_cpu(this->prefix(n), msm_fixtures::make_scalars<TypeParam>(n, Mix::kSmall, rng), "2..17");
}

// The same base many times: equal points meet in one bucket, so the additions double.
TYPED_TEST(DeviceMsm, RepeatedPointsMatchCpu) {
  auto rng = seeded_rng("repeated");
  const size_t n = 4096;
  std::vector<ec::Affine<TypeParam>> same(n, this->bases_->points[rng() % this->kMax]);
  this->expect_matches_cpu(same, msm_fixtures::make_scalars<TypeParam>(n, Mix::kUniform, rng), "one base, uniform");
  this->expect_matches_cpu(same, msm_fixtures::make_scalars<TypeParam>(n, Mix::kSmall, rng), "one base, small");
  auto equal = std::vector<typename TypeParam::Scalar::Int>(n, TypeParam::Scalar::random(rng).to_canonical());
  this->expect_matches_cpu(same, equal, "one base, one scalar");
  std::vector<ec::Affine<TypeParam>> few(n);
  for (auto& p : few) p = this->bases_->points[rng() % 4];
  this->expect_matches_cpu(few, msm_fixtures::make_scalars<TypeParam>(n, Mix::kWitness, rng), "four bases, witness");
}

// Scalar d = 2 .. 301 taken d times, shuffled, plus uniform scalars: the runs of the small
// digits' buckets are 2 .. 301 entries long, so after levels 1 and 2 (4 entries a thread at
// this size, then 16 partials) they leave from one to ~20 partial sums, either side of what
// the merge of the partials sums itself (kMergePieces); the zero digits of the higher
// windows make runs of thousands. Plain and with precomputed bases (one bucket set).
TYPED_TEST(DeviceMsm, RunsOfEveryLengthMatchCpu) {
  using Int = typename TypeParam::Scalar::Int;
  auto rng = seeded_rng("run lengths");
  std::vector<Int> s;
  for (uint64_t d = 2; d <= 301; ++d) {
    Int x{};
    x.limb[0] = d;
    s.insert(s.end(), d, x);
  }
  while (s.size() < 50000) s.push_back(TypeParam::Scalar::random(rng).to_canonical());
  std::shuffle(s.begin(), s.end(), rng);
  const auto bases = this->prefix(s.size());
  this->expect_matches_cpu(bases, s, "runs of every length");
  const auto d_bases = this->upload_bases(bases);
  auto pre = PrecomputedBases<TypeParam>::build(d_bases.data(), s.size(), 12, *this->stream_);
  ASSERT_TRUE(pre.is_ok()) << pre.status().to_string();
  EXPECT_EQ(this->gpu_pre(*pre, s).to_affine(), this->cpu(bases, s).to_affine()) << "precomputed, 12-bit windows";
}

TYPED_TEST(DeviceMsm, InfinityAmongBasesMatchesCpu) {
  auto rng = seeded_rng("infinity");
  const size_t n = 10000;
  auto bases = this->prefix(n);
  for (size_t i = 0; i < n; i += 7) bases[i] = ec::Affine<TypeParam>::infinity();
  this->expect_matches_cpu(bases, msm_fixtures::make_scalars<TypeParam>(n, Mix::kUniform, rng), "uniform");
  this->expect_matches_cpu(bases, msm_fixtures::make_scalars<TypeParam>(n, Mix::kWitness, rng), "witness");
  std::vector<ec::Affine<TypeParam>> all_inf(100, ec::Affine<TypeParam>::infinity());
  EXPECT_TRUE(this->gpu(all_inf, msm_fixtures::make_scalars<TypeParam>(100, Mix::kUniform, rng)).is_infinity());
}

// The Groth16 L query: scalars from an offset into a longer vector, bases from their start.
TYPED_TEST(DeviceMsm, ScalarOffsetAgainstBasesFromZero) {
  auto rng = seeded_rng("offset");
  const size_t n = 3000, offset = 17;
  auto s = msm_fixtures::make_scalars<TypeParam>(n + offset, Mix::kWitness, rng);
  const auto bases = this->prefix(n);
  EXPECT_EQ(this->gpu(bases, s, offset).to_affine(), this->cpu(bases, s, offset).to_affine());
}

TYPED_TEST(DeviceMsm, ScratchStaysWithinScratchBytesAndIsFreed) {
  auto rng = seeded_rng("scratch");
  auto alloc = DeviceAllocator::current();
  ASSERT_TRUE(alloc.is_ok());
  const size_t before = (*alloc)->stats().allocated_bytes;
  for (Mix mix : {Mix::kUniform, Mix::kWitness, Mix::kMax}) {
    const size_t n = 5000;
    auto s = msm_fixtures::make_scalars<TypeParam>(n, mix, rng);
    (void)this->gpu(this->prefix(n), s);  // draws on a reservation of scratch_bytes(n)
  }
  EXPECT_EQ((*alloc)->stats().allocated_bytes, before);
}

// Every window width the reduction can meet: one chunk per row (c <= 4), a short tail,
// a long one, the wide first level (16 buckets a thread from 16 bits, 32 from 22 for
// BLS12-381 G1); keys of 18 and 20 bits (three sort passes); many windows per group.
TYPED_TEST(DeviceMsm, ForcedWindowWidthsMatchCpu) {
  auto rng = seeded_rng("forced widths");
  const size_t n = 5000;
  const auto bases = this->prefix(n);
  for (unsigned c : {2u, 3u, 4u, 5u, 7u, 9u, 12u, 16u, 18u, 20u, 22u}) {
    MsmStats stats;
    stats.force_window_bits = c;
    auto s = msm_fixtures::make_scalars<TypeParam>(n, c % 2 ? Mix::kUniform : Mix::kWitness, rng);
    auto in = msm_fixtures::upload<TypeParam>(bases, n, s, *this->stream_);
    ASSERT_TRUE(in.is_ok()) << in.status().to_string();
    // scratch_bytes() covers only the size's own width: the budget, not a reservation.
    auto g = Msm<TypeParam>::run(in->bases.data(), in->scalars.data(), n, *this->stream_, nullptr, &stats);
    ASSERT_TRUE(g.is_ok()) << g.status().to_string();
    EXPECT_EQ(stats.window_bits, c);
    EXPECT_EQ(g->to_affine(), this->cpu(bases, s).to_affine()) << "c = " << c;
  }
  MsmStats bad;
  bad.force_window_bits = 40;
  auto in = msm_fixtures::upload<TypeParam>(bases, n, msm_fixtures::make_scalars<TypeParam>(n, Mix::kUniform, rng),
                                            *this->stream_);
  ASSERT_TRUE(in.is_ok());
  EXPECT_FALSE(Msm<TypeParam>::run(in->bases.data(), in->scalars.data(), n, *this->stream_, nullptr, &bad).is_ok());
}

// Copy j of the table is 2^(c·j)·P for every base (copy 0 the bases), the infinity included.
TYPED_TEST(DeviceMsm, PrecomputedCopiesAreShiftedBases) {
  using A = ec::Affine<TypeParam>;
  using J = ec::Jacobian<TypeParam>;
  const size_t n = 1000;
  auto bases = this->prefix(n);
  bases[5] = A::infinity();
  const auto d_bases = this->upload_bases(bases);
  const unsigned c = 13;
  auto pre = PrecomputedBases<TypeParam>::build(d_bases.data(), n, c, *this->stream_);
  ASSERT_TRUE(pre.is_ok()) << pre.status().to_string();
  EXPECT_EQ(pre->windows(), PrecomputedBases<TypeParam>::windows_for(c));
  EXPECT_EQ(pre->table_bytes(), PrecomputedBases<TypeParam>::bytes(n, c));
  std::vector<A> table(size_t(pre->windows()) * n);
  ASSERT_TRUE(copy_async(table.data(), pre->table(), table.size() * sizeof(A), cudaMemcpyDeviceToHost,
                         this->stream_->get(), "test.table")
                  .is_ok());
  ASSERT_TRUE(this->stream_->synchronize().is_ok());
  for (size_t i : {size_t(0), size_t(5), size_t(17), n - 1}) {
    EXPECT_EQ(table[i], bases[i]) << "point " << i << ", copy 0";
    J p = J::from_affine(bases[i]);
    for (unsigned j = 1; j < pre->windows(); ++j) {
      for (unsigned d = 0; d < c; ++d) p = p.dbl();
      EXPECT_EQ(table[size_t(j) * n + i], p.to_affine()) << "point " << i << ", copy " << j;
    }
  }
}

TYPED_TEST(DeviceMsm, PrecomputedBasesMatchCpu) {
  auto rng = seeded_rng("precomputed");
  const size_t nmax = this->kMax;
  const auto bases = this->prefix(nmax);
  const auto d_bases = this->upload_bases(bases);
  for (unsigned c : {8u, PrecomputedBases<TypeParam>::choose_window_bits(nmax)}) {
    auto pre = PrecomputedBases<TypeParam>::build(d_bases.data(), nmax, c, *this->stream_);
    ASSERT_TRUE(pre.is_ok()) << pre.status().to_string();
    struct Case {
      Mix mix;
      size_t n;
    };
    for (const Case& k : {Case{Mix::kUniform, 1}, Case{Mix::kUniform, 3}, Case{Mix::kUniform, 1000},
                          Case{Mix::kUniform, nmax}, Case{Mix::kWitness, nmax}, Case{Mix::kZeroOne, nmax},
                          Case{Mix::kMax, 5000}, Case{Mix::kSmall, 5000}, Case{Mix::kZero, 100}}) {
      auto s = msm_fixtures::make_scalars<TypeParam>(k.n, k.mix, rng);
      if (k.mix == Mix::kZeroOne) s[rng() % k.n] = TypeParam::Scalar::random(rng).to_canonical();
      MsmStats stats;
      const auto g = this->gpu_pre(*pre, s, &stats);
      const std::vector<ec::Affine<TypeParam>> prefix(bases.begin(), bases.begin() + k.n);
      EXPECT_EQ(g.to_affine(), this->cpu(prefix, s).to_affine())
          << "c = " << c << ", n = " << k.n << ", mix " << int(k.mix) << ", rest " << stats.rest;
      if (stats.rest != 0) {
        EXPECT_TRUE(stats.precomputed);
      }
    }
  }
}

// Window groups of one and of three windows (MsmStats::group_entries), plain and with
// precomputed bases: each group's bucket sets and, with precomputed bases, the folds of the
// later groups into the one set, at a size where the default takes every window at once.
TYPED_TEST(DeviceMsm, SeveralWindowGroupsMatchCpu) {
  auto rng = seeded_rng("window groups");
  const size_t n = std::min<size_t>(this->kMax, 5000);
  const auto bases = this->prefix(n);
  const auto d_bases = this->upload_bases(bases);
  auto pre = PrecomputedBases<TypeParam>::build(d_bases.data(), n, 10, *this->stream_);
  ASSERT_TRUE(pre.is_ok()) << pre.status().to_string();
  const auto s = msm_fixtures::make_scalars<TypeParam>(n, Mix::kUniform, rng);
  const auto want = this->cpu(bases, s).to_affine();
  for (unsigned per_group : {1u, 3u}) {
    MsmStats plain;
    plain.group_entries = per_group * n;
    EXPECT_EQ(this->gpu(bases, s, 0, &plain).to_affine(), want) << per_group << " windows per group";
    EXPECT_EQ(plain.windows_per_group, per_group);
    MsmStats shared;
    shared.group_entries = per_group * n;
    EXPECT_EQ(this->gpu_pre(*pre, s, &shared).to_affine(), want) << per_group << " windows per group, precomputed";
    EXPECT_TRUE(shared.precomputed);
    EXPECT_EQ(shared.windows_per_group, per_group);
    EXPECT_GT(shared.windows, 2 * per_group);
  }
}

// Precomputed windows of 17 to 24 bits over a few thousand points (the tests above use the
// width their sizes choose), every window at once and in groups of three.
TYPED_TEST(DeviceMsm, PrecomputedWideWindowsMatchCpu) {
  auto rng = seeded_rng("precomputed wide");
  const size_t n = std::min<size_t>(this->kMax, 3000);
  const auto bases = this->prefix(n);
  const auto d_bases = this->upload_bases(bases);
  for (unsigned c : {17u, 20u, 21u, 22u, 24u}) {
    auto pre = PrecomputedBases<TypeParam>::build(d_bases.data(), n, c, *this->stream_);
    ASSERT_TRUE(pre.is_ok()) << pre.status().to_string();
    for (Mix mix : {Mix::kUniform, Mix::kWitness, Mix::kMax, Mix::kSmall}) {
      const auto s = msm_fixtures::make_scalars<TypeParam>(n, mix, rng);
      const auto want = this->cpu(bases, s).to_affine();
      MsmStats one;
      EXPECT_EQ(this->gpu_pre(*pre, s, &one).to_affine(), want) << "c = " << c << ", mix " << int(mix);
      EXPECT_EQ(one.window_bits, c);
      MsmStats grouped;
      grouped.group_entries = 3 * n;
      EXPECT_EQ(this->gpu_pre(*pre, s, &grouped).to_affine(), want)
          << "c = " << c << ", mix " << int(mix) << ", groups";
      if (mix == Mix::kUniform) {
        EXPECT_EQ(grouped.windows_per_group, 3u);
      }
    }
  }
}

TYPED_TEST(DeviceMsm, PrecomputedWithInfinityAndRepeatedBasesMatchesCpu) {
  auto rng = seeded_rng("precomputed edge");
  const size_t n = 10000;
  auto bases = this->prefix(n);
  for (size_t i = 0; i < n; i += 7) bases[i] = ec::Affine<TypeParam>::infinity();
  for (size_t i = 3; i < n; i += 5) bases[i] = bases[1];
  // The table holds every copy: the bases it was built from may go.
  auto pre = [&] {
    const auto d_bases = this->upload_bases(bases);
    return PrecomputedBases<TypeParam>::build(d_bases.data(), n, 11, *this->stream_);
  }();
  ASSERT_TRUE(pre.is_ok()) << pre.status().to_string();
  for (Mix mix : {Mix::kUniform, Mix::kWitness, Mix::kMax}) {
    auto s = msm_fixtures::make_scalars<TypeParam>(n, mix, rng);
    EXPECT_EQ(this->gpu_pre(*pre, s).to_affine(), this->cpu(bases, s).to_affine()) << int(mix);
  }
}

TYPED_TEST(DeviceMsm, PrecomputedRejectsBadArguments) {
  auto rng = seeded_rng("precomputed args");
  const size_t n = 100;
  const auto d_bases = this->upload_bases(this->prefix(n));
  EXPECT_FALSE(PrecomputedBases<TypeParam>::build(d_bases.data(), n, 7, *this->stream_).is_ok());
  EXPECT_FALSE(PrecomputedBases<TypeParam>::build(d_bases.data(), n, 29, *this->stream_).is_ok());
  EXPECT_FALSE(PrecomputedBases<TypeParam>::build(d_bases.data(), 0, 10, *this->stream_).is_ok());
  EXPECT_EQ(PrecomputedBases<TypeParam>::bytes(n, 7), size_t(0));
  auto pre = PrecomputedBases<TypeParam>::build(d_bases.data(), n, 10, *this->stream_);
  ASSERT_TRUE(pre.is_ok()) << pre.status().to_string();
  auto s = msm_fixtures::make_scalars<TypeParam>(n + 1, Mix::kUniform, rng);
  auto d_s = DeviceBuffer<typename TypeParam::Scalar::Int>::allocate(n + 1, "msm test scalars");
  ASSERT_TRUE(d_s.is_ok());
  EXPECT_FALSE(Msm<TypeParam>::run(*pre, d_s->data(), n + 1, *this->stream_).is_ok());
}

}  // namespace
}  // namespace cuzk::cuda

namespace cuzk::cuda {
namespace {

// Paced runs (what a proof that may give way to a CRITICAL one does): the long launches cut
// into slices (small ones here, so that every group gets many at test sizes) give the same
// sums, a boundary between every two slices, and one pause, taken on a drained stream.
TYPED_TEST(DeviceMsm, PacedRunsMatchCpuAndPauseOnADrainedStream) {
  auto rng = seeded_rng("paced");
  const size_t n = std::min<size_t>(this->kMax, size_t(1) << 16);
  const auto bases = this->prefix(n);
  const auto d_bases = this->upload_bases(bases);
  auto pre = PrecomputedBases<TypeParam>::build(d_bases.data(), n, 12, *this->stream_);
  ASSERT_TRUE(pre.is_ok()) << pre.status().to_string();
  for (Mix mix : {Mix::kUniform, Mix::kWitness}) {
    for (bool precomputed : {false, true}) {
      const auto s = msm_fixtures::make_scalars<TypeParam>(n, mix, rng);
      MsmStats stats;
      stats.paced_slice_entries = 4096;
      OnePause pauses(*this->stream_, 3);
      const auto g = precomputed ? this->gpu_pre(*pre, s, &stats, &pauses) : this->gpu(bases, s, 0, &stats, &pauses);
      const std::string what = std::string(precomputed ? "precomputed" : "plain") + ", mix " + std::to_string(int(mix));
      EXPECT_EQ(g.to_affine(), this->cpu(bases, s).to_affine()) << what << ", rest " << stats.rest;
      // Entries (windows x rest, and the ones) over 4096 each, less one per launch series.
      EXPECT_GE(stats.paced_boundaries, stats.rest * stats.windows / 4096 / 2) << what;
      EXPECT_GT(stats.paced_boundaries, 3u) << what;
      EXPECT_EQ(pauses.asked(), stats.paced_boundaries) << what;
      EXPECT_EQ(pauses.paused(), 1u) << what;
      EXPECT_TRUE(pauses.drained()) << what;
    }
  }
  // Unpaced, the same call cuts nothing.
  const auto s = msm_fixtures::make_scalars<TypeParam>(n, Mix::kUniform, rng);
  MsmStats stats;
  stats.paced_slice_entries = 4096;
  EXPECT_EQ(this->gpu(bases, s, 0, &stats).to_affine(), this->cpu(bases, s).to_affine());
  EXPECT_EQ(stats.paced_boundaries, 0u);
}

}  // namespace
}  // namespace cuzk::cuda

namespace cuzk::cuda {
namespace {

// The batched-affine level-1 accumulation (cuda/msm/msm_affine.hpp), forced on through
// MsmStats::accumulation = 2 (G1; G2 ignores it and takes XYZZ). Aimed at what the rounds
// must get exactly right: equal points in one bucket (doublings), P and -P in one bucket
// (cancellation, also down to nothing left), infinity among the bases, one bucket holding
// everything, and the precomputed and forced-width plans.
template <class G>
class AffineMsm : public DeviceMsm<G> {
 protected:
  using A = ec::Affine<G>;
  using Int = typename G::Scalar::Int;

  // The device MSM with the affine path forced, scratch from the budget.
  void expect_affine_matches_cpu(const std::vector<A>& bases, const std::vector<Int>& scalars, const std::string& what,
                                 unsigned force_c = 0) {
    const size_t n = scalars.size();
    auto in = msm_fixtures::upload<G>(bases, n, scalars, *this->stream_);
    ASSERT_TRUE(in.is_ok()) << in.status().to_string();
    MsmStats stats;
    stats.accumulation = 2;
    stats.force_window_bits = force_c;
    auto g = Msm<G>::run(in->bases.data(), in->scalars.data(), n, *this->stream_, nullptr, &stats);
    ASSERT_TRUE(g.is_ok()) << g.status().to_string();
    EXPECT_EQ(g->to_affine(), this->cpu(bases, scalars).to_affine())
        << what << ": n = " << n << ", rest " << stats.rest << ", c = " << stats.window_bits << ", rounds "
        << stats.affine_rounds;
    if (stats.rest != 0) {
      EXPECT_EQ(stats.affine_rounds != 0, !kG2) << what;
    }
  }
  static constexpr bool kG2 = requires { typename G::Base::Fq; };
};
TYPED_TEST_SUITE(AffineMsm, Groups, GroupNames);

TYPED_TEST(AffineMsm, UniformAndWitnessScalarsMatchCpu) {
  auto rng = seeded_rng("affine uniform");
  for (size_t n : {size_t(1), size_t(2), size_t(3), size_t(100), size_t(5000), size_t(1) << 16, this->kMax}) {
    if (this->kG2 && n > 5000) return;  // G2 ignores the switch: a small check is enough
    this->expect_affine_matches_cpu(this->prefix(n), msm_fixtures::make_scalars<TypeParam>(n, Mix::kUniform, rng),
                                    "uniform");
  }
  this->expect_affine_matches_cpu(this->prefix(this->kMax),
                                  msm_fixtures::make_scalars<TypeParam>(this->kMax, Mix::kWitness, rng), "witness");
}

// One base and one scalar: every window's entries are one bucket of equal points, so the
// rounds' pairs are all doublings (and their sums equal again, round after round).
TYPED_TEST(AffineMsm, ManyEqualPointsInOneBucketMatchCpu) {
  if (this->kG2) return;  // G2 takes XYZZ whatever the switch says
  auto rng = seeded_rng("affine equal");
  for (size_t n : {size_t(2), size_t(7), size_t(4096), size_t(1) << 16}) {
    std::vector<ec::Affine<TypeParam>> same(n, this->bases_->points[rng() % this->kMax]);
    auto equal = std::vector<typename TypeParam::Scalar::Int>(n, TypeParam::Scalar::random(rng).to_canonical());
    this->expect_affine_matches_cpu(same, equal, "one base, one scalar");
    this->expect_affine_matches_cpu(same, msm_fixtures::make_scalars<TypeParam>(n, Mix::kSmall, rng),
                                    "one base, small");
  }
  std::vector<ec::Affine<TypeParam>> few(1 << 16);
  for (auto& p : few) p = this->bases_->points[rng() % 3];
  this->expect_affine_matches_cpu(few, msm_fixtures::make_scalars<TypeParam>(few.size(), Mix::kSmall, rng),
                                  "three bases, small");
}

// P and -P with one scalar land in one bucket and cancel: pairs of them, a whole bucket of
// them (nothing left at all), and among other points (the runs change length unevenly).
TYPED_TEST(AffineMsm, PointAndItsNegationInOneBucketMatchCpu) {
  if (this->kG2) return;  // G2 takes XYZZ whatever the switch says
  auto rng = seeded_rng("affine negation");
  using A = ec::Affine<TypeParam>;
  for (size_t n : {size_t(2), size_t(4096), size_t(1) << 16}) {
    const A p = this->bases_->points[rng() % this->kMax];
    std::vector<A> pm(n);
    for (size_t i = 0; i < n; ++i) pm[i] = i % 2 ? -p : p;
    auto equal = std::vector<typename TypeParam::Scalar::Int>(n, TypeParam::Scalar::random(rng).to_canonical());
    this->expect_affine_matches_cpu(pm, equal, "P, -P, one scalar (sum 0)");
    equal.back() = TypeParam::Scalar::random(rng).to_canonical();
    this->expect_affine_matches_cpu(pm, equal, "P, -P, one scalar but the last");
    // Random bases with their negations at random places, each pair sharing a scalar.
    auto s = msm_fixtures::make_scalars<TypeParam>(n, Mix::kUniform, rng);
    auto bases = this->prefix(n);
    for (size_t i = 0; i + 1 < n; i += 2) {
      const size_t j = rng() % n;
      bases[j] = -bases[i];
      s[j] = s[i];
    }
    this->expect_affine_matches_cpu(bases, s, "random bases and negations");
    std::vector<A> mixed(n);
    for (size_t i = 0; i < n; ++i) mixed[i] = rng() % 2 ? p : -p;
    this->expect_affine_matches_cpu(mixed, msm_fixtures::make_scalars<TypeParam>(n, Mix::kSmall, rng),
                                    "P and -P at random, small scalars");
  }
}

TYPED_TEST(AffineMsm, InfinityAndOneBucketMatchCpu) {
  if (this->kG2) return;  // G2 takes XYZZ whatever the switch says
  auto rng = seeded_rng("affine infinity");
  const size_t n = size_t(1) << 16;
  auto bases = this->prefix(n);
  for (size_t i = 0; i < n; i += 7) bases[i] = ec::Affine<TypeParam>::infinity();
  this->expect_affine_matches_cpu(bases, msm_fixtures::make_scalars<TypeParam>(n, Mix::kUniform, rng), "uniform");
  this->expect_affine_matches_cpu(bases, msm_fixtures::make_scalars<TypeParam>(n, Mix::kSmall, rng), "small");
  std::vector<ec::Affine<TypeParam>> all_inf(5000, ec::Affine<TypeParam>::infinity());
  this->expect_affine_matches_cpu(all_inf, msm_fixtures::make_scalars<TypeParam>(5000, Mix::kUniform, rng),
                                  "all infinity");
  for (size_t m : {size_t(5000), std::min<size_t>(this->kMax, size_t(1) << 18)}) {
    this->expect_affine_matches_cpu(this->prefix(m), msm_fixtures::make_scalars<TypeParam>(m, Mix::kMax, rng), "r-1");
  }
}

TYPED_TEST(AffineMsm, ForcedWidthsAndPrecomputedBasesMatchCpu) {
  if (this->kG2) return;  // G2 takes XYZZ whatever the switch says
  auto rng = seeded_rng("affine widths");
  const size_t n = 5000;
  for (unsigned c : {2u, 5u, 9u, 16u}) {
    this->expect_affine_matches_cpu(this->prefix(n), msm_fixtures::make_scalars<TypeParam>(n, Mix::kUniform, rng),
                                    "forced width", c);
  }
  const size_t m = std::min<size_t>(this->kMax, size_t(1) << 18);
  const auto bases = this->prefix(m);
  const auto d_bases = this->upload_bases(bases);
  auto pre = PrecomputedBases<TypeParam>::build(d_bases.data(), m, 12, *this->stream_);
  ASSERT_TRUE(pre.is_ok()) << pre.status().to_string();
  for (Mix mix : {Mix::kUniform, Mix::kWitness, Mix::kMax}) {
    const auto s = msm_fixtures::make_scalars<TypeParam>(m, mix, rng);
    auto d_s = DeviceBuffer<typename TypeParam::Scalar::Int>::allocate(m, "msm test scalars");
    ASSERT_TRUE(d_s.is_ok());
    ASSERT_TRUE(d_s->upload(std::span(s.data(), m), *this->stream_).is_ok());
    MsmStats stats;
    stats.accumulation = 2;
    auto g = Msm<TypeParam>::run(*pre, d_s->data(), m, *this->stream_, nullptr, &stats);
    ASSERT_TRUE(g.is_ok()) << g.status().to_string();
    EXPECT_EQ(g->to_affine(), this->cpu(bases, s).to_affine()) << "precomputed, mix " << int(mix);
    EXPECT_EQ(stats.affine_rounds != 0, !this->kG2);
  }
  MsmStats bad;
  bad.accumulation = 3;
  auto in = msm_fixtures::upload<TypeParam>(
      this->prefix(n), n, msm_fixtures::make_scalars<TypeParam>(n, Mix::kUniform, rng), *this->stream_);
  ASSERT_TRUE(in.is_ok());
  EXPECT_FALSE(Msm<TypeParam>::run(in->bases.data(), in->scalars.data(), n, *this->stream_, nullptr, &bad).is_ok());
}

}  // namespace
}  // namespace cuzk::cuda
