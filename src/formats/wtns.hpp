// Witness files (.wtns, version 2) as circom's witness calculator and snarkjs write them:
//   section 1: u32 n8 | prime[n8] (r, little-endian) | u32 nWitness
//   section 2: nWitness values, each n8 bytes little-endian in *standard* form.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "core/thread_pool.hpp"
#include "formats/binfile.hpp"
#include "formats/curve_id.hpp"
#include "formats/field_header.hpp"
#include "formats/mapped_file.hpp"
#include "formats/wtns_buffer.hpp"

namespace cuzk::formats {

namespace wtns_section {
enum : uint32_t { kHeader = 1, kValues = 2 };
const char* name(uint32_t id);
}  // namespace wtns_section

// The values as stored: canonical integers below r. A prover uses them as they are
// (MSM scalars, and against the zkey's R²-form coefficients); field() converts.
template <class Fr>
struct Witness {
  using Int = typename Fr::Int;
  std::vector<Int> values;  // values[0] == 1, then outputs, public inputs, private inputs, internals

  size_t size() const { return values.size(); }
  Fr field(size_t i) const { return Fr::from_canonical(values[i]); }
};

template <class Fr>
Result<Witness<Fr>> read_wtns(const std::string& path);

// The same checks on a .wtns already in memory; `label` names it in messages.
template <class Fr>
Result<Witness<Fr>> parse_wtns(std::span<const uint8_t> bytes, const std::string& label);

// Where the values of a .wtns in memory lie, with its header checked (n8 and r for Fr,
// nWitness against the values section's size) and no value read: a daemon borrows the
// values in place (wtns_buffer.hpp) and range-checks them once, in parallel.
struct WtnsLayout {
  uint32_t n = 0;            // nWitness
  size_t values_offset = 0;  // of the values section, from the first byte
  std::string where;         // "<label>: section 2 (values)", for messages
};
template <class Fr>
Result<WtnsLayout> locate_wtns(std::span<const uint8_t> bytes, const std::string& label);

// DATA_LOSS naming the first value that is not below r (`where` prefixes the message), or
// a value 0 that is not 1. With a pool the values are split across its threads.
template <class Fr>
Status check_wtns_values(std::span<const typename Fr::Int> values, const std::string& where,
                         ThreadPool* pool = nullptr);

// The range check as a ValueScan for read_file: values of Fr::BYTES from byte
// WtnsBuffer::kValuesOffset (where a .wtns of 32-byte values has them).
template <class Fr>
size_t first_unreduced(const uint8_t* p, size_t count);
template <class Fr>
ValueScan wtns_value_scan() {
  return {WtnsBuffer::kValuesOffset, Fr::BYTES, &first_unreduced<Fr>};
}

// The daemon's reader, after locate_wtns: the values of the .wtns in `buf`, checked as
// parse_wtns checks them (split across `pool`; or not again, when read_file scanned them
// with wtns_value_scan<Fr>() where locate_wtns found them), read in place. They are moved
// within `buf` to align them for Int when they are not (or copied into a new buffer that
// `buf` then holds, where there is no room), so `buf` must outlive the span and stay unmoved.
template <class Fr>
Result<std::span<const typename Fr::Int>> borrow_wtns_values(WtnsBuffer& buf, const WtnsLayout& at,
                                                             ThreadPool* pool = nullptr);

template <class Fr>
Status write_wtns(const std::string& path, std::span<const typename Fr::Int> values);

// ---------------------------------------------------------------------------------------

template <class Fr>
Result<Witness<Fr>> read_wtns(const std::string& path) {
  CUZK_ASSIGN_OR_RETURN(MappedFile file, MappedFile::open(path));
  return parse_wtns<Fr>(file.bytes(), file_label(path));
}

template <class Fr>
Result<WtnsLayout> locate_wtns(std::span<const uint8_t> bytes, const std::string& label) {
  CUZK_ASSIGN_OR_RETURN(BinFile bin, BinFile::parse(bytes, label, "wtns", 2, 2, &wtns_section::name));
  constexpr uint32_t n8 = uint32_t(Fr::BYTES);  // read_scalar_field_prime checks the file's n8
  WtnsLayout out;
  {
    CUZK_ASSIGN_OR_RETURN(auto sec, bin.section(wtns_section::kHeader));
    SectionReader in(sec, bin.where(wtns_section::kHeader));
    CUZK_RETURN_IF_ERROR(read_scalar_field_prime<Fr>(in));
    CUZK_RETURN_IF_ERROR(in.u32(out.n, "nWitness"));
    CUZK_RETURN_IF_ERROR(in.expect_end());
  }
  CUZK_ASSIGN_OR_RETURN(auto sec, bin.section(wtns_section::kValues));
  out.where = bin.where(wtns_section::kValues);
  if (sec.size() != uint64_t(out.n) * n8) {
    return data_loss(out.where + " has " + std::to_string(sec.size()) + " bytes, expected " +
                     std::to_string(uint64_t(out.n) * n8) + " (nWitness " + std::to_string(out.n) + " x " +
                     std::to_string(n8) + ")");
  }
  if (out.n == 0) return data_loss(out.where + ": no values (value 0, the constant wire, must be 1)");
  out.values_offset = size_t(sec.data() - bytes.data());
  return out;
}

template <class Fr>
size_t first_unreduced(const uint8_t* p, size_t count) {
  using Int = typename Fr::Int;
  static_assert(std::endian::native == std::endian::little && sizeof(Int) == Fr::BYTES);
  constexpr size_t kTop = Fr::BYTES - 8;  // of the top limb in a value
  constexpr uint64_t r_top = Fr::MODULUS.limb[Fr::BYTES / 8 - 1];
  // A value whose top limb is below r's is below r: nearly every value, decided by one
  // compare (a block at a time, without branches); only a block with a top limb at or
  // above r's is compared in full.
  constexpr size_t kBlock = 64;
  for (size_t lo = 0; lo < count; lo += kBlock) {
    const size_t hi = std::min(count, lo + kBlock);
    uint64_t suspect = 0;
    for (size_t i = lo; i < hi; ++i) {
      uint64_t top;
      std::memcpy(&top, p + i * Fr::BYTES + kTop, 8);
      suspect |= uint64_t(top >= r_top);
    }
    if (suspect == 0) continue;
    for (size_t i = lo; i < hi; ++i) {
      Int v;
      std::memcpy(&v, p + i * Fr::BYTES, sizeof v);
      if (!v.less_than(Fr::MODULUS)) return i;
    }
  }
  return count;
}

inline Status unreduced_value(const std::string& where, size_t index) {
  return data_loss(where + ": value " + std::to_string(index) + " is not reduced below r");
}

template <class Fr>
Status check_wtns_values(std::span<const typename Fr::Int> values, const std::string& where, ThreadPool* pool) {
  if (values.empty() || values[0] != Fr::Int::from_u64(1)) {
    return data_loss(where + ": value 0 (the constant wire) must be 1");
  }
  // The first bad index, whichever thread finds it: each piece stops at its first bad value
  // and the smallest one wins, so the message names the same index on any pool.
  std::atomic<size_t> first_bad{values.size()};
  auto scan = [&](size_t lo, size_t hi) {
    constexpr size_t kStep = size_t(1) << 12;  // then see whether a smaller bad index was found
    for (size_t at = lo; at < hi && at < first_bad.load(std::memory_order_relaxed); at += kStep) {
      const size_t len = std::min(kStep, hi - at);
      const size_t r = first_unreduced<Fr>(reinterpret_cast<const uint8_t*>(values.data() + at), len);
      if (r < len) {
        const size_t i = at + r;
        size_t cur = first_bad.load();
        while (i < cur && !first_bad.compare_exchange_weak(cur, i)) {
        }
        return;
      }
    }
  };
  if (pool != nullptr) {
    pool->parallel_for(0, values.size(), scan, size_t(1) << 16);
  } else {
    scan(0, values.size());
  }
  if (first_bad.load() != values.size()) return unreduced_value(where, first_bad.load());
  return Status::ok();
}

template <class Fr>
Result<Witness<Fr>> parse_wtns(std::span<const uint8_t> bytes, const std::string& label) {
  CUZK_ASSIGN_OR_RETURN(WtnsLayout at, locate_wtns<Fr>(bytes, label));
  constexpr size_t n8 = Fr::BYTES;
  const uint8_t* src = bytes.data() + at.values_offset;
  Witness<Fr> w;
  w.values.resize(at.n);
  // The values are little-endian integers of n8 bytes: on a little-endian host with no padding
  // in Int that is Int's layout, so one copy.
  if constexpr (std::endian::native == std::endian::little && sizeof(typename Fr::Int) == n8) {
    std::memcpy(w.values.data(), src, size_t(at.n) * n8);
  } else {
    for (uint32_t i = 0; i < at.n; ++i) w.values[i] = Fr::read_le(src + size_t(i) * n8);
  }
  CUZK_RETURN_IF_ERROR(check_wtns_values<Fr>(w.values, at.where));
  return w;
}

template <class Fr>
Result<std::span<const typename Fr::Int>> borrow_wtns_values(WtnsBuffer& buf, const WtnsLayout& at, ThreadPool* pool) {
  using Int = typename Fr::Int;
  // A value is Fr::BYTES little-endian bytes: Int's own layout here, so it is read in place.
  static_assert(std::endian::native == std::endian::little && sizeof(Int) == Fr::BYTES);
  // read_file's scan covered exactly these values when it assumed where they are rightly.
  const ScannedValues* pre = buf.scanned();
  const bool scanned = pre != nullptr && pre->scan.first_bad == &first_unreduced<Fr> &&
                       pre->scan.value_bytes == Fr::BYTES && pre->scan.offset == at.values_offset && pre->count >= at.n;
  const size_t scanned_bad = scanned ? pre->first_bad : 0;
  std::span<const uint8_t> raw = buf.align_from(at.values_offset, alignof(Int));
  if (raw.empty()) {  // no room to align them in place: copy them out, aligned
    std::span<const uint8_t> tail = buf.bytes().subspan(at.values_offset);
    CUZK_ASSIGN_OR_RETURN(WtnsBuffer copy, WtnsBuffer::allocate(tail.size(), 0));
    std::memcpy(copy.data(), tail.data(), tail.size());
    buf = std::move(copy);
    raw = buf.bytes();
  }
  std::span<const Int> values{reinterpret_cast<const Int*>(raw.data()), at.n};
  if (!scanned) {
    CUZK_RETURN_IF_ERROR(check_wtns_values<Fr>(values, at.where, pool));
    return values;
  }
  if (values[0] != Int::from_u64(1)) return data_loss(at.where + ": value 0 (the constant wire) must be 1");
  if (scanned_bad < at.n) return unreduced_value(at.where, scanned_bad);  // past n: another section's bytes
  return values;
}

template <class Fr>
Status write_wtns(const std::string& path, std::span<const typename Fr::Int> values) {
  if (values.size() > UINT32_MAX) return invalid_argument(path + ": too many witness values");
  BinWriter w;
  CUZK_RETURN_IF_ERROR(w.open(path, "wtns", 2, 2));
  CUZK_RETURN_IF_ERROR(w.begin_section(wtns_section::kHeader));
  uint8_t buf[Fr::BYTES];
  CUZK_RETURN_IF_ERROR(w.write_u32(Fr::BYTES));
  Fr::write_le(Fr::MODULUS, buf);
  CUZK_RETURN_IF_ERROR(w.write(buf, Fr::BYTES));
  CUZK_RETURN_IF_ERROR(w.write_u32(uint32_t(values.size())));
  CUZK_RETURN_IF_ERROR(w.end_section());
  CUZK_RETURN_IF_ERROR(w.begin_section(wtns_section::kValues));
  for (const auto& v : values) {
    Fr::write_le(v, buf);
    CUZK_RETURN_IF_ERROR(w.write(buf, Fr::BYTES));
  }
  CUZK_RETURN_IF_ERROR(w.end_section());
  return w.close();
}

}  // namespace cuzk::formats
