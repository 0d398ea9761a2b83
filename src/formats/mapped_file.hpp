// A read-only memory mapping of a whole file, released when the object dies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "core/status.hpp"

namespace cuzk::formats {

class MappedFile {
 public:
  MappedFile() = default;
  ~MappedFile();
  MappedFile(MappedFile&& o) noexcept;
  MappedFile& operator=(MappedFile&& o) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // Maps `path` read-only. An empty file maps to an empty span (mmap rejects length 0).
  static Result<MappedFile> open(const std::string& path);

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }

  // Drops the pages under `range` (clipped to the mapping; whole pages, so up to a page
  // either side too) from this process's resident set. The mapping stays valid: the next
  // read faults the page back in from the page cache, unchanged. Ranges outside the
  // mapping are ignored.
  void drop_resident(std::span<const uint8_t> range) const;

 private:
  void release();

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
  std::string path_;
};

// The file name without its directories: what error messages name ("circuit.zkey: ...").
std::string file_label(const std::string& path);

// Writes `bytes` to `path` (replacing it) and reports any I/O error.
Status write_file(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace cuzk::formats
