#include "serial_backend.hpp"

#include <algorithm>

#include "../common/gradient.hpp"

namespace lenet {

SerialBackend::SerialBackend(const std::string& tier)
    : kernels_(make_kernels(tier)),
      batch_grad_(kParamCount),
      chunk_grad_(kParamCount),
      sample_grad_(kParamCount) {}

BackendInfo SerialBackend::info() const {
  BackendInfo b;
  b.name = "serial";
  b.kernels = kernels_->tier();
  return b;
}

void SerialBackend::bind_data(const Dataset& train, const Dataset& test) {
  train_ = &train;
  test_ = &test;
}

void SerialBackend::begin_epoch(const std::vector<int32_t>& order) {
  order_ = order;
  loss_sum_ = 0;
}

void SerialBackend::train_batch(int first, int count, float lr) {
  LayerTimes* t = timing_ ? &times_ : nullptr;
  // G = sum of chunk sums, in chunk order.
  std::fill(batch_grad_.begin(), batch_grad_.end(), 0.0f);
  for (int c = first; c < first + count; c += kChunk) {
    const int n = std::min(kChunk, first + count - c);
    loss_sum_ +=
        chunk_gradient(*kernels_, params_.data(), *train_, order_.data() + c, n,
                       image_at(order_, c + n), chunk_grad_.data(), sample_grad_.data(), t);
    const double t0 = now_seconds();
    accumulate(batch_grad_.data(), chunk_grad_.data());
    if (t) t->reduce += now_seconds() - t0;
  }
  const double t0 = now_seconds();
  sgd_update(params_.data(), batch_grad_.data(), lr, count);
  if (t) t->update += now_seconds() - t0;
}

EvalResult SerialBackend::evaluate() {
  EvalResult r;
  for (int i = 0; i < test_->count; ++i) {
    r.loss_sum +=
        forward_sample(*kernels_, params_.data(), test_->image(i), test_->label(i), nullptr);
    r.correct += kernels_->predicted() == test_->label(i);
  }
  r.count = test_->count;
  return r;
}

}  // namespace lenet
