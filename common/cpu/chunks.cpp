#include "chunks.hpp"

#include <omp.h>

#include <algorithm>

#include "../gradient.hpp"

namespace lenet {

int chunk_sums(std::vector<Worker>& workers, const float* params, const Dataset& data,
               const std::vector<int32_t>& order, int lo, int hi, int batch, ChunkSum* out,
               bool timing) {
  const int n = (hi - lo + kChunk - 1) / kChunk;
  Worker& w = workers[omp_get_thread_num()];
#pragma omp for schedule(static)
  for (int c = 0; c < n; ++c) {  // whole chunks, each with this thread's kernels
    const int start = lo + c * kChunk;
    w.samples += std::min(kChunk, hi - start);
    // Where a thread has a run of chunks, the next of its run comes first; its image was
    // fetched a batch early.
    out[c].loss =
        chunk_gradient(*w.kernels, params, data, order.data() + start, std::min(kChunk, hi - start),
                       chunk_at(order, start + batch), out[c].grad, timing ? &w.times : nullptr);
  }  // implicit barrier: every chunk sum is ready
  return n;
}

}  // namespace lenet
