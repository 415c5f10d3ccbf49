// The fused version's step: two launches (the per-sample kernel, then the reduction with the
// update). At B = 1 a step's GPU work is a few microseconds, about what launching it costs, so
// the two launches are captured once into a CUDA Graph and each step replays it with one call.
// A graph bakes in its kernels' arguments, so the step's position in the epoch cannot be one:
// it lives in a device integer, the cursor, that the kernels read and reduce_update advances.
#include <algorithm>
#include <tuple>

#include "../device_buffer.hpp"
#include "kernels.hpp"

#if CUDART_VERSION < 12000
#error "lenet-cuda needs CUDA 12 or newer: cudaGraphInstantiate(exec, graph, flags) below"
#endif

namespace lenet::cuda {
namespace {

constexpr int kEvalChunk = 1024;  // test images per evaluation launch (or the batch, if larger)

// What a captured graph baked in; when any of it changes, the step is captured again.
struct GraphKey {
  const float* params = nullptr;
  const uint8_t* pixels = nullptr;
  const uint8_t* labels = nullptr;
  const int32_t* order = nullptr;
  const float* grads = nullptr;
  const float* losses = nullptr;
  const Tally* tally = nullptr;
  float scale = 0;
  auto tied() const { return std::tie(params, pixels, labels, order, grads, losses, tally, scale); }
  bool operator!=(const GraphKey& o) const { return tied() != o.tied(); }
};

class Fused final : public KernelVersion {
 public:
  Fused() : cursor_(1), cycles_(fused::kPhases) {
    CUDA_CHECK(cudaMemset(cycles_.get(), 0, cycles_.bytes()));
    CUDA_CHECK(cudaDeviceSynchronize());  // the memset ran on another stream than the steps
  }
  ~Fused() override {
    if (graph_) cudaGraphExecDestroy(graph_);
  }

  const char* name() const override { return "fused"; }
  const char* strategy() const override { return "one block per sample"; }
  // At B = 1 one graph launch, except with --timing, which times the two kernels themselves.
  int launches_per_step(int batch, bool timing) const override {
    return batch == 1 && !timing ? 1 : 2;
  }

  void reserve(int batch) override {
    if (static_cast<size_t>(batch) * kParamCount > grads_.size()) {
      grads_.resize(static_cast<size_t>(batch) * kParamCount);
    }
    const size_t n = std::max(batch, kEvalChunk);
    if (n > loss_.size()) {
      loss_.resize(n);
      hit_.resize(n);
    }
  }

  void train_step(const DeviceData& d, int first, int count, float lr) override {
    reserve(count);
    if (first != next_first_) fused::set_cursor(cursor_.get(), first, d.stream);
    next_first_ = first + count;
    Samples b = d.train;
    b.cursor = cursor_.get();
    b.count = count;
    const float scale = lr / static_cast<float>(count);
    if (count == 1 && !d.timer) return replay(d, b, scale);

    mark(d, &LayerTimes::c1_forward);  // the whole per-sample kernel: split up in add_times
    fused::train(d.params, b, grads_.get(), loss_.get(), d.timer ? cycles_.get() : nullptr,
                 d.stream);
    mark(d, &LayerTimes::reduce);
    fused::reduce_update(d.params, grads_.get(), loss_.get(), count, scale, d.epoch, cursor_.get(),
                         d.stream);
    if (d.timer) add_times(d);
  }

  void evaluate(const DeviceData& d) override {
    reserve(kEvalChunk);
    const int chunk = static_cast<int>(loss_.size());
    for (int first = 0; first < d.test.count; first += chunk) {
      Samples b = d.test;
      b.first = first;
      b.count = std::min(chunk, d.test.count - first);
      fused::forward(d.params, b, loss_.get(), hit_.get(), d.stream);
      tally(loss_.get(), hit_.get(), b.count, d.eval, d.stream);
    }
  }

