// F: fully connected 216 -> 10, then softmax and cross-entropy.
//   forward:  z3[k] = b3[k] + sum_n W3[k][n] * a2[n]    p = softmax(z3)   loss = -log p[label]
//   backward: d3[k] = p[k] - (k == label)
//             dW3[k][n] = d3[k] * a2[n]                 db3[k] = d3[k]
//             g2[n] = sum_k W3[k][n] * d3[k]            d2 = g2 * a2 * (1 - a2)
// ref's loops (common/ref/f.cpp) with a vector for every float, each sum in ref's source order.
// Two steps do not give ref's bits. The logits: GCC compiles ref's loop, unrolled, with fused
// multiply-adds for some of the 27 steps and a multiply then an add for others (its vectoriser's
// choice; another compiler chooses otherwise), where this loop fuses every one, so z3 and all
// that follows agree with ref within float32 rounding (tests/unit/test_lanes.cpp). The softmax:
// ref's own function (common/softmax.cpp), run for each lane in turn, since its std::exp and
// std::log have no vector form with their bits (10 exps a sample). dW3 and db3 are summed over the
// chunk by sum.cpp.
#include "../softmax.hpp"
#include "layers.hpp"

namespace lenet::lanes {

void f_forward(const float* params, Lanes& g) {
  const float* W3 = params + kW3;
  const float* b3 = params + kB3;
  for (int k = 0; k < kClasses; ++k) {
    // ref's 8 partial sums (n = 8 q + l), added up in l order after the loop.
    vfloat part[8] = {};
    for (int n0 = 0; n0 < kS1Size; n0 += 8) {
      for (int l = 0; l < 8; ++l)
        part[l] += W3[k * kS1Size + n0 + l] * g.a2[n0 + l];
    }
    vfloat z = simd::splat(b3[k]);
    for (int l = 0; l < 8; ++l)
      z += part[l];
    g.z3[k] = z;
  }
  // The softmax and the loss: ref's function, for each lane in turn.
  for (int l = 0; l < kLanes; ++l) {
    float z3[kClasses], p[kClasses];
    for (int k = 0; k < kClasses; ++k)
      z3[k] = g.z3[k][l];
    g.loss[l] = f_softmax_loss(z3, p, g.label[l]);
    for (int k = 0; k < kClasses; ++k)
      g.p[k][l] = p[k];
  }
}

void f_backward(const float* params, Lanes& g) {
  const float* W3 = params + kW3;
  vint label;
  for (int l = 0; l < kLanes; ++l)
    label[l] = g.label[l];
  for (int k = 0; k < kClasses; ++k)
    g.d3[k] = g.p[k] - (label == k ? simd::splat(1.0f) : simd::splat(0.0f));
  for (int n = 0; n < kS1Size; ++n) {
    vfloat g2 = {};
    for (int k = 0; k < kClasses; ++k)
      g2 += W3[k * kS1Size + n] * g.d3[k];
    g.d2[n] = g2 * g.a2[n] * (1.0f - g.a2[n]);
  }
}

}  // namespace lenet::lanes
