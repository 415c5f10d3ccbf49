// F: fully connected 216 -> 10, then softmax and cross-entropy.
//   forward:  z3[k] = b3[k] + sum_n W3[k][n] * a2[n]    p = softmax(z3)   loss = -log p[label]
//   backward: d3[k] = p[k] - (k == label)
//             dW3[k][n] = d3[k] * a2[n]                 db3[k] = d3[k]
//             g2[n] = sum_k W3[k][n] * d3[k]            d2 = g2 * a2 * (1 - a2)
// Vectors run along n. 216 is whole vectors of 4 or 8 floats; with 16 lanes the last vector of
// a row is moved back to end at column 216 (vec.hpp's vector_start), overlapping the one before
// it in 8 columns: the rows of W3 and dW3 are packed, so a vector must not run past a row.
#include <cmath>

#include "../softmax.hpp"
#include "../vec/exp_vectors.hpp"
#include "simd_kernels.hpp"

namespace lenet {

using namespace simd;

namespace {

constexpr int kColumnVectors = vectors_in_row(kS1Size);
constexpr int kClassVectors = padded(kClasses) / kLanes;  // z3 and p as whole vectors

}  // namespace

float SimdKernels::f_forward(const float* params, int label) {
  const float* W3 = params + kW3;
  const float* b3 = params + kB3;
  // One vector of columns n at a time, through all 10 rows: 10 independent sums (one sum per
  // row in turn would wait on each multiply-add's latency), a2 loaded once.
  vfloat part[kClasses] = {};
  for (int c = 0; c < kColumnVectors; ++c) {
    const int n = vector_start(c, kS1Size);
    // Columns of the last vector that the one before it already counted add 0.
    const vfloat a2 = fresh(c, kS1Size) ? load(a2_ + n) : 0.0f;
    for (int k = 0; k < kClasses; ++k)
      part[k] += load(W3 + k * kS1Size + n) * a2;
  }
  float sums[kClasses];
  hsums(part, sums);
  for (int k = 0; k < kClasses; ++k)
    z3_[k] = b3[k] + sums[k];
  // Softmax with the maximum subtracted; the loss as log-sum-exp minus the label's logit, which
  // stays finite where p[label] would round to 0. The exps and the divisions on whole vectors
  // (exp_vectors.hpp's vexp gives each lane what the scalar lenet::vexp of ref gives), the sum in
  // class order as in ref.
  float zmax = z3_[0];
  for (int k = 1; k < kClasses; ++k)
    zmax = z3_[k] > zmax ? z3_[k] : zmax;
  vfloat e[kClassVectors];
  for (int i = 0; i < kClassVectors; ++i)
    e[i] = load(z3_ + i * kLanes) - zmax;
  vexp(e);
  for (int i = 0; i < kClassVectors; ++i)
    store(p_ + i * kLanes, e[i]);
  float sum = 0.0f;
  for (int k = 0; k < kClasses; ++k)
    sum += p_[k];
  for (int i = 0; i < kClassVectors; ++i)
    store(p_ + i * kLanes, e[i] / sum);
  label_ = label;
  loss_ = std::log(sum) - (z3_[label] - zmax);
  return loss_;
}

int SimdKernels::predicted() const {
  return f_predicted(z3_);
}

void SimdKernels::f_backward(const float* params, float* grad) {
  const float* W3 = params + kW3;
  float* dW3 = grad + kW3;
  float* db3 = grad + kB3;
  float d3[kClasses];
  for (int k = 0; k < kClasses; ++k) {
    d3[k] = p_[k] - (k == label_ ? 1.0f : 0.0f);
    db3[k] = d3[k];
  }
  // One vector of columns n at a time, through all 10 rows: dW3 and g2 in one pass over W3.
  // Where the last vector overlaps the one before it, it writes the same values again.
  for (int c = 0; c < kColumnVectors; ++c) {
    const int n = vector_start(c, kS1Size);
    const vfloat a2 = load(a2_ + n);
    vfloat g2 = {};
    for (int k = 0; k < kClasses; ++k) {
      store(dW3 + k * kS1Size + n, d3[k] * a2);
      g2 += load(W3 + k * kS1Size + n) * d3[k];
    }
    store(d2_ + n, g2 * a2 * (1.0f - a2));
  }
}

}  // namespace lenet
