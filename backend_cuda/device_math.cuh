// Device code that every kernel version shares: the spec's element-wise math (input scaling,
// sigmoid, softmax and loss, the logits' gradient) and sums over a warp or a block.
#pragma once

#include <cstdint>

#include "../common/network.hpp"

namespace lenet::cuda {

// x = pixel / 255, an IEEE float32 division as on the CPU: nvcc divides exactly unless told
// -prec-div=false or --use_fast_math, which this project never sets.
__device__ inline float input_x(uint8_t pixel) {
  return static_cast<float>(pixel) / 255.0f;
}

// expf, not the __expf intrinsic: its error grows with |z| and would show in the test vectors.
__device__ inline float sigmoid(float z) {
  return 1.0f / (1.0f + expf(-z));
}

// Softmax of the 10 logits z with the maximum subtracted (p gets the probabilities) and the loss
// log-sum-exp - z[label], which stays finite where p[label] rounds to 0. *predicted is the argmax,
// the lowest index on a tie. One thread runs it: ten values are not worth a parallel reduction.
__device__ inline float softmax_loss(const float* z, int label, float* p, int* predicted) {
  float zmax = z[0];
  int best = 0;
  for (int k = 1; k < kClasses; ++k) {
    if (z[k] > zmax) zmax = z[k], best = k;
  }
  float sum = 0.0f;
  for (int k = 0; k < kClasses; ++k) {
    p[k] = expf(z[k] - zmax);
    sum += p[k];
  }
  for (int k = 0; k < kClasses; ++k)
    p[k] /= sum;
  *predicted = best;
  return logf(sum) - (z[label] - zmax);
}

// d3[k] = p[k] - (k == label): the loss's gradient with respect to logit k.
__device__ inline float logit_grad(const float* p, int label, int k) {
  return p[k] - (k == label ? 1.0f : 0.0f);
}

// Sum over the 32 lanes of a warp; every lane must call it. Lane 0 gets the total.
template <class T>
__device__ T warp_sum(T v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Sum over a block of exactly kThreads threads (a multiple of 32, so that every warp is full);
// every thread must call it. Thread 0 gets the total. `scratch` is shared memory for one value
// per warp; the final __syncthreads lets the caller reuse it at once.
template <int kThreads, class T>
__device__ T block_sum(T v, T* scratch) {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps, at most 1024 threads");
  constexpr int kWarps = kThreads / 32;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_sum(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  T total = 0;
  if (warp == 0) total = warp_sum(lane < kWarps ? scratch[lane] : T(0));
  __syncthreads();
  return total;
}

// The textbook shared-memory tree (version 1): each thread stores its value, then the active
// half adds the other half until part[0] holds the total, which every thread gets. kThreads must
// be a power of two; `part` is shared memory of kThreads values, free again on return.
template <int kThreads>
__device__ float tree_sum(float v, float* part) {
  static_assert(kThreads > 0 && (kThreads & (kThreads - 1)) == 0, "a power of two");
  const int t = threadIdx.x;
  part[t] = v;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (t < stride) part[t] += part[t + stride];
    __syncthreads();
  }
  const float total = part[0];
  __syncthreads();
  return total;
}

// Blocks of `threads` threads that cover n items, one per thread.
inline unsigned int blocks_for(long long n, int threads) {
  return static_cast<unsigned int>((n + threads - 1) / threads);
}

}  // namespace lenet::cuda
