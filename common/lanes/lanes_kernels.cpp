// The lanes kernels: a chunk's samples through each layer (layers.hpp), kLanes at a time.
#include "lanes_kernels.hpp"

#include "../softmax.hpp"

namespace lenet {

namespace {

// What a lane without a sample computes: a blank image (its results are never read).
constexpr uint8_t kBlank[kImageSize] = {};

}  // namespace

LanesKernels::LanesKernels() : groups_(std::make_unique<lanes::Lanes[]>(kGroups)) {}

void LanesKernels::set_chunk(const uint8_t* const* images, const int* labels, int n) {
  n_ = n;
  used_ = (n + lanes::kLanes - 1) / lanes::kLanes;
  for (int s = 0; s < kChunk; ++s) {
    images_[s] = s < n ? images[s] : kBlank;
    groups_[s / lanes::kLanes].label[s % lanes::kLanes] = s < n ? labels[s] : 0;
  }
}

// Each layer over the groups that hold samples (`first` is 0: the chunk is one group).
void LanesKernels::load_input(int /*first*/) {
  for (int q = 0; q < used_; ++q) {
    const uint8_t* lane_images[lanes::kLanes];
    for (int l = 0; l < lanes::kLanes; ++l)
      lane_images[l] = images_[q * lanes::kLanes + l];
    lanes::load_input(lane_images, groups_[q]);
  }
}

void LanesKernels::c1_forward(const float* params, int /*first*/) {
  for (int q = 0; q < used_; ++q)
    lanes::c1_forward(params, groups_[q]);
}

void LanesKernels::s1_forward(const float* params, int /*first*/) {
  for (int q = 0; q < used_; ++q)
    lanes::s1_forward(params, groups_[q]);
}

void LanesKernels::f_forward(const float* params, int /*first*/) {
  for (int q = 0; q < used_; ++q)
    lanes::f_forward(params, groups_[q]);
}

void LanesKernels::f_backward(const float* params, int /*first*/) {
  for (int q = 0; q < used_; ++q)
    lanes::f_backward(params, groups_[q]);
}

void LanesKernels::s1_backward(const float* /*params*/, int /*first*/) {
  for (int q = 0; q < used_; ++q)
    lanes::s1_backward(groups_[q]);
}

void LanesKernels::c1_backward(const float* params, int /*first*/) {
  for (int q = 0; q < used_; ++q)
    lanes::c1_backward(params, groups_[q]);
}

float LanesKernels::loss(int s) const {
  return groups_[s / lanes::kLanes].loss[s % lanes::kLanes];
}

int LanesKernels::predicted(int s) const {
  const lanes::Lanes& g = groups_[s / lanes::kLanes];
  float z3[kClasses];
  for (int k = 0; k < kClasses; ++k)
    z3[k] = g.z3[k][s % lanes::kLanes];
  return f_predicted(z3);
}

void LanesKernels::activations(int s, Activations& out) const {
  const lanes::Lanes& g = groups_[s / lanes::kLanes];
  const int l = s % lanes::kLanes;
  const auto lane = [l](const lanes::vfloat* from, int n, float* to) {
    for (int i = 0; i < n; ++i)
      to[i] = from[i][l];
  };
  lane(g.x, kImageSize, out.x);
  lane(g.z1, kC1Size, out.z1);
  lane(g.a1, kC1Size, out.a1);
  lane(g.z2, kS1Size, out.z2);
  lane(g.a2, kS1Size, out.a2);
  lane(g.z3, kClasses, out.z3);
  lane(g.p, kClasses, out.p);
  out.loss = g.loss[l];
}

}  // namespace lenet
