#include "softmax.hpp"

#include <cmath>

#include "network.hpp"

namespace lenet {

float f_softmax_loss(const float* z3, float* p, int label) {
  // Softmax with the maximum subtracted; the loss as log-sum-exp minus the label's logit, which
  // stays finite where p[label] would round to 0.
  float zmax = z3[0];
  for (int k = 1; k < kClasses; ++k)
    zmax = z3[k] > zmax ? z3[k] : zmax;
  float sum = 0.0f;
  for (int k = 0; k < kClasses; ++k) {
    p[k] = std::exp(z3[k] - zmax);
    sum += p[k];
  }
  for (int k = 0; k < kClasses; ++k)
    p[k] /= sum;
  return std::log(sum) - (z3[label] - zmax);
}

int f_predicted(const float* z3) {
  int best = 0;
  for (int k = 1; k < kClasses; ++k) {
    if (z3[k] > z3[best]) best = k;
  }
  return best;
}

}  // namespace lenet
