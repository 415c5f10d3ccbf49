#include "huge_pages.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace lenet {

constexpr size_t kHugePage = size_t{2} << 20;

std::shared_ptr<void> huge_page_buffer(size_t n) {
  const size_t length = (n + kHugePage - 1) / kHugePage * kHugePage;
  void* p = std::aligned_alloc(kHugePage, std::max(length, kHugePage));
  if (!p) return nullptr;
  madvise(p, length, MADV_HUGEPAGE);  // a hint: without THP the buffer stays on 4 KiB pages
  return std::shared_ptr<void>(p, std::free);
}

double huge_page_share(const void* p, size_t n) {
  if (n == 0) return 0;
  const auto at = reinterpret_cast<uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  bool inside = false;  // in the entry of the mapping that holds p
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-') {  // a mapping's first line
      inside = begin <= at && at < end;
    } else if (inside && line.rfind("AnonHugePages:", 0) == 0) {
      const double kib = std::stod(line.substr(14));
      return std::min(1.0, kib * 1024 / static_cast<double>(n));
    }
  }
  return 0;
}

}  // namespace lenet
