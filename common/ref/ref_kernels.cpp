// The ref kernels: each layer's loops (layers.hpp) over all of the layer, one after the other.
#include "ref_kernels.hpp"

#include "layers.hpp"

namespace lenet {

void RefKernels::load_input(const uint8_t* pixels) {
  ref::load_input(pixels, act_.x);
}

void RefKernels::c1_forward(const float* params) {
  ref::c1_forward(params, act_.x, act_.z1, act_.a1, 0, ref::kC1Rows);
}

void RefKernels::s1_forward(const float* params) {
  ref::s1_forward(params, act_.a1, act_.z2, act_.a2, 0, ref::kS1Rows);
}

float RefKernels::f_forward(const float* params, int label) {
  ref::f_logits(params, act_.a2, act_.z3, 0, kClasses);
  label_ = label;
  act_.loss = ref::f_softmax_loss(act_.z3, act_.p, label);
  return act_.loss;
}

int RefKernels::predicted() const {
  return ref::f_predicted(act_.z3);
}

void RefKernels::f_backward(const float* params, float* grad) {
  ref::f_bias_gradient(act_.p, label_, grad);
  ref::f_backward(params, act_.a2, act_.p, label_, grad, d2_, 0, kS1Size);
}

void RefKernels::s1_backward(const float* params, float* grad) {
  ref::s1_weight_gradient(act_.a1, d2_, grad);
  ref::s1_delta(params, act_.a1, d2_, d1_, 0, ref::kS1Rows);
}

void RefKernels::c1_backward(const float* /*params*/, float* grad) {
  ref::c1_backward(act_.x, d1_, grad, 0, kC1Maps);
}

}  // namespace lenet
