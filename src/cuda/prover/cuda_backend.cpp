#include "cuda/prover/cuda_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
#include <numeric>
#include <optional>
#include <system_error>
#include <vector>

#include "core/elapsed.hpp"
#include "cuda/allocator.hpp"
#include "cuda/device.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/fault.hpp"
#include "cuda/msm/msm.hpp"
#include "cuda/ntt/ntt.hpp"
#include "cuda/pacer.hpp"
#include "cuda/prover/synthesis.hpp"
#include "cuda/stream.hpp"
#include "groth16/section_placement.hpp"

namespace cuzk::cuda {
namespace {

using Clock = SteadyClock;

unsigned log2_exact(size_t n) {
  unsigned k = 0;
  while ((size_t(1) << k) < n) ++k;
  return k;
}

// The five MSMs of a proof.
using Section = groth16::MsmSection;
using groth16::SectionSet;
constexpr size_t kSections = groth16::kMsmSections;

std::string gib(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(size_t(1) << 30));
  return buf;
}

// Which lane runs which MSM. Lane 0 runs the H chain (synthesis, H pipeline, H MSM: the
// longest); the others share A, B1, B2 and L, each to the lane with the least expected
// work so far (a G2 MSM costs about four G1 MSMs). One lane runs all five, H first. A
// mixed key's streamed sections other than H get the last lane to themselves: their copies
// over the host link run beside the rest from the start, and that lane holds only a
// chunk's scratch and buffers; with two lanes the resident ones follow H in lane 0.
std::vector<std::vector<Section>> plan_lanes(unsigned lanes, SectionSet streamed) {
  std::vector<std::vector<Section>> plan(std::max(1u, lanes));
  plan[0].push_back(Section::kH);
  if (plan.size() == 1) {
    for (Section sec : {Section::kA, Section::kB1, Section::kB2, Section::kL}) plan[0].push_back(sec);
    return plan;
  }
  SectionSet apart;
  if (!streamed.full()) {
    for (Section sec : {Section::kA, Section::kB1, Section::kB2, Section::kL}) {
      if (streamed.has(sec)) apart.add(sec);
    }
  }
  const size_t shared = apart.empty() ? plan.size() : plan.size() - 1;  // lanes 1 .. shared-1 share the rest
  std::vector<unsigned> load(plan.size(), 0);
  for (Section sec : {Section::kB2, Section::kA, Section::kB1, Section::kL}) {
    if (apart.has(sec)) {
      plan.back().push_back(sec);
      continue;
    }
    if (shared == 1) {
      plan[0].push_back(sec);
      continue;
    }
    size_t best = 1;
    for (size_t i = 2; i < shared; ++i) {
      if (load[i] < load[best]) best = i;
    }
    plan[best].push_back(sec);
    load[best] += sec == Section::kB2 ? 4 : 1;
  }
  return plan;
}

// A key as the device holds it.
template <class C>
class DeviceKey final : public groth16::PreparedKey<C> {
 public:
  using Fr = typename C::Fr;
  using G1 = ec::Affine<typename C::G1>;
  using G2 = ec::Affine<typename C::G2>;

  using G1C = typename C::G1;
  using G2C = typename C::G2;

  DeviceKey(const groth16::KeyView<C>& v, NttDomain<Fr> d) : groth16::PreparedKey<C>(v), ntt(std::move(d)) {}
  ~DeviceKey() override {
    if (counter) counter->fetch_sub(resident);
  }
  std::string placement() const override {
    if (streamed.empty()) return "device";
    if (streamed.full()) return "streamed";
    return "mixed (streamed: " + groth16::describe(streamed) + ")";
  }
  size_t resident_bytes() const override { return resident; }
  std::string notes() const override { return notes_text; }

  // The plain device copy of a G1 section (empty once its precomputed table replaced it).
  DeviceBuffer<G1>& g1_points(Section sec) {
    switch (sec) {
      case Section::kA:
        return a;
      case Section::kB1:
        return b1;
      case Section::kL:
        return c;
      default:
        return h;
    }
  }
  const PrecomputedBases<G1C>* pre1(Section sec) const {
    const auto& p = pre_g1[size_t(sec)];
    return p ? &*p : nullptr;
  }
  const PrecomputedBases<G2C>* pre2() const { return pre_b2 ? &*pre_b2 : nullptr; }
  // Where a streamed section's points are read from: the page-locked copy prepare_with_points
  // moved them to, else the zkey's own (mapped) section.
  std::span<const G1> host_g1(Section sec) const {
    if (!moved_g1[size_t(sec)].empty()) return moved_g1[size_t(sec)].span();
    const formats::Zkey<C>& z = *this->view().zkey;
    switch (sec) {
      case Section::kA:
        return z.a();
      case Section::kB1:
        return z.b1();
      case Section::kL:
        return z.c();
      default:
        return z.h();
    }
  }
  std::span<const G2> host_b2() const {
    return moved_b2.empty() ? this->view().zkey->b2() : std::span<const G2>(moved_b2.span());
  }

  NttDomain<Fr> ntt;
  DeviceBuffer<uint32_t> row_start[2], signal[2];
  DeviceBuffer<Fr> coef[2];
  // The point sections; a streamed one is empty here (host_g1, host_b2 say where it is).
  DeviceBuffer<G1> a, b1, c, h;
  DeviceBuffer<G2> b2;
  // Sections read from host memory in every proof: none (all resident), some ("mixed": the
  // device could not hold them all beside a proof), or all ("streamed").
  SectionSet streamed;
  // Sections of a device-built key moved to page-locked host memory to make room (by
  // MsmSection; only those in `streamed`, and only with prepare_with_points).
  PinnedBuffer<G1> moved_g1[kSections];
  PinnedBuffer<G2> moved_b2;
  // Precomputed bases of the sections that have them (G1 ones by Section), else empty.
  std::optional<PrecomputedBases<G1C>> pre_g1[kSections];
  std::optional<PrecomputedBases<G2C>> pre_b2;
  std::string notes_text;
  unsigned lane_cap = kSections;  // the most MSM lanes whose working set fit beside the points
  size_t resident = 0;
  std::shared_ptr<std::atomic<size_t>> counter;  // the backend's resident-bytes total