 private:
  // Replays the captured B = 1 step, capturing it first if it is new.
  void replay(const DeviceData& d, const Samples& b, float scale) {
    const GraphKey key{d.params,     b.pixels,    b.labels, b.order,
                       grads_.get(), loss_.get(), d.epoch,  scale};
    if (!graph_ || key != key_) {
      if (graph_) CUDA_CHECK(cudaGraphExecDestroy(graph_));
      graph_ = nullptr;
      if (!loaded_) fused::load_step_kernels();
      loaded_ = true;
      const cudaGraph_t graph = capture(
          [&] {
            fused::train(d.params, b, grads_.get(), loss_.get(), nullptr, d.stream);
            fused::reduce_update(d.params, grads_.get(), loss_.get(), 1, scale, d.epoch,
                                 cursor_.get(), d.stream);
          },
          d.stream);
      const cudaError_t err = cudaGraphInstantiate(&graph_, graph, 0);
      CUDA_CHECK(cudaGraphDestroy(graph));
      CUDA_CHECK(err);
      key_ = key;
    }
    CUDA_CHECK(cudaGraphLaunch(graph_, d.stream));
  }

  // The graph of what `launches` issues to `stream`. If any of it fails, the capture is ended
  // before the error goes on: a stream left capturing would fail every later call on it, and
  // those errors would hide this one.
  template <class Launches>
  static cudaGraph_t capture(Launches launches, cudaStream_t stream) {
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      launches();
    } catch (...) {
      cudaGraph_t partial = nullptr;
      if (cudaStreamEndCapture(stream, &partial) == cudaSuccess) cudaGraphDestroy(partial);
      cudaGetLastError();  // the capture's own error: the one to report is on its way
      throw;
    }
    cudaGraph_t graph = nullptr;
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    return graph;
  }

  // The per-sample kernel was timed as one interval under c1_forward; its phases' clock cycles
  // share that time out among the six layer passes.
  void add_times(const DeviceData& d) {
    LayerTimes t = d.timer->finish(d.stream);
    unsigned long long cycles[fused::kPhases];
    CUDA_CHECK(
        cudaMemcpyAsync(cycles, cycles_.get(), sizeof cycles, cudaMemcpyDeviceToHost, d.stream));
    CUDA_CHECK(cudaMemsetAsync(cycles_.get(), 0, cycles_.bytes(), d.stream));
    CUDA_CHECK(cudaStreamSynchronize(d.stream));
    double total = 0;
    for (unsigned long long c : cycles)
      total += static_cast<double>(c);
    const double kernel = t.c1_forward;
    t.c1_forward = 0;
    const EventTimer::Slot slots[fused::kPhases] = {
        &LayerTimes::c1_forward, &LayerTimes::s1_forward,  &LayerTimes::f_forward,
        &LayerTimes::f_backward, &LayerTimes::s1_backward, &LayerTimes::c1_backward};
    for (int p = 0; p < fused::kPhases; ++p) {
      if (total > 0) t.*slots[p] += kernel * static_cast<double>(cycles[p]) / total;
    }
    *d.times += t;
  }

  DeviceBuffer<float> grads_;                // [batch][kParamCount]: each sample's gradient
  DeviceBuffer<float> loss_;                 // per-sample losses (training and evaluation)
  DeviceBuffer<int> hit_;                    // per-sample hits (evaluation)
  DeviceBuffer<int> cursor_;                 // where the next step starts in the epoch's order
  DeviceBuffer<unsigned long long> cycles_;  // clock cycles per phase, for --timing
  int next_first_ = -1;                      // the cursor's value after the queued steps
  cudaGraphExec_t graph_ = nullptr;          // the captured B = 1 step
  bool loaded_ = false;                      // load_step_kernels has run
  GraphKey key_;
};

}  // namespace

std::unique_ptr<KernelVersion> make_fused() {
  return std::make_unique<Fused>();
}

}  // namespace lenet::cuda
