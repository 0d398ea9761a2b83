#include "groth16/random.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace cuzk::groth16 {

uint64_t OsRng::operator()() {
  if (left_ == 0) {
    auto* p = reinterpret_cast<unsigned char*>(buf_);
    size_t need = sizeof(buf_);
    while (need > 0) {
      ssize_t got = getrandom(p, need, 0);
      if (got < 0) {
        if (errno == EINTR) continue;
        std::perror("cuzk: getrandom");
        std::abort();
      }
      p += got;
      need -= size_t(got);
    }
    left_ = sizeof(buf_) / sizeof(buf_[0]);
  }
  return buf_[--left_];
}

}  // namespace cuzk::groth16