  DeviceRows<Fr> rows(int m) const { return {row_start[m].data(), signal[m].data(), coef[m].data()}; }
};

template <class C>
struct DeviceJob final : groth16::ProofJob<C> {
  using Scalar = typename C::Fr::Int;
  DeviceJob(Stream cp, Stream st, Event ev) : copy(std::move(cp)), stream(std::move(st)), uploaded(std::move(ev)) {}
  Stream copy, stream;
  Event uploaded;
  Reservation upload_reservation;
  DeviceBuffer<Scalar> witness;
  size_t n_vars = 0;
  groth16::MsmSums<C> sums;
  bool computed = false;
};

template <class T>
Result<DeviceBuffer<T>> upload_span(std::span<const T> host, const char* site, const Stream& s) {
  CUZK_ASSIGN_OR_RETURN(auto buf, DeviceBuffer<T>::allocate(host.size(), site));
  CUZK_RETURN_IF_ERROR(buf.upload(host, s));
  return Result<DeviceBuffer<T>>(std::move(buf));
}

// The MSM of one key section: from the resident copy, or streamed from host memory in
// chunks through two device buffers (the copy of chunk k+1 runs while chunk k's MSM does).
template <class G>
Result<ec::Jacobian<G>> section_msm(const DeviceBuffer<ec::Affine<G>>& resident, const PrecomputedBases<G>* pre,
                                    std::span<const ec::Affine<G>> host, const typename G::Scalar::Int* d_scalars,
                                    size_t n, bool streamed, size_t chunk_points, const Stream& stream,
                                    const Stream& copy, Reservation* from, PhasePauses* pauses) {
  using A = ec::Affine<G>;
  if (pre != nullptr) return Msm<G>::run(*pre, d_scalars, n, stream, from, nullptr, pauses);
  if (!streamed) return Msm<G>::run(resident.data(), d_scalars, n, stream, from, nullptr, pauses);
  ec::Jacobian<G> sum = ec::Jacobian<G>::infinity();
  if (n == 0) return sum;
  const size_t chunk = std::min(chunk_points, n);
  DeviceBuffer<A> buf[2];
  CUZK_ASSIGN_OR_RETURN(buf[0], DeviceBuffer<A>::allocate(chunk, "prover.stream_chunk", from));
  if (n > chunk) {
    CUZK_ASSIGN_OR_RETURN(buf[1], DeviceBuffer<A>::allocate(chunk, "prover.stream_chunk", from));
  }
  CUZK_ASSIGN_OR_RETURN(Event ready0, Event::create(false));
  CUZK_ASSIGN_OR_RETURN(Event ready1, Event::create(false));
  Event* ready[2] = {&ready0, &ready1};
  // The key's host memory is pageable, so a copy from it holds the calling thread until
  // the data is staged: copies are issued from a helper thread while this one runs the MSM.
  int device = 0;
  CUZK_CUDA_RETURN_IF_ERROR(cudaGetDevice(&device), "cudaGetDevice");
  auto issue = [&](size_t k) -> Status {
    CUZK_RETURN_IF_ERROR(set_device(device));
    const size_t lo = k * chunk, len = std::min(chunk, n - lo);
    CUZK_RETURN_IF_ERROR(buf[k % 2].upload(host.subspan(lo, len), copy));
    return ready[k % 2]->record(copy);
  };
  const size_t chunks = (n + chunk - 1) / chunk;
  CUZK_RETURN_IF_ERROR(issue(0));
  for (size_t k = 0; k < chunks; ++k) {
    CUZK_RETURN_IF_ERROR(stream.wait(*ready[k % 2]));
    // Msm::run returns once chunk k-1's sum is on the host, so buffer (k+1)%2 is free.
    std::future<Status> next;
    if (k + 1 < chunks) next = std::async(std::launch::async, issue, k + 1);
    const size_t lo = k * chunk, len = std::min(chunk, n - lo);
    auto part = Msm<G>::run(buf[k % 2].data(), d_scalars + lo, len, stream, from, nullptr, pauses);
    Status copied = next.valid() ? next.get() : Status::ok();
    if (!part.is_ok()) return part.status();
    CUZK_RETURN_IF_ERROR(copied);
    sum = sum + *part;
  }
  return sum;
}

// The kernel region's device bytes for `key` run in `lanes` lanes.
template <class C>
size_t working_bytes(const DeviceKey<C>& key, unsigned lanes, size_t stream_chunk_points) {
  using Fr = typename C::Fr;
  using G1 = ec::Affine<typename C::G1>;
  using G2 = ec::Affine<typename C::G2>;
  using G1C = typename C::G1;
  using G2C = typename C::G2;
  const auto& hdr = key.view().zkey->header();
  const size_t n = hdr.domain_size;
  const size_t vars = hdr.n_vars;
  const size_t abc = 3 * n * sizeof(Fr) + snarkjs_h_scratch_bytes<Fr>(log2_exact(n));
  const size_t first_private = size_t(hdr.n_public) + 1;
  auto points = [&](Section sec) -> size_t {
    switch (sec) {
      case Section::kH:
        return n;
      case Section::kL:
        return vars - first_private;
      default:
        return vars;
    }
  };
  // One section's MSM: a streamed one runs chunk by chunk beside its two chunk buffers
  // (section_msm); a section with precomputed bases runs their MSM, whose scratch differs.
  auto scratch = [&](Section sec) -> size_t {
    const size_t m = points(sec);
    if (key.streamed.has(sec)) {
      const size_t chunk = std::min(stream_chunk_points, m);
      return sec == Section::kB2 ? Msm<G2C>::scratch_bytes(chunk) + 2 * chunk * sizeof(G2)
                                 : Msm<G1C>::scratch_bytes(chunk) + 2 * chunk * sizeof(G1);
    }
    if (sec == Section::kB2) {
      return key.pre2() != nullptr ? Msm<G2C>::scratch_bytes(m, *key.pre2()) : Msm<G2C>::scratch_bytes(m);
    }
    const auto* pre = key.pre1(sec);
    return pre != nullptr ? Msm<G1C>::scratch_bytes(m, *pre) : Msm<G1C>::scratch_bytes(m);
  };
  // The lanes run at once, each one MSM at a time: the peak is the sum over lanes of the
  // largest scratch in each, beside a, b, c (which live to the end).
  size_t msm = 0;
  for (const auto& lane : plan_lanes(lanes, key.streamed)) {
    size_t most = 0;
    for (Section sec : lane) most = std::max(most, scratch(sec));
    msm += most;
  }
  return abc + msm;
}

// Where the tables of one key stand while prepare() builds them.
struct TablePlan {
  size_t cap = 0;                 // the most the tables may add to the key
  size_t extra = 0;               // what the kept ones add (each table less the plain copy it replaces)
  size_t upload = 0;              // a proof's upload bytes, which must fit beside them
  size_t chunk = 0;               // stream_chunk_points (for working_bytes)
  unsigned lanes = 1;             // the MSM lanes a proof runs in
  size_t min_points = 0;          // smaller sections keep their plain bases
  bool stop = false;              // an allocation failed: no further tables
  std::vector<std::string> said;  // one phrase per section
};

// Builds `bases`' precomputed table into `slot` if it fits the plan and the budget, then
// frees the plain copy (the table's copy 0 holds the same points). A lack of memory (a
// failed allocation, injected or real) skips the table and stops the plan; any other
// failure is returned, and prepare() fails.
template <class C, class G>
Status try_table(DeviceKey<C>& key, Section sec, DeviceBuffer<ec::Affine<G>>& bases,
                 std::optional<PrecomputedBases<G>>& slot, TablePlan& plan, DeviceAllocator& alloc, const Stream& s) {
  using Pre = PrecomputedBases<G>;
  const std::string name = groth16::msm_section_name(sec);
  const size_t n = bases.size();
  if (key.streamed.has(sec)) {
    plan.said.push_back(name + " skipped (streamed from host memory)");
    return Status::ok();
  }
  if (plan.stop) {
    plan.said.push_back(name + " skipped (an earlier table could not be allocated)");
    return Status::ok();
  }
  if (n == 0) {
    plan.said.push_back(name + " skipped (no points)");
    return Status::ok();
  }
  if (n < plan.min_points) {
    plan.said.push_back(name + " skipped (" + std::to_string(n) + " points, fewer than the " +
                        std::to_string(plan.min_points) + " where tables pay)");
    return Status::ok();
  }
  const unsigned c = Pre::choose_window_bits(n);
  const unsigned windows = Pre::windows_for(c);
  if (size_t(windows) * n >= (size_t(1) << 31)) {
    plan.said.push_back(name + " skipped (" + std::to_string(n) + " points: too many for one table)");
    return Status::ok();
  }
  const size_t table = Pre::bytes(n, c);
  const size_t add = table - bases.size_bytes();
  if (plan.extra + add > plan.cap) {
    plan.said.push_back(name + " skipped (would add " + gib(add) + ", over the cap with " + gib(plan.extra) +
                        " taken)");
    return Status::ok();
  }
  // The build holds the table beside the plain copy; a proof must still fit beside that.
  if (!alloc.fits(table + plan.upload + working_bytes(key, plan.lanes, plan.chunk))) {
    plan.said.push_back(name + " skipped (" + gib(table) + " does not fit the budget beside a proof)");
    return Status::ok();
  }
  const auto t0 = Clock::now();
  auto built = Pre::build(bases.data(), n, c, s);
  if (!built.is_ok()) {
    // Copies or shift kernels issued before the failure finish before the key's buffers go.
    (void)s.synchronize();
    if (built.status().code() != StatusCode::kResourceExhausted) {
      return built.status().with_context("cuda backend: precomputed bases of section " + name);
    }
    plan.stop = true;
    plan.said.push_back(name + " skipped (" + built.status().message() + ")");
    return Status::ok();
  }
  slot.emplace(std::move(built).value());
  // The proof's working set with this table's MSM scratch, once the plain copy is gone.
  const size_t need = plan.upload + working_bytes(key, plan.lanes, plan.chunk);
  if (need > bases.size_bytes() && !alloc.fits(need - bases.size_bytes())) {
    slot.reset();
    plan.said.push_back(name + " dropped (a proof's working set with its scratch does not fit)");
    return Status::ok();
  }
  CUZK_RETURN_IF_ERROR(bases.release());
  plan.extra += add;
  char line[160];
  std::snprintf(line, sizeof line, "%s c=%u x%u (%s, built in %.2f s)", name.c_str(), c, windows, gib(table).c_str(),
                seconds_since(t0));
  plan.said.push_back(line);
  return Status::ok();
}

// The tables options.precompute asks for, in its order, as far as they fit (TablePlan).
template <class C>
Status build_tables(DeviceKey<C>& key, const CudaBackendOptions& o, size_t upload, DeviceAllocator& alloc,
                    const Stream& s) {
  if (key.streamed.full()) {
    key.notes_text = "precomputed bases: none (the key is streamed)";
    return Status::ok();
  }
  if (o.precompute.empty()) {
    key.notes_text = "precomputed bases: off";
    return Status::ok();
  }
  TablePlan plan;
  const size_t left = alloc.stats().available_bytes();
  plan.cap = o.precompute_max_bytes != 0 ? o.precompute_max_bytes : left / 2;
  plan.upload = upload;
  plan.chunk = o.stream_chunk_points;
  plan.min_points = o.precompute_min_points;
  plan.lanes = std::min(key.lane_cap, std::clamp(o.msm_lanes, 1u, unsigned(kSections)));
  for (Section sec : o.precompute) {
    if (sec == Section::kB2) {
      CUZK_RETURN_IF_ERROR(try_table(key, sec, key.b2, key.pre_b2, plan, alloc, s));
    } else {
      CUZK_RETURN_IF_ERROR(try_table(key, sec, key.g1_points(sec), key.pre_g1[size_t(sec)], plan, alloc, s));
    }
  }
  // More lanes than a proof runs in now may no longer fit beside the tables.
  while (key.lane_cap > plan.lanes && !alloc.fits(upload + working_bytes(key, key.lane_cap, plan.chunk))) {
    --key.lane_cap;
  }
  std::string text = "precomputed bases (cap " + gib(plan.cap) +
                     (o.precompute_max_bytes != 0 ? " set" : ": half of the " + gib(left) + " left after the key") +
                     "; tables add " + gib(plan.extra) + "):";
  for (size_t i = 0; i < plan.said.size(); ++i) text += (i == 0 ? " " : "; ") + plan.said[i];
  key.notes_text = std::move(text);
  return Status::ok();
}

}  // namespace

