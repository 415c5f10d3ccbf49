// lenet-dlib: the network of docs/network.md in dlib's DNN toolkit (Debian's 19.24), with
// OpenBLAS doing its matrix products (the convolution as im2col + GEMM, the fully connected
// layer as a GEMM), trained by our loop over dlib's forward, backward and solver steps.
//   conv 6x5x5 (no padding) + sigmoid -> a 4x4 stride-4 convolution from all 6 maps to 6 maps
//   (dlib has no per-map or shared kernel; it starts as the spec's S1: the shared kernel on the
//   diagonal, zeros elsewhere) + sigmoid -> fully connected 216->10 -> softmax cross-entropy
//   (loss_multiclass_log), plain SGD (dlib's sgd with weight decay 0 and momentum 0).
#include <dlib/dnn.h>

#include "error.hpp"
#include "network.hpp"
#include "peer.hpp"

extern "C" {
void openblas_set_num_threads(int);
char* openblas_get_config(void);
}

namespace {

using lenet::peers::FloatSet;
// Offsets of the spec's tensors in its parameter vector (common/network.hpp).
using lenet::kB2;
using lenet::kB3;
using lenet::kW2;
using lenet::kW3;

// dlib's con<> pads "same" at stride 1; the spec's C1 has no padding.
template <typename SUBNET>
using c1 = dlib::add_layer<dlib::con_<6, 5, 5, 1, 1, 0, 0>, SUBNET>;
template <typename SUBNET>
using s1 = dlib::add_layer<dlib::con_<6, 4, 4, 4, 4, 0, 0>, SUBNET>;
using Net = dlib::loss_multiclass_log<
    dlib::fc<10, dlib::sig<s1<dlib::sig<c1<dlib::input<dlib::matrix<float>>>>>>>>;

class DlibPeer : public lenet::peers::Peer {
 public:
  explicit DlibPeer(int threads)
      : threads_(threads), solvers_(Net::num_computational_layers, dlib::sgd(0.0f, 0.0f)) {
    openblas_set_num_threads(threads);
  }

  lenet::BackendInfo info() const override {
    lenet::BackendInfo i;
    i.name = "dlib";
    i.kernels = "dlib-19.24-openblas";
    i.threads = threads_;
    i.extra.emplace_back("Library", std::string("dlib 19.24, ") + openblas_get_config());
    return i;
  }

  // dlib allocates parameters on the first forward pass; then every layer takes the spec's
  // values.
  void set_spec_params(const std::vector<float>& p) override {
    const std::vector<dlib::matrix<float>> blank(1, dlib::zeros_matrix<float>(28, 28));
    net_.to_tensor(blank.begin(), blank.end(), x_);  // also tells the net its input's shape
    net_.subnet().forward(x_);
    float* w1 = dlib::layer<5>(net_).layer_details().get_layer_params().host();
    std::copy(p.begin(), p.begin() + kW2, w1);  // W1 then b1, dlib's order too
    float* w2 = dlib::layer<3>(net_).layer_details().get_layer_params().host();
    std::fill(w2, w2 + 6 * 6 * 16, 0.0f);
    for (int m = 0; m < 6; ++m)  // filters[out][in][4][4], then one bias per output map
      std::copy(p.begin() + kW2, p.begin() + kB2, w2 + (m * 6 + m) * 16);
    std::fill(w2 + 6 * 6 * 16, w2 + 6 * 6 * 16 + 6, p[kB2]);
    float* w3 = dlib::layer<1>(net_).layer_details().get_layer_params().host();
    for (int k = 0; k < 10; ++k)  // dlib keeps W[input][output] then the biases
      for (int n = 0; n < 216; ++n)
        w3[n * 10 + k] = p[kW3 + k * 216 + n];
    std::copy(p.begin() + kB3, p.end(), w3 + 2160);
  }

  void begin_epoch(const FloatSet& train, const std::vector<int32_t>& order) override {
    train_ = &train;
    order_ = order;
  }

  double train_epoch(int batch, float lr) override {
    double loss_sum = 0;
    const int n = static_cast<int>(order_.size());
    std::vector<unsigned long> labels;
    for (int first = 0; first < n; first += batch) {
      const int count = std::min(batch, n - first);
      x_.set_size(count, 1, 28, 28);
      labels.resize(count);
      for (int s = 0; s < count; ++s) {
        const float* img = train_->image(order_[first + s]);
        std::copy(img, img + 784, x_.host() + static_cast<size_t>(s) * 784);
        labels[s] = train_->labels[order_[first + s]];
      }
      // The mean loss of the batch, before the update; its gradients are batch means too.
      loss_sum += net_.compute_parameter_gradients(x_, labels.begin()) * count;
      net_.update_parameters(solvers_, lr);
    }
    return loss_sum;
  }

  lenet::EvalResult evaluate(const FloatSet& test) override {
    lenet::EvalResult e;
    for (int first = 0; first < test.count; first += 1000) {
      const int count = std::min(1000, test.count - first);
      x_.set_size(count, 1, 28, 28);
      std::copy(test.image(first), test.image(first) + static_cast<size_t>(count) * 784, x_.host());
      const float* z = net_.subnet().forward(x_).host();
      for (int s = 0; s < count; ++s)
        lenet::peers::score_logits(z + 10 * s, test.labels[first + s], e);
    }
    return e;
  }

  std::vector<float> params() override {
    std::vector<float> all;
    dlib::visit_layer_parameters(
        net_, [&](size_t, dlib::tensor& t) { all.insert(all.end(), t.begin(), t.end()); });
    return all;
  }

 private:
  int threads_;
  Net net_;
  std::vector<dlib::sgd> solvers_;
  dlib::resizable_tensor x_;
  const FloatSet* train_ = nullptr;
  std::vector<int32_t> order_;
};

}  // namespace

int main(int argc, char** argv) {
  lenet::peers::PeerSpec spec;
  spec.program = "lenet-dlib";
  spec.library = "dlib";
  spec.threads_help = "OpenBLAS threads (openblas_set_num_threads; dlib's own layers run on one)";
  spec.create = [](int threads) -> std::unique_ptr<lenet::peers::Peer> {
    return std::make_unique<DlibPeer>(threads);
  };
  return lenet::peers::run_peer(argc, argv, spec);
}
