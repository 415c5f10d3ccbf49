// The batch strategy: the kChunk-sample chunks of a mini-batch run on different threads.
//   in one parallel region per batch:
//     for each chunk c, on some thread t:   chunks_[c] = chunk_gradient(kernels of t, chunk c)
//     barrier
//     for each parameter, on the thread that owns its cache line:
//       G[i] = ((0 + chunks_[0][i]) + chunks_[1][i]) + ...     (chunk order, as accumulate)
//       params[i] -= (lr / B) * G[i]                             (sgd_update on its lines)
//     join
// A batch of one chunk (B <= 16) runs on the calling thread alone, without a parallel region
// (run_team, workers.hpp).
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
  const int n_lines = (kParamCount + kLineFloats - 1) / kLineFloats;
  // No more threads than chunks: a thread without a chunk would only wait at the barriers
  // (B = 32 has 2 chunks; a batch of up to 16 samples has one).
  const int team = std::min(threads_, n_chunks);
  float* params = params_.v;
  float* grad = batch_grad_.v;
  double reduce_seconds = 0, update_seconds = 0;  // thread 0's, for --timing

  // Run by every thread of the team; its `omp for` binds to whichever team runs it.
  const auto train_and_update = [&] {
    Worker& w = workers_[omp_get_thread_num()];
    LayerTimes* t = timing_ ? &w.times : nullptr;
    if (t) *t = LayerTimes{};
#pragma omp for schedule(static)
    for (int c = 0; c < n_chunks; ++c) {  // whole chunks, each with this thread's kernels
      const int start = first + c * kChunk;
      const int n = std::min(kChunk, first + count - start);
      // Image prefetched during the chunk's last sample: the first of the same chunk in the
      // next batch, which schedule(static) gives to this thread again. (Where a thread has a
      // run of chunks, the next of its run comes first; its image was fetched a batch early.)
      chunks_[c].loss =
          chunk_gradient(*w.kernels, params, *train_, order_.data() + start, n,
                         image_at(order_, start + count), chunks_[c].grad, w.sample_grad, t);
    }  // implicit barrier: every chunk sum is ready

    // The chunk sums, added in chunk order, and the update of the same parameters: each thread
    // takes a run of whole cache lines of G and of the parameters, so no two threads write to
    // one line, and nothing is left for one thread alone after the join.
    const double t0 = now_seconds();
    const int me = omp_get_thread_num(), members = omp_get_num_threads();
    const int lo = std::min(kParamCount, n_lines * me / members * kLineFloats);
    const int hi = std::min(kParamCount, n_lines * (me + 1) / members * kLineFloats);
    for (int i = lo; i < hi; ++i)
      grad[i] = 0.0f;
    for (int c = 0; c < n_chunks; ++c) {
      for (int i = lo; i < hi; ++i)
        grad[i] += chunks_[c].grad[i];
    }
    const double t1 = now_seconds();
    sgd_update(params + lo, grad + lo, lr, count, hi - lo);
    if (me == 0) {
      reduce_seconds = t1 - t0;
      update_seconds = now_seconds() - t1;
    }
  };
  // After the join every parameter is updated (a barrier of its own cost 1.4 us a batch).
  run_team(team, train_and_update);

  for (int c = 0; c < n_chunks; ++c)
    loss_sum_ += chunks_[c].loss;
  if (!timing_) return;
  // The team's time is its slowest thread's (common/timer.hpp, workers.hpp).
  const LayerTimes& slowest = slowest_times(workers_, team);
  for (auto field : kWorkerTimeFields)
    times_.*field += slowest.*field;
  times_.reduce += reduce_seconds;
  times_.update += update_seconds;
}

}  // namespace lenet