bool cuda_device_available() {
  auto n = device_count();
  return n.is_ok() && *n > 0;
}

template <class C>
CudaBackend<C>::CudaBackend(const CudaBackendOptions& options, ThreadPool& pool, std::string name)
    : options_(options),
      pool_(pool),
      name_(std::move(name)),
      staging_(std::make_unique<HostStaging>(options.staging_chunk_bytes, pool)) {}

template <class C>
CudaBackend<C>::~CudaBackend() = default;

template <class C>
Result<std::unique_ptr<CudaBackend<C>>> CudaBackend<C>::create(const CudaBackendOptions& options, ThreadPool& pool) {
  CUZK_ASSIGN_OR_RETURN(int count, device_count());
  if (options.device < 0 || options.device >= count) {
    return Status{StatusCode::kUnavailable, "cuda backend: device " + std::to_string(options.device) + " requested, " +
                                                std::to_string(count) + " CUDA device(s) present"};
  }
  CUZK_ASSIGN_OR_RETURN(DeviceInfo info, device_info(options.device));
  CUZK_RETURN_IF_ERROR(set_device(options.device));
  CUZK_ASSIGN_OR_RETURN(DeviceAllocator * alloc, DeviceAllocator::for_device(options.device));
  (void)alloc;  // created now, so its baseline is the idle device
  std::string name = "cuda (" + info.name + ", device " + std::to_string(options.device) + ")";
  return std::unique_ptr<CudaBackend>(new CudaBackend(options, pool, std::move(name)));
}

