// The serial backend: the reference every other backend is compared with. One sample at a time,
// through the chosen kernels, summed in the canonical chunk order of common/step.hpp.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "../common/backend.hpp"
#include "../common/kernels.hpp"
#include "../common/step.hpp"

namespace lenet {

class SerialBackend final : public Backend {
 public:
  explicit SerialBackend(const std::string& kernels);

  BackendInfo info() const override;
  void set_params(const std::vector<float>& params) override { params_ = params; }
  std::vector<float> get_params() override { return params_; }
  void bind_data(const Dataset& train, const Dataset& test) override;
  void begin_epoch(const std::vector<int32_t>& order) override;
  void train_batch(int first, int count, float lr) override;
  double epoch_loss_sum() override { return loss_sum_; }
  EvalResult evaluate() override;
  void set_timing(bool on) override { timing_ = on; }
  LayerTimes times() const override { return times_; }

 private:
  std::unique_ptr<Kernels> kernels_;
  std::vector<float> params_;
  const Dataset* train_ = nullptr;
  const Dataset* test_ = nullptr;
  std::vector<int32_t> order_;
  double loss_sum_ = 0;
  // Allocated once: the batch gradient, and the chunk sums (grown to the largest batch's).
  std::vector<float> batch_grad_;
  std::vector<ChunkSum> chunks_;
  std::vector<float> test_losses_;  // one per test image (common/cpu/evaluate.hpp)
  bool timing_ = false;
  LayerTimes times_;
};

}  // namespace lenet
