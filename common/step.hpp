// One training step over a batch, defined once for every CPU backend (docs/network.md,
// "Bit-identical CPU backends"):
//   1. chunk sums: the batch cut into chunks of kChunk samples from its first; each chunk's
//      gradient sum and loss sum (chunk_gradient, gradient.hpp), on whichever thread or rank
//      the backend gives it;
//   2. G[i] = ((0 + S_0[i]) + S_1[i]) + ...   the chunk sums in chunk order (sum_chunks);
//   3. params[i] -= (lr / B) * G[i]           (sgd_update).
// A backend says only who computes which chunks and how the sums meet: lenet-serial computes
// them one after the other (sgd_step); a thread team splits steps 2 and 3 into slices of the
// parameters, one slice per thread (param_slice); MPI ranks gather the chunk sums (--exact) or
// add their partial sums with MPI_Allreduce.
#pragma once

#include <cstdint>
#include <vector>

#include "dataset.hpp"
#include "kernels.hpp"
#include "share.hpp"
#include "timer.hpp"

namespace lenet {

// One chunk's gradient sum and loss sum, written by whichever thread computes the chunk.
// alignas(64): threads writing neighbouring chunks never share a cache line.
struct alignas(64) ChunkSum {
  float grad[kParamCount];
  double loss;
};

// Every parameter: the slice of a step computed by one thread alone.
constexpr Range kAllParams = {0, kParamCount};

// The parameters member `part` of a team of `parts` sums and updates: a run of whole cache lines
// (16 floats), so that no two threads write one line.
Range param_slice(int parts, int part);

// Step 2 on `slice`: grad[i] = the sum of chunks[0..n).grad[i] in chunk order.
void sum_chunks(const ChunkSum* chunks, int n, float* grad, Range slice);

// Steps 2 and 3 on `slice`, each timed into times->reduce and times->update where times is not
// null.
void sum_and_update(const ChunkSum* chunks, int n, float* grad, float* params, float lr, int batch,
                    Range slice, LayerTimes* times);

// Adds the chunks' losses to loss_sum one after the other, in chunk order.
void add_losses(const ChunkSum* chunks, int n, double& loss_sum);

// The whole step on this thread alone: the chunks of order[first, first + count) one after the
// other with k, into chunks (grown to the batch's chunk count), then steps 2 and 3 on every
// parameter. Adds the chunks' losses to loss_sum. lenet-serial's step, and lenet-openmp's layer
// strategy's, whose kernels share each layer's loops among the threads.
void sgd_step(Kernels& k, float* params, const Dataset& data, const std::vector<int32_t>& order,
              int first, int count, float lr, std::vector<ChunkSum>& chunks, float* grad,
              double& loss_sum, LayerTimes* times);

}  // namespace lenet