template <class C>
Result<std::unique_ptr<groth16::PreparedKey<C>>> CudaBackend<C>::prepare(const groth16::KeyView<C>& view) {
  if (!view.zkey->has_points()) {
    return invalid_argument("cuda backend: " + view.zkey->path() +
                            ": the key holds no points on the host; prepare it with the device points it was "
                            "built with (prepare_with_points)");
  }
  return prepare_impl(view, std::nullopt);
}

template <class C>
Result<std::unique_ptr<groth16::PreparedKey<C>>> CudaBackend<C>::prepare_with_points(const groth16::KeyView<C>& view,
                                                                                     DeviceKeyPoints<C> points) {
  const auto& hdr = view.zkey->header();
  const size_t vars = hdr.n_vars, privates = size_t(hdr.n_vars) - hdr.n_public - 1;
  const std::pair<size_t, size_t> sizes[] = {{points.a.size(), vars},
                                             {points.b1.size(), vars},
                                             {points.b2.size(), vars},
                                             {points.c.size(), privates},
                                             {points.h.size(), hdr.domain_size}};
  const char* names[] = {"A", "B1", "B2", "C", "H"};
  for (size_t i = 0; i < 5; ++i) {
    if (sizes[i].first != sizes[i].second) {
      return invalid_argument("cuda backend: " + view.zkey->path() + ": device section " + names[i] + " has " +
                              std::to_string(sizes[i].first) + " points, the header implies " +
                              std::to_string(sizes[i].second));
    }
  }
  return prepare_impl(view, std::move(points));
}

// Moves a device-built key's section to page-locked host memory (it is then streamed in
// every proof, like a zkey's section from its mapping) and frees its device copy. Pinning
// the host memory is the allocation fault site "prover.prepare.host_section".
template <class T>
Status move_to_host(DeviceBuffer<T>& on_device, PinnedBuffer<T>& on_host, const Stream& s) {
  CUZK_RETURN_IF_ERROR(inject_fault(FaultKind::kAlloc, "prover.prepare.host_section"));
  CUZK_ASSIGN_OR_RETURN(on_host, PinnedBuffer<T>::allocate(on_device.size()));
  CUZK_RETURN_IF_ERROR(on_device.download(on_host.span(), s));
  CUZK_RETURN_IF_ERROR(s.synchronize());
  return on_device.release();
}

