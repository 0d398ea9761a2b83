#include "cuzk/util.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

#include "formats/snarkjs_json.hpp"
#include "formats/wtns.hpp"
#include "groth16/demo_circuit.hpp"

namespace cuzk::app {

namespace fs = std::filesystem;

void Progress::operator()(const std::string& stage, double fraction) {
  // Logs (not a terminal) get one line per stage instead of a rewritten status line.
  static const bool tty = isatty(fileno(stderr)) != 0;
  if (!tty) {
    if (stage != stage_) std::fprintf(stderr, "  %s...\n", stage.c_str());
    stage_ = stage;
    return;
  }
  auto now = std::chrono::steady_clock::now();
  if (stage == stage_ && fraction < 1 && now - last_ < std::chrono::milliseconds(200)) return;
  last_ = now;
  stage_ = stage;
  std::fprintf(stderr, "\r  %-40s %3d%%", stage.c_str(), int(fraction * 100));
  std::fflush(stderr);
  open_ = true;
}

void Progress::done() {
  if (open_) std::fprintf(stderr, "\r%60s\r", "");
  open_ = false;
}

groth16::SetupProgress setup_progress(Progress& p) {
  return {[&p](const std::string& stage, double f) { p(stage, f); }};
}

void print_insecure_banner() {
  std::fprintf(stderr,
               "\n"
               "  ****************************************************************\n"
               "  *  INSECURE DEV SETUP: the toxic waste (tau, alpha, beta, delta) *\n"
               "  *  was sampled on this machine. Keys made here are for testing  *\n"
               "  *  and benchmarking ONLY; never use them to protect anything.   *\n"
               "  ****************************************************************\n\n");
}

void print_timing_header() {
  std::printf("%-10s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "", "upload", "wit->abc", "ntt/h", "msm A", "msm B1",
              "msm B2", "msm L", "msm H", "finalize", "total");
}

void print_timing_row(const std::string& label, const groth16::ProveTimings& t) {
  auto ms = [](double s) { return s * 1e3; };
  std::printf("%-10s %7.1fms %7.1fms %7.1fms %7.1fms %7.1fms %7.1fms %7.1fms %7.1fms %7.1fms %7.1fms\n",
              label.c_str(), ms(t.upload + t.read_back), ms(t.witness_abc), ms(t.h), ms(t.msm_a), ms(t.msm_b1), ms(t.msm_b2), ms(t.msm_l), ms(t.msm_h),
              ms(t.finalize), ms(t.total));
}

groth16::ProveTimings median_timings(std::vector<groth16::ProveTimings> runs) {
  groth16::ProveTimings m;
  if (runs.empty()) return m;
  auto med = [&](double groth16::ProveTimings::*field) {
    std::vector<double> v;
    for (const auto& r : runs) v.push_back(r.*field);
    std::sort(v.begin(), v.end());
    size_t k = v.size() / 2;
    return v.size() % 2 ? v[k] : (v[k - 1] + v[k]) / 2;
  };
  using T = groth16::ProveTimings;
  for (auto f : {&T::upload, &T::read_back, &T::witness_abc, &T::h, &T::msm_a, &T::msm_b1, &T::msm_b2, &T::msm_l, &T::msm_h, &T::finalize,
                 &T::total}) {
    m.*f = med(f);
  }
  return m;
}

Result<std::string> cache_dir(const std::string& override_dir) {
  std::string dir = override_dir;
  if (dir.empty()) {
    if (const char* c = std::getenv("CUZK_CACHE"); c != nullptr && *c != '\0') {
      dir = c;
    } else if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0') {
      dir = std::string(h) + "/.cache/cuzk";
    } else {
      dir = ".cuzk-cache";
    }
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return invalid_argument("cache directory " + dir + ": " + ec.message());
  return dir;
}

namespace {

template <class C>
Status build_demo_files(const std::string& name, uint32_t constraints, const DemoFiles& out, const std::string& backend,
                        ThreadPool& pool) {
  using Fr = typename C::Fr;
  std::printf("building the %s circuit: %u constraints on %s (first use; cached afterwards)\n", name.c_str(),
              constraints, C::NAME);
  CUZK_ASSIGN_OR_RETURN(auto circuit, groth16::make_named_circuit<Fr>(name, constraints, 1));
  print_insecure_banner();
  Progress progress;
  auto t0 = std::chrono::steady_clock::now();
  // Written under temporary names and renamed last, so an interrupted build is redone.
  CUZK_ASSIGN_OR_RETURN(auto muls, setup_muls<C>(backend, pool));
  CUZK_ASSIGN_OR_RETURN(auto vk, groth16::dev_setup<C>(circuit.r1cs, out.zkey + ".tmp", pool, setup_progress(progress),
                                                       muls));
  progress.done();
  CUZK_RETURN_IF_ERROR(formats::write_vk_json<C>(out.vk + ".tmp", vk));
  CUZK_RETURN_IF_ERROR(formats::write_wtns<Fr>(out.wtns + ".tmp", circuit.witness));
  for (const std::string* p : {&out.wtns, &out.vk, &out.zkey}) {
    std::error_code ec;
    fs::rename(*p + ".tmp", *p, ec);
    if (ec) return invalid_argument(*p + ": " + ec.message());
  }
  std::printf("dev setup done in %.1f s: %s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
              out.zkey.c_str());
  return Status::ok();
}

}  // namespace

Result<DemoFiles> ensure_demo_files(const std::string& curve, uint32_t constraints, const std::string& cache,
                                    const std::string& backend, ThreadPool& pool, const std::string& circuit) {
  if (circuit != "demo" && circuit != "chain") {
    return invalid_argument("--builtin " + circuit + ": expected demo or chain");
  }
  CUZK_ASSIGN_OR_RETURN(std::string dir, cache_dir(cache));
  DemoFiles f;
  Status st = Status::ok();
  int rc = with_curve_name(curve, [&]<class C>() {
    // The name carries a layout version: bump it when the demo circuit changes.
    std::string base = dir + "/" + circuit + "-v1-" + C::NAME + "-" + std::to_string(constraints);
    f.zkey = base + ".zkey";
    f.vk = base + ".vk.json";
    f.wtns = base + ".wtns";
    if (fs::exists(f.zkey) && fs::exists(f.vk) && fs::exists(f.wtns)) return 0;
    f.built = true;
    st = build_demo_files<C>(circuit, constraints, f, backend, pool);
    return 0;
  });
  if (rc != 0) return invalid_argument("unknown curve " + curve);
  CUZK_RETURN_IF_ERROR(st);
  return f;
}

}  // namespace cuzk::app
