#include "serial_backend.hpp"

#include "../common/cpu/evaluate.hpp"
#include "../common/kernels_registry.hpp"

namespace lenet {

SerialBackend::SerialBackend(const std::string& kernels)
    : kernels_(make_kernels(kernels)), batch_grad_(kParamCount) {}

BackendInfo SerialBackend::info() const {
  BackendInfo b;
  b.name = "serial";
  b.kernels = kernels_->name();
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
  sgd_step(*kernels_, params_.data(), *train_, order_, first, count, lr, chunks_,
           batch_grad_.data(), loss_sum_, timing_ ? &times_ : nullptr);
}

EvalResult SerialBackend::evaluate() {
  return lenet::evaluate({kernels_.get()}, params_.data(), *test_, test_losses_);
}

}  // namespace lenet