template <class C>
Result<std::unique_ptr<groth16::PreparedKey<C>>> CudaBackend<C>::prepare_impl(const groth16::KeyView<C>& view,
                                                                              std::optional<DeviceKeyPoints<C>> given) {
  CUZK_RETURN_IF_ERROR(set_device(options_.device));
  const formats::Zkey<C>& zkey = *view.zkey;
  const auto& hdr = zkey.header();
  const size_t n = hdr.domain_size;
  CUZK_ASSIGN_OR_RETURN(Stream s, Stream::create());
  CUZK_ASSIGN_OR_RETURN(NttDomain<Fr> ntt, NttDomain<Fr>::create(log2_exact(n), s));
  auto key = std::make_unique<DeviceKey<C>>(view, std::move(ntt));
  CUZK_ASSIGN_OR_RETURN(DeviceAllocator * alloc, DeviceAllocator::for_device(options_.device));

  // Placement: which point sections stay in device memory. The coefficient rows, one
  // upload and one lane's working set must fit beside the resident sections; of the sets
  // of streamed sections that allow it, the one streaming the fewest bytes per proof
  // (groth16/section_placement.hpp). Given points are on the device already (the budget's
  // free bytes exclude them): a section streamed from there frees its bytes.
  size_t coef_bytes = 0;
  for (int m = 0; m < 2; ++m) {
    const groth16::CoefficientRows& r = view.rows[m];
    coef_bytes += r.row_start.size() * sizeof(uint32_t) + r.entry.size() * (sizeof(uint32_t) + sizeof(Fr));
  }
  const std::array<size_t, kSections> section_bytes =
      given ? std::array<size_t, kSections>{given->h.size_bytes(), given->a.size_bytes(), given->b1.size_bytes(),
                                            given->b2.size_bytes(), given->c.size_bytes()}
            : std::array<size_t, kSections>{zkey.h().size_bytes(), zkey.a().size_bytes(), zkey.b1().size_bytes(),
                                            zkey.b2().size_bytes(), zkey.c().size_bytes()};
  const size_t all_points = std::accumulate(section_bytes.begin(), section_bytes.end(), size_t(0));
  const size_t up = upload_bytes(*key);
  auto fits = [&](unsigned lanes) {
    size_t resident = 0;
    for (size_t i = 0; i < kSections; ++i) resident += key->streamed.has(Section(i)) ? 0 : section_bytes[i];
    const size_t need =
        coef_bytes + up + working_bytes(*key, lanes, options_.stream_chunk_points) + (given ? 0 : resident);
    const size_t freed = given ? all_points - resident : 0;
    return need <= freed || alloc->fits(need - freed);
  };
  const auto chosen = groth16::choose_streamed(section_bytes, [&](SectionSet set) {
    if (options_.force_streamed && !set.full()) return false;
    if (!options_.allow_streamed && !set.empty()) return false;
    key->streamed = set;
    return fits(1);
  });
  if (!chosen) {
    key->streamed = SectionSet::all();
    const size_t least = coef_bytes + up + working_bytes(*key, 1, options_.stream_chunk_points);
    return Status{StatusCode::kResourceExhausted,
                  "cuda backend: " + zkey.path() + ": the key's coefficients (" + std::to_string(coef_bytes >> 20) +
                      " MiB), points (" + std::to_string(all_points >> 20) + " MiB" + (given ? ", on the device" : "") +
                      ") and a proof's working set do not fit the device budget (" +
                      std::to_string(alloc->stats().available_bytes() >> 20) + " MiB available" +
                      (given ? " beside the points" : "") + "); " +
                      (options_.allow_streamed ? "even with every section streamed from host memory " +
                                                     std::to_string(least >> 20) + " MiB would be needed"
                                               : "streaming from host memory is off")};
  }
  key->streamed = *chosen;
  // As many lanes (each holding an MSM's scratch) as fit too.
  while (!key->streamed.full() && key->lane_cap > 1 && !fits(key->lane_cap)) --key->lane_cap;

  std::string placed;
  if (given) {
    key->a = std::move(given->a);
    key->b1 = std::move(given->b1);
    key->b2 = std::move(given->b2);
    key->c = std::move(given->c);
    key->h = std::move(given->h);
    const auto t0 = Clock::now();
    for (size_t i = 0; i < kSections; ++i) {
      const auto sec = Section(i);
      if (!key->streamed.has(sec)) continue;
      Status moved = sec == Section::kB2 ? move_to_host(key->b2, key->moved_b2, s)
                                         : move_to_host(key->g1_points(sec), key->moved_g1[i], s);
      if (!moved.is_ok()) {
        return moved.with_context("cuda backend: " + zkey.path() + ": moving section " + groth16::describe({1u << i}) +
                                  " (" + gib(section_bytes[i]) + ") to host memory");
      }
    }
    if (!key->streamed.empty()) {
      char line[96];
      std::snprintf(line, sizeof line, " (moved from the device to page-locked host memory in %.2f s)",
                    seconds_since(t0));
      placed = line;
    }
  } else if (!key->streamed.full()) {
    const auto up_g1 = [&](Section sec, DeviceBuffer<G1>& to, std::span<const G1> from, const char* site) -> Status {
      if (key->streamed.has(sec)) return Status::ok();
      CUZK_ASSIGN_OR_RETURN(to, upload_span<G1>(from, site, s));
      return Status::ok();
    };
    CUZK_RETURN_IF_ERROR(up_g1(Section::kA, key->a, zkey.a(), "prover.prepare.points_a"));
    CUZK_RETURN_IF_ERROR(up_g1(Section::kB1, key->b1, zkey.b1(), "prover.prepare.points_b1"));
    if (!key->streamed.has(Section::kB2)) {
      CUZK_ASSIGN_OR_RETURN(key->b2, upload_span<G2>(zkey.b2(), "prover.prepare.points_b2", s));
    }
    CUZK_RETURN_IF_ERROR(up_g1(Section::kL, key->c, zkey.c(), "prover.prepare.points_c"));
    CUZK_RETURN_IF_ERROR(up_g1(Section::kH, key->h, zkey.h(), "prover.prepare.points_h"));
    CUZK_RETURN_IF_ERROR(s.synchronize());
    // The streamed sections are read from the mapping in every proof; the rest are done with.
    if (!key->streamed.has(Section::kA)) zkey.done_with(zkey.a());
    if (!key->streamed.has(Section::kB1)) zkey.done_with(zkey.b1());
    if (!key->streamed.has(Section::kB2)) zkey.done_with(zkey.b2());
    if (!key->streamed.has(Section::kL)) zkey.done_with(zkey.c());
    if (!key->streamed.has(Section::kH)) zkey.done_with(zkey.h());
  }
  if (!key->streamed.empty()) {
    size_t bytes = 0;
    for (size_t i = 0; i < kSections; ++i) bytes += key->streamed.has(Section(i)) ? section_bytes[i] : 0;
    placed = "streamed from host memory in every proof: " + groth16::describe(key->streamed) + ", " + gib(bytes) +
             (key->streamed.full() ? "" : " of " + gib(all_points)) + placed + "; ";
  }

  // Coefficient rows in CSR form: the entry positions the prover sorted, resolved to
  // (witness index, coefficient) pairs.
  const auto& coefs = zkey.coefficients();
  for (int m = 0; m < 2; ++m) {
    const groth16::CoefficientRows& r = view.rows[m];
    std::vector<uint32_t> signal(r.entry.size());
    std::vector<Fr> coef(r.entry.size());
    pool_.parallel_for(0, r.entry.size(), [&](size_t lo, size_t hi) {
      for (size_t k = lo; k < hi; ++k) {
        signal[k] = coefs.signal(r.entry[k]);
        coef[k] = coefs.value(r.entry[k]);
      }
    });
    CUZK_ASSIGN_OR_RETURN(key->row_start[m], upload_span<uint32_t>(r.row_start, "prover.prepare.row_start", s));
    CUZK_ASSIGN_OR_RETURN(key->signal[m], upload_span<uint32_t>(signal, "prover.prepare.signal", s));
    CUZK_ASSIGN_OR_RETURN(key->coef[m], upload_span<Fr>(coef, "prover.prepare.coef", s));
    CUZK_RETURN_IF_ERROR(s.synchronize());  // the host vectors go out of scope
  }
  zkey.done_with_coefficients();

  CUZK_RETURN_IF_ERROR(build_tables(*key, options_, up, *alloc, s));
  key->notes_text = placed + key->notes_text;
  size_t points = key->a.size_bytes() + key->b1.size_bytes() + key->b2.size_bytes() + key->c.size_bytes() +
                  key->h.size_bytes() + (key->pre_b2 ? key->pre_b2->table_bytes() : 0);
  for (const auto& p : key->pre_g1) points += p ? p->table_bytes() : 0;
  key->resident = key->row_start[0].size_bytes() + key->row_start[1].size_bytes() + key->signal[0].size_bytes() +
                  key->signal[1].size_bytes() + key->coef[0].size_bytes() + key->coef[1].size_bytes() +
                  NttDomain<Fr>::device_bytes(log2_exact(n)) + points;
  key->counter = resident_;
  resident_->fetch_add(key->resident);
  if (options_.log) options_.log("cuda backend: " + zkey.path() + ": " + key->notes_text);
  return std::unique_ptr<groth16::PreparedKey<C>>(std::move(key));
}

