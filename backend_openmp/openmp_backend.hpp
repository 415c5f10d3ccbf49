// The OpenMP backend: the serial backend's arithmetic, shared among the threads of one process.
// Two strategies (docs/strategies.md):
//   batch: the chunks of kChunk samples of a mini-batch run on different threads, each with its
//          own kernels; the chunk sums are then added in chunk order, one parameter slice per
//          thread. Bit-identical to lenet-serial with the same kernels, for every thread count.
//   layer: one sample at a time, each layer's loops shared among the threads
//          (layer_kernels.cpp). Also bit-identical to lenet-serial, with the ref kernels, its only
//          kernels.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "../common/backend.hpp"
#include "../common/cpu/chunks.hpp"
#include "../common/cpu/workers.hpp"
#include "../common/per_sample.hpp"
#include "../common/share.hpp"
#include "layer_kernels.hpp"

namespace lenet {

enum class Strategy { kLayer, kBatch };

// "layer" or "batch".
const char* strategy_name(Strategy s);

class OpenMPBackend final : public Backend {
 public:
  // Throws lenet::Error (exit code 2) for threads < 1 or the layer strategy with kernels
  // other than ref.
  OpenMPBackend(const std::string& kernels, Strategy strategy, int threads);

  BackendInfo info() const override;
  void set_params(const std::vector<float>& params) override;
  std::vector<float> get_params() override;
  void bind_data(const Dataset& train, const Dataset& test) override;
  void begin_epoch(const std::vector<int32_t>& order) override;
  void train_batch(int first, int count, float lr) override;
  double epoch_loss_sum() override { return loss_sum_; }
  EvalResult evaluate() override;
  void set_timing(bool on) override { timing_ = on; }
  LayerTimes times() const override { return times_; }

 private:
  void train_chunks_in_parallel(int first, int count, float lr);  // batch.cpp
  void train_layers_in_parallel(int first, int count, float lr);  // layer.cpp

  // A cache line: buffers written by different threads start on their own line, and the
  // parameter slices of the reduction are whole lines, so no two threads write one line.
  static constexpr int kLineFloats = 16;

  struct alignas(64) ParamVector {
    float v[kParamCount];
  };

  Strategy strategy_;
  int threads_;
  int most_working_ = 0;         // the largest team a batch had (threads_ unless chunks were fewer)
  std::vector<Worker> workers_;  // one per thread; evaluate() uses them too
  std::vector<long long> samples_before_;  // each worker's samples before the current batch
  CallsShared batch_calls_;  // the batches every thread of the team trained a share of
  std::unique_ptr<PerSample> layer_chunks_;  // the layer strategy's chunks, one sample at a time
  LayerKernels* layer_kernels_ = nullptr;    // through its parallel kernels (in layer_chunks_)
  std::vector<ChunkSum> chunks_;             // grown to the largest batch's chunk count
  ParamVector params_{}, batch_grad_{};
  const Dataset* train_ = nullptr;
  const Dataset* test_ = nullptr;
  std::vector<int32_t> order_;
  std::vector<float> test_losses_;  // one per test image (common/cpu/evaluate.hpp)
  double loss_sum_ = 0;
  bool timing_ = false;
  LayerTimes times_;
};

}  // namespace lenet
