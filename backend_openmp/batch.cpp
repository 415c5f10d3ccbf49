// The batch strategy: the kChunk-sample chunks of a mini-batch run on different threads.
//   in one parallel region per batch:
//     for each chunk c, on some thread t:   chunks_[c] = chunk_gradient(kernels of t, chunk c)
//     barrier
//     for each parameter, on the thread that owns its cache line (sum_and_update, step.hpp):
//       G[i] = ((0 + chunks_[0][i]) + chunks_[1][i]) + ...     (chunk order)
//       params[i] -= (lr / B) * G[i]
//     join
// A chunk's sum does not depend on the thread that computes it, and G adds the chunk sums in
// the same order as lenet-serial: the bits are the serial backend's, for any thread count.
// The team has min(threads, chunks) threads: with B = 32 there are two chunks, so a third or
// fourth thread would have nothing to do.
#include <omp.h>

#include <algorithm>

#include "../common/gradient.hpp"
#include "openmp_backend.hpp"

namespace lenet {

void OpenMPBackend::train_chunks_in_parallel(int first, int count, float lr) {
  const int n_chunks = (count + kChunk - 1) / kChunk;
  // Grows once, at the first (largest) batch; never per batch.
  if (n_chunks > static_cast<int>(chunks_.size())) chunks_.resize(n_chunks);
  // No more threads than chunks: a thread without a chunk would only wait at the barriers
  // (B = 32 has 2 chunks; a batch of up to 16 samples has one).
  const int team = std::min(threads_, n_chunks);
  most_working_ = std::max(most_working_, team);
  if (timing_) {
    for (int t = 0; t < team; ++t)
      workers_[t].times = LayerTimes{};
  }
  double reduce_seconds = 0, update_seconds = 0;  // thread 0's, for --timing
  for (int t = 0; t < team; ++t)  // to tell, after the batch, which threads trained a share
    samples_before_[t] = workers_[t].samples;

  // LAB 1 BEGIN: the parallel region and the deterministic reduction
  // Run by every thread of the team.
  const auto train_and_update = [&] {
    // Whole chunks on each thread, with its own kernels (chunks.hpp); the barrier at its end:
    // every chunk sum is ready.
    chunk_sums(workers_, params_.v, *train_, order_, first, first + count, count, chunks_.data(),
               timing_);

    // The chunk sums, added in chunk order, and the update of the same parameters
    // (common/step.hpp): each thread its own run of whole cache lines, so no two threads write
    // to one line, and nothing is left for one thread alone after the join.
    const int me = omp_get_thread_num();
    LayerTimes mine;
    sum_and_update(chunks_.data(), n_chunks, batch_grad_.v, params_.v, lr, count,
                   param_slice(omp_get_num_threads(), me), timing_ && me == 0 ? &mine : nullptr);
    if (me == 0) reduce_seconds = mine.reduce, update_seconds = mine.update;
  };
  if (team > 1) {
    // After the join every parameter is updated (a barrier of its own would cost 1.4 us a batch).
#pragma omp parallel num_threads(team)
    train_and_update();
  } else {
    // One chunk: this thread alone, no region (even a one-thread region costs 0.4 us, 12% of a
    // B = 1 step).
    train_and_update();
  }
  // LAB 1 END

  int sharers = 0;
  for (int t = 0; t < team; ++t)
    sharers += workers_[t].samples > samples_before_[t];
  batch_calls_.end_call(sharers, team);

  add_losses(chunks_.data(), n_chunks, loss_sum_);
  if (!timing_) return;
  // The team's time is its slowest thread's (common/timer.hpp, common/cpu/workers.hpp).
  times_ += slowest_times(workers_, team);
  times_.reduce += reduce_seconds;
  times_.update += update_seconds;
}

}  // namespace lenet
