// Version 1, the step: a batch is a loop over its samples, each sent through the six layer
// passes by its own launches; every sample adds its gradient into one batch gradient, and one
// update kernel ends the step. 8 launches per sample, plus zeroing the sum and the update.
#include "../device_buffer.hpp"
#include "layers.hpp"

namespace lenet::cuda {
namespace {

class V1 final : public KernelVersion {
 public:
  V1() : a1_(kC1Size), a2_(kS1Size), p_(kClasses), d2_(kS1Size), d1_(kC1Size), grad_(kParamCount) {}

  const char* name() const override { return "v1"; }
  const char* strategy() const override { return "per-sample launches"; }
  int launches_per_step(int batch, bool) const override { return 8 * batch + 2; }
  void reserve(int) override {}  // one sample's buffers serve any batch

  void train_step(const DeviceData& d, int first, int count, float lr) override {
    Samples b = d.train;
    b.first = first;
    b.count = count;
    const cudaStream_t st = d.stream;
    mark(d, &LayerTimes::reduce);
    CUDA_CHECK(cudaMemsetAsync(grad_.get(), 0, grad_.bytes(), st));
    for (int s = 0; s < count; ++s) {
      mark(d, &LayerTimes::c1_forward);
      v1::c1_forward(d.params, b, s, a1_.get(), st);
      mark(d, &LayerTimes::s1_forward);
      v1::s1_forward(d.params, a1_.get(), a2_.get(), st);
      mark(d, &LayerTimes::f_forward);
      v1::f_forward(d.params, a2_.get(), b, s, p_.get(), d.epoch, st);
      mark(d, &LayerTimes::f_backward);
      v1::f_backward(d.params, a2_.get(), p_.get(), b, s, grad_.get(), d2_.get(), st);
      mark(d, &LayerTimes::s1_backward);
      v1::s1_backward(d.params, a1_.get(), d2_.get(), grad_.get(), d1_.get(), st);
      mark(d, &LayerTimes::c1_backward);
      v1::c1_backward(b, s, d1_.get(), grad_.get(), st);
    }
    mark(d, &LayerTimes::update);
    v1::sgd_update(d.params, grad_.get(), lr / static_cast<float>(count), st);
    if (d.timer) *d.times += d.timer->finish(st);
  }

  void evaluate(const DeviceData& d) override {
    for (int s = 0; s < d.test.count; ++s) {
      v1::c1_forward(d.params, d.test, s, a1_.get(), d.stream);
      v1::s1_forward(d.params, a1_.get(), a2_.get(), d.stream);
      v1::f_forward(d.params, a2_.get(), d.test, s, p_.get(), d.eval, d.stream);
    }
  }

 private:
  // One sample's activations and deltas, and the batch's summed gradient.
  DeviceBuffer<float> a1_, a2_, p_, d2_, d1_, grad_;
};

}  // namespace

std::unique_ptr<KernelVersion> make_v1() {
  return std::make_unique<V1>();
}

}  // namespace lenet::cuda
