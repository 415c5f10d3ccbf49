// lenet-tinydnn: the network of docs/network.md in tiny-dnn (Debian's 1.0.0a3), trained by
// tiny-dnn's own fit() one epoch at a time, in the project's epoch order.
//   conv 6x5x5 + sigmoid -> a 4x4 stride-4 convolution whose connection table joins map m to
//   output m only (a learnable 4x4 kernel and bias PER MAP: tiny-dnn cannot share one across
//   maps) + sigmoid -> fully connected 216->10 + softmax, cross-entropy, plain gradient descent.
// Built with CNN_SINGLE_THREAD: tiny-dnn's default parallel_for starts hardware_concurrency()
// threads per layer call whatever fit()'s n_threads says, so one thread is the only count it
// can be held to.
#if defined(__AVX__)
#define CNN_USE_AVX  // tiny-dnn's AVX kernels for the convolution and the fully connected layer
#endif
#include <tiny_dnn/tiny_dnn.h>

#include "error.hpp"
#include "network.hpp"
#include "peer.hpp"

namespace {

using namespace tiny_dnn;
using lenet::peers::FloatSet;
// Offsets of the spec's tensors in its parameter vector (common/network.hpp).
using lenet::kB1;
using lenet::kB2;
using lenet::kB3;
using lenet::kW2;
using lenet::kW3;

class TinyDnnPeer : public lenet::peers::Peer {
 public:
  TinyDnnPeer() {
    net_ << convolutional_layer<activation::sigmoid>(28, 28, 5, 1, 6)
         << convolutional_layer<activation::sigmoid>(24, 24, 4, 6, 6, connection_table(6, 6, 6),
                                                     padding::valid, true, 4, 4)
         << fully_connected_layer<activation::softmax>(216, 10);
    net_.init_weight();
  }

  lenet::BackendInfo info() const override {
    lenet::BackendInfo i;
    i.name = "tiny-dnn";
#if defined(CNN_USE_AVX)
    i.kernels = "tiny-dnn-1.0.0a3-avx";
#else
    i.kernels = "tiny-dnn-1.0.0a3";
#endif
    i.extra.emplace_back("Library", "tiny-dnn 1.0.0a3, single-threaded build");
    return i;
  }

  // Every layer starts as the spec's: each map's 4x4 kernel and bias are the spec's shared W2
  // and b2 (the weights outside the connection table are never used).
  void set_spec_params(const std::vector<float>& p) override {
    std::vector<vec_t*> c1 = net_[0]->weights(), s1 = net_[1]->weights(), f = net_[2]->weights();
    std::copy(p.begin(), p.begin() + kB1, c1[0]->begin());
    std::copy(p.begin() + kB1, p.begin() + kW2, c1[1]->begin());
    std::fill(s1[0]->begin(), s1[0]->end(), 0.0f);
    for (int m = 0; m < 6; ++m)  // W[out][in][4][4]
      std::copy(p.begin() + kW2, p.begin() + kB2, s1[0]->begin() + (m * 6 + m) * 16);
    std::fill(s1[1]->begin(), s1[1]->end(), p[kB2]);
    for (int k = 0; k < 10; ++k)  // tiny-dnn keeps W[input][output]; the spec W3[output][input]
      for (int n = 0; n < 216; ++n)
        (*f[0])[n * 10 + k] = p[kW3 + k * 216 + n];
    std::copy(p.begin() + kB3, p.end(), f[1]->begin());
  }

  // fit() walks its inputs in order: the epoch's order is a reordered copy of the images.
  void begin_epoch(const FloatSet& train, const std::vector<int32_t>& order) override {
    x_.resize(order.size());
    y_.resize(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
      const float* img = train.image(order[i]);
      x_[i].assign(img, img + 784);
      y_[i] = static_cast<label_t>(train.labels[order[i]]);
    }
  }

  double train_epoch(int batch, float lr) override {
    gradient_descent sgd;  // W -= alpha * (dW + lambda * W), dW the batch mean
    sgd.alpha = lr;
    sgd.lambda = 0;
    // The loss of each batch from the outputs its forward pass left in the last layer.
    double loss_sum = 0;
    size_t first = 0;
    auto on_batch = [&] {
      const tensor_t& out = *net_[2]->outputs()[0]->get_data();
      const size_t n = std::min<size_t>(batch, x_.size() - first);
      for (size_t s = 0; s < n; ++s)
        loss_sum -= std::log(static_cast<double>(out[s][y_[first + s]]));
      first += n;
    };
    net_.train<cross_entropy_multiclass>(sgd, x_, y_, batch, 1, on_batch, [] {});
    return loss_sum;
  }

  lenet::EvalResult evaluate(const FloatSet& test) override {
    lenet::EvalResult e;
    vec_t x(784);
    for (int i = 0; i < test.count; ++i) {
      x.assign(test.image(i), test.image(i) + 784);
      const vec_t p = net_.predict(x);
      lenet::peers::score_probabilities(p.data(), test.labels[i], e);
    }
    return e;
  }

  std::vector<float> params() override {
    std::vector<float> all;
    for (size_t l = 0; l < net_.layer_size(); ++l)
      for (vec_t* w : net_[l]->weights())
        all.insert(all.end(), w->begin(), w->end());
    return all;
  }

 private:
  network<sequential> net_;
  std::vector<vec_t> x_;
  std::vector<label_t> y_;
};

}  // namespace

int main(int argc, char** argv) {
  lenet::peers::PeerSpec spec;
  spec.program = "lenet-tinydnn";
  spec.library = "tiny-dnn";
  spec.threads_help = "threads (this build of tiny-dnn is single-threaded: 1 only)";
  spec.create = [](int threads) -> std::unique_ptr<lenet::peers::Peer> {
    if (threads != 1) throw lenet::Error("--threads: this tiny-dnn build runs on 1 thread only", 2);
    return std::make_unique<TinyDnnPeer>();
  };
  return lenet::peers::run_peer(argc, argv, spec);
}
