#include "engine/engine_config.hpp"

#include <unistd.h>

namespace cuzk::engine {

uint64_t physical_memory_bytes() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : (uint64_t(8) << 30);
}

}  // namespace cuzk::engine
