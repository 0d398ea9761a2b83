// The iden3 "binfile" container shared by .r1cs, .wtns, .zkey and .ptau:
//   magic[4] | u32 version | u32 nSections | nSections x { u32 id | u64 size | data[size] }
// All integers little-endian. Sections may come in any order; ids must be unique.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"

namespace cuzk::formats {

static_assert(std::endian::native == std::endian::little,
              "formats reinterpret little-endian file bytes in place; big-endian hosts are not supported");

// Maps a section id to a human name for messages ("H points"); nullptr if unknown.
using SectionNamer = const char* (*)(uint32_t id);

struct BinSection {
  uint32_t id = 0;
  uint64_t offset = 0;  // of the section data within the file
  uint64_t size = 0;
};

class BinFile {
 public:
  // Parses the container over `bytes` (which must outlive the BinFile). `label` names the
  // file in messages; `magic` is the expected 4-character tag; versions in
  // [min_version, max_version] are accepted.
  static Result<BinFile> parse(std::span<const uint8_t> bytes, std::string label, std::string_view magic,
                               uint32_t min_version, uint32_t max_version, SectionNamer namer);

  const std::string& label() const { return label_; }
  uint32_t version() const { return version_; }
  const std::vector<BinSection>& sections() const { return sections_; }
  std::span<const uint8_t> bytes() const { return bytes_; }

  bool has(uint32_t id) const { return find(id) != nullptr; }
  // The data of section `id`, or "<file>: missing section <id> (<name>)".
  Result<std::span<const uint8_t>> section(uint32_t id) const;
  // File offset of section `id`'s data (the section must exist).
  uint64_t offset_of(uint32_t id) const { return find(id)->offset; }

  // "<file>: section <id> (<name>)", the prefix of every message about that section.
  std::string where(uint32_t id) const;

 private:
  const BinSection* find(uint32_t id) const;

  std::span<const uint8_t> bytes_;
  std::string label_;
  uint32_t version_ = 0;
  std::vector<BinSection> sections_;
  SectionNamer namer_ = nullptr;
};

// A bounds-checked little-endian reader over one section. Each read names the field it
// reads, so a short section produces "<where>: truncated reading <field> ...".
class SectionReader {
 public:
  SectionReader(std::span<const uint8_t> data, std::string where) : data_(data), where_(std::move(where)) {}

  Status u32(uint32_t& out, const char* field);
  Status u64(uint64_t& out, const char* field);
  Status u8(uint8_t& out, const char* field);
  Status bytes(size_t n, std::span<const uint8_t>& out, const char* field);
  Status skip(size_t n, const char* field);
  // Fails unless every byte was consumed ("... has N trailing bytes").
  Status expect_end() const;

  size_t pos() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }
  const std::string& where() const { return where_; }
  Status error(const std::string& msg) const { return data_loss(where_ + ": " + msg); }

 private:
  Status need(size_t n, const char* field) const;

  std::span<const uint8_t> data_;
  std::string where_;
  size_t pos_ = 0;
};

inline uint32_t load_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t load_u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Streams a binfile to disk section by section, patching each section's size when it
// ends, so multi-gigabyte keys are never held in memory twice.
class BinWriter {
 public:
  BinWriter() = default;
  ~BinWriter();
  BinWriter(const BinWriter&) = delete;
  BinWriter& operator=(const BinWriter&) = delete;

  Status open(const std::string& path, std::string_view magic, uint32_t version, uint32_t n_sections);
  Status begin_section(uint32_t id);
  Status write(const void* data, size_t n);
  Status write_u32(uint32_t v) { return write(&v, 4); }
  Status write_u64(uint64_t v) { return write(&v, 8); }
  Status write_zeros(size_t n);
  Status end_section();
  // Checks that the declared number of sections was written and flushes the file.
  Status close();

 private:
  Status io_error(const char* what) const;

  FILE* fp_ = nullptr;
  std::string path_;
  uint32_t declared_ = 0;
  uint32_t written_ = 0;
  bool in_section_ = false;
  long section_start_ = 0;
  uint64_t section_size_ = 0;
};

}  // namespace cuzk::formats
