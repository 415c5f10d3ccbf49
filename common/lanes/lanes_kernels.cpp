// The lanes kernels: a chunk's samples through each layer (layers.hpp), kLanes at a time.
#include "lanes_kernels.hpp"

#include <algorithm>

#include "../ref/layers.hpp"

namespace lenet {

namespace {

// What a lane without a sample computes: a blank image (its results are never read).
constexpr uint8_t kBlank[kImageSize] = {};

}  // namespace

LanesKernels::LanesKernels() : groups_(std::make_unique<lanes::Lanes[]>(kGroups)) {}

// The one-sample functions: a chunk of one, in lane 0 of the first group.

void LanesKernels::load_input(const uint8_t* pixels) {
  const uint8_t* images[lanes::kLanes];
  std::fill(images, images + lanes::kLanes, kBlank);
  images[0] = pixels;
  std::fill(groups_[0].label, groups_[0].label + lanes::kLanes, 0);
  lanes::load_input(images, groups_[0]);
}

void LanesKernels::c1_forward(const float* params) {
  lanes::c1_forward(params, groups_[0]);
}

void LanesKernels::s1_forward(const float* params) {
  lanes::s1_forward(params, groups_[0]);
}

float LanesKernels::f_forward(const float* params, int label) {
  groups_[0].label[0] = label;
  lanes::f_forward(params, groups_[0]);
  return groups_[0].loss[0];
}

int LanesKernels::predicted() const {
  float z3[kClasses];
  for (int k = 0; k < kClasses; ++k)
    z3[k] = groups_[0].z3[k][0];
  return ref::f_predicted(z3);
}

void LanesKernels::f_backward(const float* params, float* grad) {
  const lanes::Lanes& g = groups_[0];
  lanes::f_backward(params, groups_[0]);
  for (int k = 0; k < kClasses; ++k) {
    grad[kB3 + k] = g.d3[k][0];
    for (int n = 0; n < kS1Size; ++n)
      grad[kW3 + k * kS1Size + n] = g.d3[k][0] * g.a2[n][0];
  }
}

void LanesKernels::s1_backward(const float* params, float* grad) {
  const lanes::Lanes& g = groups_[0];
  lanes::s1_backward(params, groups_[0]);
  for (int k = kW2; k < kW3; ++k)  // dW2, db2
    grad[k] = g.grad[k][0];
}

void LanesKernels::c1_backward(const float* /*params*/, float* grad) {
  const lanes::Lanes& g = groups_[0];
  lanes::c1_backward(groups_[0]);
  for (int k = kW1; k < kW2; ++k)  // dW1, db1
    grad[k] = g.grad[k][0];
}

void LanesKernels::activations(Activations& out) const {
  const lanes::Lanes& g = groups_[0];
  const auto lane0 = [](const lanes::vfloat* from, int n, float* to) {
    for (int i = 0; i < n; ++i)
      to[i] = from[i][0];
  };
  lane0(g.x, kImageSize, out.x);
  lane0(g.z1, kC1Size, out.z1);
  lane0(g.a1, kC1Size, out.a1);
  lane0(g.z2, kS1Size, out.z2);
  lane0(g.a2, kS1Size, out.a2);
  lane0(g.z3, kClasses, out.z3);
  lane0(g.p, kClasses, out.p);
  out.loss = g.loss[0];
}

int LanesKernels::load_chunk(const uint8_t* const* images, const int* labels, int n) {
  const int groups = (n + lanes::kLanes - 1) / lanes::kLanes;
  for (int q = 0; q < groups; ++q) {
    const uint8_t* lane_images[lanes::kLanes];
    for (int l = 0; l < lanes::kLanes; ++l) {
      const int s = q * lanes::kLanes + l;
      lane_images[l] = s < n ? images[s] : kBlank;
      groups_[q].label[l] = s < n ? labels[s] : 0;
    }
    lanes::load_input(lane_images, groups_[q]);
  }
  return groups;
}

// The whole chunk: sample s in lane s % kLanes of group s / kLanes, each layer over the groups
// that hold samples; the lanes past n compute a blank image and are left out of every sum.
bool LanesKernels::train_chunk(const float* params, const uint8_t* const* images, const int* labels,
                               int n, float* chunk_sum, double& loss, LayerTimes* times) {
  lanes::Lanes* g = groups_.get();
  int groups = 0;
  timed(times, &LayerTimes::c1_forward, [&] {
    groups = load_chunk(images, labels, n);
    for (int q = 0; q < groups; ++q)
      lanes::c1_forward(params, g[q]);
  });
  timed(times, &LayerTimes::s1_forward, [&] {
    for (int q = 0; q < groups; ++q)
      lanes::s1_forward(params, g[q]);
  });
  timed(times, &LayerTimes::f_forward, [&] {
    for (int q = 0; q < groups; ++q)
      lanes::f_forward(params, g[q]);
  });
  timed(times, &LayerTimes::f_backward, [&] {
    for (int q = 0; q < groups; ++q)
      lanes::f_backward(params, g[q]);
  });
  timed(times, &LayerTimes::s1_backward, [&] {
    for (int q = 0; q < groups; ++q)
      lanes::s1_backward(params, g[q]);
  });
  timed(times, &LayerTimes::c1_backward, [&] {
    for (int q = 0; q < groups; ++q)
      lanes::c1_backward(g[q]);
  });
  loss = 0;
  for (int s = 0; s < n; ++s)
    loss += groups_[s / lanes::kLanes].loss[s % lanes::kLanes];
  timed(times, &LayerTimes::reduce, [&] { sum_gradients(n, chunk_sum); });
  return true;
}

bool LanesKernels::forward_chunk(const float* params, const uint8_t* const* images,
                                 const int* labels, int n, float* losses, int* predicted) {
  const int groups = load_chunk(images, labels, n);
  for (int q = 0; q < groups; ++q) {
    lanes::c1_forward(params, groups_[q]);
    lanes::s1_forward(params, groups_[q]);
    lanes::f_forward(params, groups_[q]);
  }
  for (int s = 0; s < n; ++s) {
    const lanes::Lanes& g = groups_[s / lanes::kLanes];
    const int l = s % lanes::kLanes;
    float z3[kClasses];
    for (int k = 0; k < kClasses; ++k)
      z3[k] = g.z3[k][l];
    losses[s] = g.loss[l];
    predicted[s] = ref::f_predicted(z3);
  }
  return true;
}

}  // namespace lenet