template <class C>
unsigned CudaBackend<C>::msm_lanes(const groth16::PreparedKey<C>& pk) const {
  const auto& key = static_cast<const DeviceKey<C>&>(pk);
  return key.streamed.full() ? 1u : std::min(key.lane_cap, std::clamp(options_.msm_lanes, 1u, unsigned(kSections)));
}

template <class C>
std::vector<groth16::MsmSection> CudaBackend<C>::precomputed(const groth16::PreparedKey<C>& pk) const {
  const auto& key = static_cast<const DeviceKey<C>&>(pk);
  std::vector<Section> out;
  for (Section sec : options_.precompute) {
    if (sec == Section::kB2 ? key.pre2() != nullptr : key.pre1(sec) != nullptr) out.push_back(sec);
  }
  return out;
}

template <class C>
size_t CudaBackend<C>::pinned_bytes() const {
  return staging_->pinned_bytes();
}

template <class C>
size_t CudaBackend<C>::upload_bytes(const groth16::PreparedKey<C>& key) const {
  return size_t(key.view().zkey->header().n_vars) * sizeof(Scalar);
}

template <class C>
size_t CudaBackend<C>::compute_bytes(const groth16::PreparedKey<C>& pk) const {
  const auto& key = static_cast<const DeviceKey<C>&>(pk);
  return working_bytes(key, msm_lanes(key), options_.stream_chunk_points);
}

template <class C>
Result<std::unique_ptr<groth16::ProofJob<C>>> CudaBackend<C>::upload(const groth16::PreparedKey<C>& key,
                                                                     std::span<const Scalar> witness,
                                                                     groth16::ProveTimings& t) {
  const auto t0 = Clock::now();
  CUZK_RETURN_IF_ERROR(set_device(options_.device));
  CUZK_ASSIGN_OR_RETURN(DeviceAllocator * alloc, DeviceAllocator::for_device(options_.device));
  CUZK_ASSIGN_OR_RETURN(Reservation res, alloc->reserve(upload_bytes(key), "prover.upload"));
  CUZK_ASSIGN_OR_RETURN(Stream copy, Stream::create());
  CUZK_ASSIGN_OR_RETURN(Stream stream, Stream::create());
  CUZK_ASSIGN_OR_RETURN(Event ev, Event::create(false));
  auto job = std::make_unique<DeviceJob<C>>(std::move(copy), std::move(stream), std::move(ev));
  job->upload_reservation = std::move(res);
  job->n_vars = witness.size();
  t.upload_setup = seconds_since(t0);
  const auto t_alloc = Clock::now();
  CUZK_ASSIGN_OR_RETURN(
      job->witness, DeviceBuffer<Scalar>::allocate(witness.size(), "prover.upload.witness", &job->upload_reservation));
  t.upload_alloc = seconds_since(t_alloc);
  // The caller's witness is pageable: through the pinned chunks, at the link's rate.
  HostStaging::Split split;
  CUZK_RETURN_IF_ERROR(staging_->copy_to_device(job->witness.data(), witness.data(), witness.size_bytes(), job->copy,
                                                "prover.upload.witness_chunk", &split));
  t.upload_acquire = split.acquire;
  t.upload_host_copy = split.host_copy;
  t.upload_issue = split.issue;
  t.upload_link_wait = split.link_wait;
  CUZK_RETURN_IF_ERROR(job->uploaded.record(job->copy));
  t.upload = seconds_since(t0);
  return std::unique_ptr<groth16::ProofJob<C>>(std::move(job));
}

