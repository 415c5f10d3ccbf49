// The tally kernel: adds per-sample losses and hits to a Tally with one block, each thread
// summing a fixed strided subset in order and block_sum adding the partial sums: the order does
// not depend on timing, so the loss sum has the same bits on every run.
#include "check.hpp"
#include "device_math.cuh"
#include "version.cuh"

namespace lenet::cuda {
namespace {

constexpr int kThreads = 256;

__global__ void tally_kernel(const float* loss, const int* hit, int count, Tally* out) {
  __shared__ double loss_scratch[kThreads / 32];
  __shared__ int hit_scratch[kThreads / 32];
  double loss_sum = 0;
  int hits = 0;
  for (int s = threadIdx.x; s < count; s += kThreads) {
    loss_sum += loss[s];
    hits += hit[s];
  }
  loss_sum = block_sum<kThreads>(loss_sum, loss_scratch);
  hits = block_sum<kThreads>(hits, hit_scratch);
  if (threadIdx.x == 0) {
    out->loss_sum += loss_sum;
    out->correct += hits;
  }
}

}  // namespace

void tally(const float* loss, const int* hit, int count, Tally* out, cudaStream_t stream) {
  tally_kernel<<<1, kThreads, 0, stream>>>(loss, hit, count, out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace lenet::cuda
