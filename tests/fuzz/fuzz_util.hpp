// Shared by the fuzz targets: the input as a file (the readers are reached through the
// same path-taking entry points `cuzk` uses, so they memory-map it), and a check that
// aborts, which libFuzzer and the replay runner both report as a finding.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include "formats/mapped_file.hpp"

namespace cuzk::fuzz {

[[noreturn]] inline void fail_check(const char* cond, const char* file, int line, const std::string& detail) {
  std::fprintf(stderr, "%s:%d: fuzz property failed: %s %s\n", file, line, cond, detail.c_str());
  std::abort();
}

#define CUZK_FUZZ_CHECK(cond, detail)                                         \
  do {                                                                        \
    if (!(cond)) ::cuzk::fuzz::fail_check(#cond, __FILE__, __LINE__, detail); \
  } while (0)

// A path in $TMPDIR (or /tmp) private to this process, one per `tag`, removed at exit.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& tag) {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/cuzk-fuzz-" + std::to_string(getpid()) +
            "-" + tag;
  }
  ~ScratchFile() { std::remove(path_.c_str()); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  const std::string& path() const { return path_; }
  // Replaces the file's contents with `bytes`.
  void write(std::span<const uint8_t> bytes) const {
    Status s = formats::write_file(path_, bytes);
    CUZK_FUZZ_CHECK(s.is_ok(), s.message());
  }

 private:
  std::string path_;
};

}  // namespace cuzk::fuzz