template <class C>
Status CudaBackend<C>::compute(const groth16::PreparedKey<C>& pk, groth16::ProofJob<C>& pj, groth16::ProveTimings& t) {
  const auto& key = static_cast<const DeviceKey<C>&>(pk);
  auto& job = static_cast<DeviceJob<C>&>(pj);
  const formats::Zkey<C>& zkey = *key.view().zkey;
  const auto& hdr = zkey.header();
  const size_t n = hdr.domain_size;
  const Stream& s = job.stream;
  const int device = options_.device;
  CUZK_RETURN_IF_ERROR(set_device(device));
  CUZK_ASSIGN_OR_RETURN(DeviceAllocator * alloc, DeviceAllocator::for_device(device));
  CUZK_ASSIGN_OR_RETURN(Reservation res, alloc->reserve(compute_bytes(key), "prover.compute"));
  const auto lanes = plan_lanes(msm_lanes(key), key.streamed);

  // Lane 0 is the job's stream; the others get streams of their own. All wait for the upload.
  std::vector<Stream> lane_stream;
  CUZK_RETURN_IF_ERROR(s.wait(job.uploaded));
  for (size_t i = 1; i < lanes.size(); ++i) {
    CUZK_ASSIGN_OR_RETURN(Stream st, Stream::create());
    CUZK_RETURN_IF_ERROR(st.wait(job.uploaded));
    lane_stream.push_back(std::move(st));
  }
  CUZK_ASSIGN_OR_RETURN(Event started, Event::create());
  CUZK_ASSIGN_OR_RETURN(Event synthesized, Event::create());
  CUZK_ASSIGN_OR_RETURN(Event h_started, Event::create());  // after a pause at the boundary, if any
  CUZK_ASSIGN_OR_RETURN(Event h_done, Event::create());
  CUZK_ASSIGN_OR_RETURN(auto a, DeviceBuffer<Fr>::allocate(n, "prover.compute.a", &res));
  CUZK_ASSIGN_OR_RETURN(auto b, DeviceBuffer<Fr>::allocate(n, "prover.compute.b", &res));
  CUZK_ASSIGN_OR_RETURN(auto c, DeviceBuffer<Fr>::allocate(n, "prover.compute.c", &res));
  // p overwrites a: the H scalars in canonical form, what the H MSM reads.
  const Scalar* p = reinterpret_cast<const Scalar*>(a.data());

  const size_t chunk = options_.stream_chunk_points;
  const Scalar* w = job.witness.data();
  const size_t vars = hdr.n_vars;
  const size_t first_private = size_t(hdr.n_public) + 1;
  using G1C = typename C::G1;
  using G2C = typename C::G2;
  // One section's MSM on `st`, timed on the host (lanes overlap, so the times do too).
  auto section = [&](Section sec, const Stream& st) -> Status {
    // Each section's MSM returns its sum, so nothing of this lane is queued here.
    job.boundary();
    const auto t1 = Clock::now();
    switch (sec) {
      case Section::kH: {
        CUZK_ASSIGN_OR_RETURN(
            job.sums.h, section_msm<G1C>(key.h, key.pre1(sec), key.host_g1(sec), p, n, key.streamed.has(sec), chunk, st,
                                         job.copy, &res, job.pauses));
        t.msm_h = seconds_since(t1);
        break;
      }
      case Section::kA: {
        CUZK_ASSIGN_OR_RETURN(
            job.sums.a, section_msm<G1C>(key.a, key.pre1(sec), key.host_g1(sec), w, vars, key.streamed.has(sec), chunk,
                                         st, job.copy, &res, job.pauses));
        t.msm_a = seconds_since(t1);
        break;
      }
      case Section::kB1: {
        CUZK_ASSIGN_OR_RETURN(job.sums.b1,
                              section_msm<G1C>(key.b1, key.pre1(sec), key.host_g1(sec), w, vars, key.streamed.has(sec),
                                               chunk, st, job.copy, &res, job.pauses));
        t.msm_b1 = seconds_since(t1);
        break;
      }
      case Section::kB2: {
        CUZK_ASSIGN_OR_RETURN(
            job.sums.b2, section_msm<G2C>(key.b2, key.pre2(), key.host_b2(), w, vars, key.streamed.has(sec), chunk, st,
                                          job.copy, &res, job.pauses));
        t.msm_b2 = seconds_since(t1);
        break;
      }
      case Section::kL: {
        CUZK_ASSIGN_OR_RETURN(job.sums.l, section_msm<G1C>(key.c, key.pre1(sec), key.host_g1(sec), w + first_private,
                                                           vars - first_private, key.streamed.has(sec), chunk, st,
                                                           job.copy, &res, job.pauses));
        t.msm_l = seconds_since(t1);
        break;
      }
    }
    return Status::ok();
  };
  auto run_lane = [&](size_t i) -> Status {
    CUZK_RETURN_IF_ERROR(set_device(device));
    for (Section sec : lanes[i]) {
      if (sec == Section::kH) continue;  // lane 0 runs it after the H pipeline
      CUZK_RETURN_IF_ERROR(section(sec, lane_stream[i - 1]));
    }
    return Status::ok();
  };

  // The other lanes start at once; this thread runs lane 0. Every lane is joined before
  // anything they use goes out of scope.
  std::vector<std::future<Status>> others;
  Status st = Status::ok();
  try {
    for (size_t i = 1; i < lanes.size(); ++i) others.push_back(std::async(std::launch::async, run_lane, i));
  } catch (const std::system_error& e) {
    st = Status{StatusCode::kResourceExhausted, std::string("cuda backend: starting an MSM lane: ") + e.what()};
  }
  auto lane0 = [&]() -> Status {
    // Paced when it may have to give way (cuda/pacer.hpp): boundaries after the synthesis
    // and between the H pipeline's transforms; the MSMs pace themselves.
    Pacer pace(job.pauses, s);
    CUZK_RETURN_IF_ERROR(started.record(s));
    CUZK_RETURN_IF_ERROR(synthesize_abc<Fr>(key.rows(0), key.rows(1), w, a.data(), b.data(), c.data(), n, s));
    CUZK_RETURN_IF_ERROR(synthesized.record(s));
    CUZK_RETURN_IF_ERROR(pace.boundary());
    CUZK_RETURN_IF_ERROR(h_started.record(s));
    CUZK_RETURN_IF_ERROR(
        snarkjs_h<Fr>(key.ntt, a.data(), b.data(), c.data(), reinterpret_cast<Scalar*>(a.data()), s, &pace));
    CUZK_RETURN_IF_ERROR(h_done.record(s));
    for (Section sec : lanes[0]) CUZK_RETURN_IF_ERROR(section(sec, s));
    CUZK_RETURN_IF_ERROR(h_done.synchronize());
    CUZK_ASSIGN_OR_RETURN(float abc_ms, Event::elapsed_ms(started, synthesized));
    CUZK_ASSIGN_OR_RETURN(float h_ms, Event::elapsed_ms(h_started, h_done));
    t.witness_abc = abc_ms * 1e-3;
    t.h = h_ms * 1e-3;
    return Status::ok();
  };
  if (st.is_ok()) st = lane0();
  for (auto& f : others) {
    Status lane = f.get();
    if (st.is_ok()) st = lane;
  }
  CUZK_RETURN_IF_ERROR(st);
  job.computed = true;
  // The witness is no longer needed: its bytes go back before the next proof's upload.
  CUZK_RETURN_IF_ERROR(job.witness.release());
  job.upload_reservation.release();
  return Status::ok();
}

