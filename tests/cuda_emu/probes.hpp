// Small kernels with and without deliberate mistakes (probes.cu), for test_emulation.cpp: each
// mistake is one the emulation must catch. Host functions that launch them on the legacy stream.
#pragma once

#include <cuda_runtime.h>

namespace probes {

constexpr int kThreads = 64;  // threads per block of every probe: two warps

// out[b][t] = in[b][63 - t] through shared memory; with barrier = false, the __syncthreads
// between the writes and the reads is missing.
void reverse(const float* in, float* out, int blocks, bool barrier, cudaStream_t stream = nullptr);
// out[w] = the sum of in over warp w, by warp_sum's five shuffles.
void warp_sums(const float* in, float* out, cudaStream_t stream);
// Only the first half of the block reaches a __syncthreads.
void divergent_barrier();
// Lane 5 returns before the shuffle that the rest of its warp waits at.
void lane_leaves_before_shuffle(float* out);
// Writes one float past the end of the n floats at out.
void write_past_the_end(float* out, int n);
// A launch of 2048 threads per block (CUDA allows 1024).
void too_many_threads(float* out);
// Loads warp_sums' kernel, as the backend loads kernels before a stream capture.
void load_warp_sums();

}  // namespace probes
