// Memory on transparent huge pages (2 MiB), where the kernel grants them. Training reads its 47 MB
// of pixels in a random order; on 4 KiB pages nearly every image costs a TLB miss.
#pragma once

#include <cstddef>
#include <memory>

namespace lenet {

// n bytes aligned to 2 MiB and marked with madvise(MADV_HUGEPAGE) before their first touch, so
// that the page faults that write them take huge pages. Null when out of memory.
std::shared_ptr<void> huge_page_buffer(size_t n);

// The share (0 to 1) of [p, p + n) that the kernel backs with huge pages now, from
// /proc/self/smaps' AnonHugePages; 0 where that cannot be read.
double huge_page_share(const void* p, size_t n);

}  // namespace lenet
