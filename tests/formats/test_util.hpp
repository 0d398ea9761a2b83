// Helpers shared by the formats tests: random valid points, scratch files, raw bytes.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "ec/curves.hpp"
#include "ec/points.hpp"

namespace cuzk::formats::testing {

// A random point on the curve (not necessarily in the prime-order subgroup, which the
// formats layer does not check): random x until x^3 + b is a square.
template <class P, class Rng>
ec::Affine<P> random_point(Rng& rng) {
  using Base = typename P::Base;
  for (;;) {
    Base x = Base::random(rng);
    Base y;
    if ((x.square() * x + P::b()).sqrt(y)) return {x, y};
  }
}

// A random point of the prime-order subgroup: a random multiple of the generator.
template <class P, class Rng>
ec::Affine<P> random_subgroup_point(Rng& rng) {
  return ec::Jacobian<P>::generator().mul(P::Scalar::random(rng)).to_affine();
}

// A fresh directory under the system temp dir, removed with the object.
class ScratchDir {
 public:
  ScratchDir() {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("cuzk_formats_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

// Builds a binfile image from (id, payload) pairs in the given order.
struct RawSection {
  uint32_t id;
  std::vector<uint8_t> data;
};
inline std::vector<uint8_t> make_binfile(const char* magic, uint32_t version, const std::vector<RawSection>& secs) {
  std::vector<uint8_t> out(magic, magic + 4);
  auto put = [&](uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out.push_back(uint8_t(v >> (8 * i)));
  };
  put(version, 4);
  put(secs.size(), 4);
  for (const auto& s : secs) {
    put(s.id, 4);
    put(s.data.size(), 8);
    out.insert(out.end(), s.data.begin(), s.data.end());
  }
  return out;
}

// Splits a binfile image back into its sections (the input must be well formed).
inline std::vector<RawSection> split_binfile(const std::vector<uint8_t>& b) {
  auto get = [&](size_t at, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t(b[at + size_t(i)]) << (8 * i);
    return v;
  };
  std::vector<RawSection> secs;
  size_t n = get(8, 4), pos = 12;
  for (size_t i = 0; i < n; ++i) {
    RawSection s{uint32_t(get(pos, 4)), {}};
    size_t size = get(pos + 4, 8);
    s.data.assign(b.begin() + long(pos + 12), b.begin() + long(pos + 12 + size));
    secs.push_back(std::move(s));
    pos += 12 + size;
  }
  return secs;
}

}  // namespace cuzk::formats::testing
