// The kernels of probes.hpp. Compiled like backend_cuda's sources (translate.cmake).
#include "probes.hpp"

namespace probes {
namespace {

__global__ void reverse_kernel(const float* in, float* out, bool barrier) {
  __shared__ float tile[kThreads];
  const int t = threadIdx.x, base = blockIdx.x * kThreads;
  tile[t] = in[base + t];
  if (barrier) __syncthreads();
  out[base + t] = tile[kThreads - 1 - t];
}

__global__ void warp_sums_kernel(const float* in, float* out) {
  float v = in[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = v;
}

__global__ void divergent_barrier_kernel() {
  if (threadIdx.x < kThreads / 2) __syncthreads();
}

__global__ void lane_leaves_kernel(float* out) {
  if (threadIdx.x == 5) return;
  out[threadIdx.x] = __shfl_down_sync(0xffffffffu, 1.0f, 1);
}

__global__ void past_the_end_kernel(float* out, int n) {
  out[n + threadIdx.x] = 0.0f;
}

__global__ void fill_kernel(float* out) {
  out[threadIdx.x] = 1.0f;
}

}  // namespace

void reverse(const float* in, float* out, int blocks, bool barrier, cudaStream_t stream) {
  reverse_kernel<<<blocks, kThreads, 0, stream>>>(in, out, barrier);
}

void warp_sums(const float* in, float* out, cudaStream_t stream) {
  warp_sums_kernel<<<1, kThreads, 0, stream>>>(in, out);
}

void divergent_barrier() {
  divergent_barrier_kernel<<<1, kThreads>>>();
}

void lane_leaves_before_shuffle(float* out) {
  lane_leaves_kernel<<<1, kThreads>>>(out);
}

void write_past_the_end(float* out, int n) {
  past_the_end_kernel<<<1, 1>>>(out, n);
}

void too_many_threads(float* out) {
  fill_kernel<<<1, 2048>>>(out);
}

void load_warp_sums() {
  cudaFuncAttributes attributes;
  cudaFuncGetAttributes(&attributes, warp_sums_kernel);
}

}  // namespace probes
