// Version 2, the step: 9 launches whatever the batch size. The deltas are computed first, while
// every layer still has its old weights; then each layer's *_update kernel sums its weight
// gradient over the batch and moves the weights; a last kernel adds the losses to the tally.
// The update has no kernel of its own: --timing counts it in each layer's backward time.
#include <algorithm>

#include "../device_buffer.hpp"
#include "layers.hpp"

namespace lenet::cuda {
namespace {

// Evaluation forwards the test set in chunks of this many images (or of the batch, if larger).
constexpr int kEvalChunk = 1024;

class V2 final : public KernelVersion {
 public:
  const char* name() const override { return "v2"; }
  const char* strategy() const override { return "batched layers"; }
  int launches_per_step(int, bool) const override { return 9; }

  void reserve(int batch) override {
    const size_t n = std::max(batch, kEvalChunk);
    if (n <= capacity_) return;
    a1_.resize(n * kC1Size);
    a2_.resize(n * kS1Size);
    p_.resize(n * kClasses);
    d2_.resize(n * kS1Size);
    d1_.resize(n * kC1Size);
    loss_.resize(n);
    hit_.resize(n);
    capacity_ = n;
  }

  void train_step(const DeviceData& d, int first, int count, float lr) override {
    reserve(count);
    Samples b = d.train;
    b.first = first;
    b.count = count;
    const float scale = lr / static_cast<float>(count);
    const cudaStream_t st = d.stream;
    mark(d, &LayerTimes::c1_forward);
    v2::c1_forward(d.params, b, a1_.get(), st);
    mark(d, &LayerTimes::s1_forward);
    v2::s1_forward(d.params, a1_.get(), count, a2_.get(), st);
    mark(d, &LayerTimes::f_forward);
    v2::f_forward(d.params, a2_.get(), b, p_.get(), loss_.get(), hit_.get(), st);
    mark(d, &LayerTimes::f_backward);
    v2::f_backward_delta(d.params, a2_.get(), p_.get(), b, d2_.get(), st);
    mark(d, &LayerTimes::s1_backward);
    v2::s1_backward_delta(d.params, a1_.get(), d2_.get(), count, d1_.get(), st);
    // From here on the weights change: nothing below reads a layer's weights.
    mark(d, &LayerTimes::f_backward);
    v2::f_backward_update(d.params, a2_.get(), p_.get(), b, scale, st);
    mark(d, &LayerTimes::s1_backward);
    v2::s1_backward_update(d.params, a1_.get(), d2_.get(), count, scale, st);
    mark(d, &LayerTimes::c1_backward);
    v2::c1_backward_update(d.params, b, d1_.get(), scale, st);
    mark(d, &LayerTimes::reduce);
    tally(loss_.get(), hit_.get(), count, d.epoch, st);
    if (d.timer) *d.times += d.timer->finish(st);
  }

  void evaluate(const DeviceData& d) override {
    reserve(kEvalChunk);
    const int chunk = static_cast<int>(capacity_);
    for (int first = 0; first < d.test.count; first += chunk) {
      Samples b = d.test;
      b.first = first;
      b.count = std::min(chunk, d.test.count - first);
      v2::c1_forward(d.params, b, a1_.get(), d.stream);
      v2::s1_forward(d.params, a1_.get(), b.count, a2_.get(), d.stream);
      v2::f_forward(d.params, a2_.get(), b, p_.get(), loss_.get(), hit_.get(), d.stream);
      tally(loss_.get(), hit_.get(), b.count, d.eval, d.stream);
    }
  }

 private:
  size_t capacity_ = 0;  // samples the buffers hold
  DeviceBuffer<float> a1_, a2_, p_, d2_, d1_, loss_;
  DeviceBuffer<int> hit_;
};

}  // namespace

std::unique_ptr<KernelVersion> make_v2() {
  return std::make_unique<V2>();
}

}  // namespace lenet::cuda
