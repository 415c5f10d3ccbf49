// Version 2: batched. Each kernel covers the whole mini-batch (a grid over samples x outputs), so
// a step costs the same 9 launches at any B. Buffers hold the batch's samples one after the
// other: a1 is [B][3456], a2 and d2 [B][216], p [B][10], d1 [B][3456], loss and hit [B].
// The *_update kernels sum a layer's weight gradient over the batch (warp shuffles and block
// sums, no global atomics) and apply the SGD step to those weights at once; they run after every
// kernel that reads the old weights.
#pragma once

#include "../version.cuh"

namespace lenet::cuda::v2 {

// c1.cu
void c1_forward(const float* params, const Samples& b, float* a1, cudaStream_t stream);
void c1_backward_update(float* params, const Samples& b, const float* d1, float scale,
                        cudaStream_t stream);

// s1.cu
void s1_forward(const float* params, const float* a1, int count, float* a2, cudaStream_t stream);
void s1_backward_delta(const float* params, const float* a1, const float* d2, int count, float* d1,
                       cudaStream_t stream);
void s1_backward_update(float* params, const float* a1, const float* d2, int count, float scale,
                        cudaStream_t stream);

// f.cu
void f_forward(const float* params, const float* a2, const Samples& b, float* p, float* loss,
               int* hit, cudaStream_t stream);
void f_backward_delta(const float* params, const float* a2, const float* p, const Samples& b,
                      float* d2, cudaStream_t stream);
void f_backward_update(float* params, const float* a2, const float* p, const Samples& b,
                       float scale, cudaStream_t stream);

}  // namespace lenet::cuda::v2
