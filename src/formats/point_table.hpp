// Curve points laid out exactly as snarkjs stores them (affine, little-endian Montgomery
// coordinates, all-zero = infinity), exposed without copying where alignment allows.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "core/status.hpp"
#include "ec/curves.hpp"

namespace cuzk::formats {

// The snarkjs binary form of a point is the in-memory form of ec::Affine<C>: two base
// field elements of N little-endian 64-bit Montgomery limbs (Fq2 as c0 then c1), and
// (0, 0) for infinity. These asserts pin the layout the zero-copy views depend on.
template <class C>
constexpr bool kSnarkjsLayout =
    std::is_trivially_copyable_v<ec::Affine<C>> && std::is_standard_layout_v<ec::Affine<C>> &&
    sizeof(ec::Affine<C>) == 2 * C::Base::BYTES && offsetof(ec::Affine<C>, y) == C::Base::BYTES;

// Coordinates must be reduced: Montgomery limbs >= q would be accepted by the arithmetic
// but encode no field element, so files carrying them are rejected.
template <class P>
bool coordinate_reduced(const ff::Fp<P>& x) {
  return x.mont().less_than(ff::Fp<P>::MODULUS);
}
template <class Cfg>
bool coordinate_reduced(const ff::Fp2<Cfg>& x) {
  return coordinate_reduced(x.c0) && coordinate_reduced(x.c1);
}

// Why point `p` is invalid, or nullptr if it is reduced and on the curve (or infinity).
template <class C>
const char* point_defect(const ec::Affine<C>& p) {
  if (!coordinate_reduced(p.x)) return "x coordinate is not reduced below q";
  if (!coordinate_reduced(p.y)) return "y coordinate is not reduced below q";
  if (!p.is_on_curve()) return "is not on the curve";
  return nullptr;
}

// Checks every point, splitting large tables across threads; reports the lowest bad index
// so the message does not depend on scheduling.
template <class C>
Status check_points(std::span<const ec::Affine<C>> pts, const std::string& where, unsigned threads = 0) {
  constexpr size_t kPerThreadMin = 4096;
  size_t n = pts.size();
  unsigned hw = threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
  size_t nt = std::min<size_t>(hw, (n + kPerThreadMin - 1) / kPerThreadMin);
  if (nt == 0) nt = 1;
  std::vector<size_t> first_bad(nt, n);
  auto work = [&](size_t t) {
    size_t lo = n * t / nt, hi = n * (t + 1) / nt;
    for (size_t i = lo; i < hi; ++i) {
      if (point_defect(pts[i]) != nullptr) {
        first_bad[t] = i;
        return;
      }
    }
  };
  if (nt == 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    pool.reserve(nt - 1);
    for (size_t t = 1; t < nt; ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& th : pool) th.join();
  }
  size_t bad = *std::min_element(first_bad.begin(), first_bad.end());
  if (bad == n) return Status::ok();
  return data_loss(where + ": point " + std::to_string(bad) + " " + point_defect(pts[bad]));
}

// A table of points over file bytes: a view into the mapping when the data is aligned for
// ec::Affine<C>, else an aligned private copy (binfile sections start at arbitrary 4-byte
// offsets, so either case occurs in real files).
template <class C>
class PointTable {
 public:
  using Point = ec::Affine<C>;
  static_assert(kSnarkjsLayout<C>, "ec::Affine layout no longer matches the snarkjs binary form");
  static constexpr size_t kBytes = sizeof(Point);

  PointTable() = default;
  // `bytes` must hold a whole number of points and outlive the table.
  explicit PointTable(std::span<const uint8_t> bytes) {
    size_t n = bytes.size() / kBytes;
    if (reinterpret_cast<uintptr_t>(bytes.data()) % alignof(Point) == 0) {
      view_ = {reinterpret_cast<const Point*>(bytes.data()), n};
    } else {
      copy_.resize(n);
      if (n != 0) std::memcpy(static_cast<void*>(copy_.data()), bytes.data(), n * kBytes);
      view_ = copy_;
    }
  }
  // Owns `points` (a table built in memory).
  explicit PointTable(std::vector<Point> points) : copy_(std::move(points)) { view_ = copy_; }
  PointTable(PointTable&& o) noexcept { *this = std::move(o); }
  PointTable& operator=(PointTable&& o) noexcept {
    bool owned = !o.copy_.empty();
    copy_ = std::move(o.copy_);
    view_ = owned ? std::span<const Point>(copy_) : o.view_;
    o.view_ = {};
    return *this;
  }
  PointTable(const PointTable&) = delete;
  PointTable& operator=(const PointTable&) = delete;

  std::span<const Point> span() const { return view_; }
  size_t size() const { return view_.size(); }
  bool borrowed() const { return copy_.empty(); }

 private:
  std::span<const Point> view_;
  std::vector<Point> copy_;
};

}  // namespace cuzk::formats
