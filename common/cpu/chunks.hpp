// The chunks of a mini-batch shared among a team of threads: lenet-openmp's batch strategy and
// each rank of lenet-mpi (--threads) compute their chunk sums with this one loop.
#pragma once

#include <cstdint>
#include <vector>

#include "../dataset.hpp"
#include "../network.hpp"
#include "../step.hpp"
#include "workers.hpp"

namespace lenet {

// The sums of the chunks of kChunk samples of order[lo, hi), cut from lo, into out[0..n);
// returns n. Called by every thread of a team (inside `#pragma omp parallel`), or by one
// thread alone: its `omp for` gives each thread whole chunks, computed with that thread's
// worker (workers[omp_get_thread_num()]), and ends with the team's barrier, after which every
// chunk sum is ready. `batch`: the batch size; the images after a chunk are the same chunk of
// the next batch, which schedule(static) gives to the same thread again. With `timing`,
// each worker adds its per-layer times to its own timers.
int chunk_sums(std::vector<Worker>& workers, const float* params, const Dataset& data,
               const std::vector<int32_t>& order, int lo, int hi, int batch, ChunkSum* out,
               bool timing);

}  // namespace lenet