template <class C>
Result<groth16::MsmSums<C>> CudaBackend<C>::read_back(groth16::ProofJob<C>& pj, groth16::ProveTimings& t) {
  auto& job = static_cast<DeviceJob<C>&>(pj);
  if (!job.computed) return failed_precondition("cuda backend: read_back before compute");
  const auto t0 = Clock::now();
  CUZK_RETURN_IF_ERROR(job.stream.synchronize());
  t.read_back = seconds_since(t0);
  return job.sums;
}

template <class C>
Result<ec::Jacobian<typename C::G1>> CudaBackend<C>::msm_g1(std::span<const G1> bases,
                                                            std::span<const Scalar> scalars) {
  if (bases.size() != scalars.size()) {
    return invalid_argument("cuda backend: G1 MSM with " + std::to_string(bases.size()) + " bases but " +
                            std::to_string(scalars.size()) + " scalars");
  }
  CUZK_RETURN_IF_ERROR(set_device(options_.device));
  CUZK_ASSIGN_OR_RETURN(Stream s, Stream::create());
  CUZK_ASSIGN_OR_RETURN(auto db, upload_span<G1>(bases, "backend.msm_g1.bases", s));
  CUZK_ASSIGN_OR_RETURN(auto ds, upload_span<Scalar>(scalars, "backend.msm_g1.scalars", s));
  return Msm<typename C::G1>::run(db.data(), ds.data(), bases.size(), s, nullptr);
}

template <class C>
Result<ec::Jacobian<typename C::G2>> CudaBackend<C>::msm_g2(std::span<const G2> bases,
                                                            std::span<const Scalar> scalars) {
  if (bases.size() != scalars.size()) {
    return invalid_argument("cuda backend: G2 MSM with " + std::to_string(bases.size()) + " bases but " +
                            std::to_string(scalars.size()) + " scalars");
  }
  CUZK_RETURN_IF_ERROR(set_device(options_.device));
  CUZK_ASSIGN_OR_RETURN(Stream s, Stream::create());
  CUZK_ASSIGN_OR_RETURN(auto db, upload_span<G2>(bases, "backend.msm_g2.bases", s));
  CUZK_ASSIGN_OR_RETURN(auto ds, upload_span<Scalar>(scalars, "backend.msm_g2.scalars", s));
  return Msm<typename C::G2>::run(db.data(), ds.data(), bases.size(), s, nullptr);
}

template <class C>
Status CudaBackend<C>::h_poly(const poly::EvaluationDomain<Fr>& domain, std::span<Fr> a, std::span<Fr> b,
                              std::span<Fr> c, std::span<Scalar> p) {
  const size_t n = domain.size();
  if (a.size() != n || b.size() != n || c.size() != n || p.size() != n) {
    return invalid_argument("cuda backend: H with vectors of " + std::to_string(a.size()) + ", " +
                            std::to_string(b.size()) + ", " + std::to_string(c.size()) + ", " +
                            std::to_string(p.size()) + " elements for a domain of " + std::to_string(n));
  }
  CUZK_RETURN_IF_ERROR(set_device(options_.device));
  CUZK_ASSIGN_OR_RETURN(Stream s, Stream::create());
  CUZK_ASSIGN_OR_RETURN(NttDomain<Fr> ntt, NttDomain<Fr>::create(log2_exact(n), s));
  CUZK_ASSIGN_OR_RETURN(auto da, upload_span<Fr>(a, "backend.h_poly.a", s));
  CUZK_ASSIGN_OR_RETURN(auto db, upload_span<Fr>(b, "backend.h_poly.b", s));
  CUZK_ASSIGN_OR_RETURN(auto dc, upload_span<Fr>(c, "backend.h_poly.c", s));
  auto* dp = reinterpret_cast<Scalar*>(da.data());
  CUZK_RETURN_IF_ERROR(snarkjs_h<Fr>(ntt, da.data(), db.data(), dc.data(), dp, s));
  CUZK_RETURN_IF_ERROR(copy_async(p.data(), dp, p.size_bytes(), cudaMemcpyDeviceToHost, s.get(), "backend.h_poly.p"));
  return s.synchronize();
}

template class CudaBackend<bn254::Curve>;
template class CudaBackend<bls12_381::Curve>;

}  // namespace cuzk::cuda
