#include "per_sample.hpp"

#include <algorithm>

#include "gradient.hpp"

namespace lenet {

void PerSample::set_chunk(const uint8_t* const* images, const int* labels, int n) {
  std::copy_n(images, n, images_);
  std::copy_n(labels, n, labels_);
}

void PerSample::f_forward(const float* params, int first) {
  loss_[first] = sample_->f_forward(params, labels_[first]);
  predicted_[first] = sample_->predicted();
}

void PerSample::add_gradients(int /*first*/, float* chunk_sum) {
  accumulate(chunk_sum, grad_);
}

}  // namespace lenet
