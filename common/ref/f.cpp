// F: fully connected 216 -> 10, then softmax and cross-entropy.
//   forward:  z3[k] = b3[k] + sum_n W3[k][n] * a2[n]    p = softmax(z3)   loss = -log p[label]
//   backward: d3[k] = p[k] - (k == label)
//             dW3[k][n] = d3[k] * a2[n]                 db3[k] = d3[k]
//             g2[n] = sum_k W3[k][n] * d3[k]            d2 = g2 * a2 * (1 - a2)
#include "layers.hpp"

namespace lenet::ref {

void f_logits(const float* params, const float* a2, float* z3, int begin, int end) {
  const float* W3 = params + kW3;
  const float* b3 = params + kB3;
  for (int k = begin; k < end; ++k) {
    // 8 partial sums (216 = 27 * 8) so the dot product vectorises; added up once at the end.
    float part[8] = {};
    for (int n0 = 0; n0 < kS1Size; n0 += 8) {
      for (int l = 0; l < 8; ++l)
        part[l] += W3[k * kS1Size + n0 + l] * a2[n0 + l];
    }
    float z = b3[k];
    for (int l = 0; l < 8; ++l)
      z += part[l];
    z3[k] = z;
  }
}

void f_bias_gradient(const float* p, int label, float* grad) {
  for (int k = 0; k < kClasses; ++k)
    grad[kB3 + k] = p[k] - (k == label ? 1.0f : 0.0f);
}

// The k loop adds into every g2[n], so a thread that takes a part of the columns n runs the
// whole k loop on them. (A range of a width fixed at compile time, kept in registers, is
// compiled with a multiply and an add instead of a fused multiply-add: other bits. A range known
// only at run time, as here, is compiled one way for every caller.)
void f_backward(const float* params, const float* a2, const float* p, int label, float* grad,
                float* d2, int begin, int end) {
  const float* W3 = params + kW3;
  float* dW3 = grad + kW3;
  float g2[kS1Size] = {};
  for (int k = 0; k < kClasses; ++k) {
    const float d3 = p[k] - (k == label ? 1.0f : 0.0f);
    for (int n = begin; n < end; ++n) {
      dW3[k * kS1Size + n] = d3 * a2[n];
      g2[n] += W3[k * kS1Size + n] * d3;
    }
  }
  for (int n = begin; n < end; ++n)
    d2[n] = g2[n] * a2[n] * (1.0f - a2[n]);
}

}  // namespace lenet::ref
