// Version 1: one kernel per layer and pass, one thread per output element, one sample per launch.
// The teaching baseline: each kernel is the spec's formula for one output and nothing else.
// `s` is the sample's position in the batch b; buffers hold that one sample's values.
#pragma once

#include "../version.cuh"

namespace lenet::cuda::v1 {

// c1.cu: a1 = sigmoid(C1(x)), and dW1, db1 added into the batch gradient `grad`.
void c1_forward(const float* params, const Samples& b, int s, float* a1, cudaStream_t stream);
void c1_backward(const Samples& b, int s, const float* d1, float* grad, cudaStream_t stream);

// s1.cu: a2 = sigmoid(S1(a1)); backward adds dW2, db2 into grad and writes d1 = dloss/dz1.
void s1_forward(const float* params, const float* a1, float* a2, cudaStream_t stream);
void s1_backward(const float* params, const float* a1, const float* d2, float* grad, float* d1,
                 cudaStream_t stream);

// f.cu: z3 = F(a2), p = softmax(z3), the loss and hit added to *tally; backward adds dW3, db3
// into grad and writes d2 = dloss/dz2.
void f_forward(const float* params, const float* a2, const Samples& b, int s, float* p,
               Tally* tally, cudaStream_t stream);
void f_backward(const float* params, const float* a2, const float* p, const Samples& b, int s,
                float* grad, float* d2, cudaStream_t stream);

// update.cu: params -= scale * grad, scale = lr / B.
void sgd_update(float* params, const float* grad, float scale, cudaStream_t stream);

}  // namespace lenet::cuda::v1
