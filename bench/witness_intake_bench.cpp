// What the daemon spends taking a witness in, per way it arrives, for BLS12-381 witnesses of
// 2^k wires: the engine's path today (read into a buffer the job keeps, values borrowed in
// place, one parallel range check) against the path it replaced (map the file, copy every
// value into a vector with a one-thread range check, check again on the pool before upload),
// and the payload digest a submit with a request_id adds. The file path also with the range
// check run on each piece as it is read (ValueScan), and with that and a buffer reused from a
// WtnsBufferPool (the daemon's path: no fresh mapping to fault in).
// The witness file is written first, so reads come from the page cache, as they do for a
// client that has just written it.
//
//   witness_intake_bench [log2 wires...]     (default: 20 22 24)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "core/thread_pool.hpp"
#include "engine/admission.hpp"
#include "engine/circuit_key.hpp"
#include "ff/fields.hpp"
#include "formats/mapped_file.hpp"
#include "formats/wtns.hpp"
#include "formats/wtns_buffer.hpp"

namespace cuzk {
namespace {

using Fr = bls12_381::Fr;
using Int = Fr::Int;
using Clock = std::chrono::steady_clock;
constexpr int kRuns = 5;

template <class F>
double median_ms(F run) {
  std::vector<double> ms;
  for (int i = 0; i < kRuns; ++i) {
    auto t0 = Clock::now();
    run();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[kRuns / 2];
}

void check(const Status& s) {
  if (!s.is_ok()) {
    std::fprintf(stderr, "witness_intake_bench: %s\n", s.to_string().c_str());
    std::exit(1);
  }
}

int run(int argc, char** argv) {
  std::vector<unsigned> logs;
  for (int i = 1; i < argc; ++i) logs.push_back(unsigned(std::atoi(argv[i])));
  if (logs.empty()) logs = {20, 22, 24};
  ThreadPool pool;
  std::printf(
      "| wires | MiB | old: map + copy + 2 checks (ms) | file: pread + 1 check (ms) | file: pread, checked while read "
      "(ms) | file: reused buffer, checked while read (ms) | stream: chunks + 1 check (ms) | stream: reused buffer "
      "(ms) | "
      "unary: adopt + align + 1 check (ms) | request_id digest, 1 thread / pool (ms) |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (unsigned k : logs) {
    const size_t n = size_t(1) << k;
    const std::string path = "/tmp/cuzk_intake_" + std::to_string(k) + ".wtns";
    {
      std::vector<Int> v(n);
      std::mt19937_64 rng(k);
      for (auto& x : v) x = Fr::random(rng).to_canonical();
      v[0] = Int::from_u64(1);
      check(formats::write_wtns<Fr>(path, v));
    }
    engine::KeyShape shape;
    shape.curve = formats::CurveId::kBls12_381;
    shape.n_vars = n;
    auto decode = [&](formats::WtnsBuffer b) { check(engine::decode_witness(shape, std::move(b), &pool).status()); };

    const double old_ms = median_ms([&] {
      auto f = formats::MappedFile::open(path);
      check(f.status());
      auto w = formats::parse_wtns<Fr>(f->bytes(), "w.wtns");
      check(w.status());
      check(formats::check_wtns_values<Fr>(w->values, "w.wtns", &pool));
    });
    const double file_ms = median_ms([&] {
      auto b = formats::WtnsBuffer::read_file(path, uint64_t(1) << 32, &pool);
      check(b.status());
      decode(std::move(b).value());
    });
    const formats::ValueScan scan = formats::wtns_value_scan<Fr>();
    const double fused_ms = median_ms([&] {
      auto b = formats::WtnsBuffer::read_file(path, uint64_t(1) << 32, &pool, &scan);
      check(b.status());
      decode(std::move(b).value());
    });
    formats::WtnsBufferPool buffers(uint64_t(4) << 30);
    { check(formats::WtnsBuffer::read_file(path, uint64_t(1) << 32, &pool, nullptr, &buffers).status()); }
    const double reused_ms = median_ms([&] {
      auto b = formats::WtnsBuffer::read_file(path, uint64_t(1) << 32, &pool, &scan, &buffers);
      check(b.status());
      decode(std::move(b).value());
    });
    // The bytes as gRPC hands them over: 1 MiB chunks (made once, outside the timing).
    auto file = formats::WtnsBuffer::read_file(path, uint64_t(1) << 32);
    check(file.status());
    std::vector<std::string> chunks;
    for (size_t off = 0; off < file->size(); off += size_t(1) << 20) {
      size_t len = std::min(file->size() - off, size_t(1) << 20);
      chunks.emplace_back(reinterpret_cast<const char*>(file->data()) + off, len);
    }
    auto stream = [&](formats::WtnsBufferPool* from) {
      auto b = formats::WtnsBuffer::allocate(file->size(), formats::WtnsBuffer::kValuesOffset, from);
      check(b.status());
      size_t got = 0;
      for (const auto& c : chunks) {
        std::memcpy(b->data() + got, c.data(), c.size());
        got += c.size();
      }
      decode(std::move(b).value());
    };
    const double stream_ms = median_ms([&] { stream(nullptr); });
    const double stream_reused_ms = median_ms([&] { stream(&buffers); });
    // A unary message's string, taken over (its copy is made outside the timing).
    std::vector<std::string> messages(kRuns, std::string(reinterpret_cast<const char*>(file->data()), file->size()));
    int next = 0;
    const double unary_ms = median_ms([&] { decode(formats::WtnsBuffer::adopt(std::move(messages[next++]))); });
    uint64_t sink = 0;
    const double digest_1 = median_ms([&] { sink ^= engine::payload_digest("c", file->bytes()); });
    const double digest_pool = median_ms([&] { sink ^= engine::payload_digest("c", file->bytes(), &pool); });
    std::printf("| 2^%u | %zu | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f / %.1f |\n", k,
                (n * sizeof(Int)) >> 20, old_ms, file_ms, fused_ms, reused_ms, stream_ms, stream_reused_ms, unary_ms,
                digest_1, digest_pool);
    if (sink == 42) std::printf(" \n");  // keeps the digests computed
    std::remove(path.c_str());
  }
  std::printf("\nmedian of %d runs, %zu threads (ThreadPool default); command: witness_intake_bench", kRuns,
              pool.size());
  for (unsigned k : logs) std::printf(" %u", k);
  std::printf("\n");
  return 0;
}

}  // namespace
}  // namespace cuzk

int main(int argc, char** argv) { return cuzk::run(argc, argv); }
