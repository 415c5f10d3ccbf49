// The fused version's kernels (fused/kernels.cu): the whole per-sample pass in one kernel, and
// the batch's reduction with the update in another.
#pragma once

#include "../version.cuh"

namespace lenet::cuda::fused {

// The parts of the per-sample kernel that --timing tells apart: c1, s1, f forward, then f, s1,
// c1 backward.
constexpr int kPhases = 6;

// One block per sample of b: forward and backward, writing sample s's gradient (kParamCount
// floats, parameter order) to grads[s] and its loss to losses[s]. With `cycles` (kPhases
// counters, or null) each phase's clock cycles are added up for --timing.
void train(const float* params, const Samples& b, float* grads, float* losses,
           unsigned long long* cycles, cudaStream_t stream);

// params -= scale * (sum of the `count` gradients, in sample order); adds the losses to *tally
// and advances *cursor by count, so that a replayed step finds its next samples.
void reduce_update(float* params, const float* grads, const float* losses, int count, float scale,
                   Tally* tally, int* cursor, cudaStream_t stream);

// One block per sample of b, forward only: the loss and whether the prediction is right.
void forward(const float* params, const Samples& b, float* loss, int* hit, cudaStream_t stream);

// *cursor = value, as a kernel argument: no host-device copy.
void set_cursor(int* cursor, int value, cudaStream_t stream);

// Loads train's and reduce_update's kernels, so that a stream capture never has to: with lazy
// loading (the default since CUDA 12.2) a kernel is loaded at its first launch, and drivers
// before CUDA 12.3 may fail to do that inside a capture.
void load_step_kernels();

}  // namespace lenet::cuda::fused
