// F: fully connected 216 -> 10, then softmax and cross-entropy.
//   forward:  z3[k] = b3[k] + sum_n W3[k][n] * a2[n]    p = softmax(z3)   loss = -log p[label]
//   backward: d3[k] = p[k] - (k == label)
//             dW3[k][n] = d3[k] * a2[n]                 db3[k] = d3[k]
//             g2[n] = sum_k W3[k][n] * d3[k]            d2 = g2 * a2 * (1 - a2)
// The loops are ref's (common/ref/f.cpp): the 10 dot products of the forward pass and, in the
// backward pass, the 216 inputs are shared among the threads; the softmax over 10 logits stays
// on one thread.
#include <omp.h>

#include <cmath>

#include "layer_kernels.hpp"

namespace lenet {

float LayerKernels::f_forward(const float* params, int label) {
  const float* W3 = params + kW3;
  const float* b3 = params + kB3;
#pragma omp parallel for num_threads(threads_)
  for (int k = 0; k < kClasses; ++k) {
    // 8 partial sums (216 = 27 * 8) so the dot product vectorises; added up once at the end.
    float part[8] = {};
    for (int n0 = 0; n0 < kS1Size; n0 += 8) {
      for (int l = 0; l < 8; ++l)
        part[l] += W3[k * kS1Size + n0 + l] * act_.a2[n0 + l];
    }
    float z = b3[k];
    for (int l = 0; l < 8; ++l)
      z += part[l];
    act_.z3[k] = z;
  }
  // Softmax with the maximum subtracted; the loss as log-sum-exp minus the label's logit, which
  // stays finite where p[label] would round to 0.
  float zmax = act_.z3[0];
  for (int k = 1; k < kClasses; ++k)
    zmax = act_.z3[k] > zmax ? act_.z3[k] : zmax;
  float sum = 0.0f;
  for (int k = 0; k < kClasses; ++k) {
    act_.p[k] = std::exp(act_.z3[k] - zmax);
    sum += act_.p[k];
  }
  for (int k = 0; k < kClasses; ++k)
    act_.p[k] /= sum;
  label_ = label;
  act_.loss = std::log(sum) - (act_.z3[label] - zmax);
  return act_.loss;
}

int LayerKernels::predicted() const {
  int best = 0;
  for (int k = 1; k < kClasses; ++k) {
    if (act_.z3[k] > act_.z3[best]) best = k;
  }
  return best;
}

// ref's k loop adds into every g2[n], so it cannot be shared out over k. Each thread runs ref's
// loops on its own range of columns n instead. (Blocks of a fixed width, which GCC keeps in a
// register, are compiled with a multiply and an add instead of ref's fused multiply-add: other
// bits. A range known only at run time keeps ref's code; the tests check the bits.)
void LayerKernels::f_backward(const float* params, float* grad) {
  const float* W3 = params + kW3;
  float* dW3 = grad + kW3;
  float* db3 = grad + kB3;
#pragma omp parallel num_threads(threads_)
  {
    const int t = omp_get_thread_num(), team = omp_get_num_threads();
    const int lo = kS1Size * t / team, hi = kS1Size * (t + 1) / team;
    float g2[kS1Size] = {};
    for (int k = 0; k < kClasses; ++k) {
      const float d3 = act_.p[k] - (k == label_ ? 1.0f : 0.0f);
      if (t == 0) db3[k] = d3;
      for (int n = lo; n < hi; ++n) {
        dW3[k * kS1Size + n] = d3 * act_.a2[n];
        g2[n] += W3[k * kS1Size + n] * d3;
      }
    }
    for (int n = lo; n < hi; ++n)
      d2_[n] = g2[n] * act_.a2[n] * (1.0f - act_.a2[n]);
  }
}

}  // namespace lenet
