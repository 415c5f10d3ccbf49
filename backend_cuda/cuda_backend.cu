// The CUDA backend: it owns the GPU, its stream, and the device copies of the data and the
// parameters; the chosen kernel version (version.cuh) does the steps. Host and device talk only
// here, and never inside a step:
//   bind_data       both data sets, once          set_params, get_params   2343 floats
//   begin_epoch     the epoch's order (n ints)    epoch_loss_sum, evaluate one Tally
// Each of these copies is timed into times().comm.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <type_traits>

#include "../common/error.hpp"
#include "cuda_backend.hpp"
#include "device_buffer.hpp"
#include "version.cuh"

namespace lenet {
namespace {

using cuda::DeviceBuffer;

// 13000 -> "13.0", as CUDA encodes its versions (1000 * major + 10 * minor).
std::string cuda_version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

// Whether this machine has an NVIDIA GPU at all, with a driver or without: the driver's first
// device node, or a display or 3D controller (PCI class 0x03) of NVIDIA's (vendor 0x10de).
bool nvidia_gpu_present() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists("/dev/nvidia0", ec)) return true;
  for (const auto& device : fs::directory_iterator("/sys/bus/pci/devices", ec)) {
    std::string vendor, pci_class;
    std::ifstream(device.path() / "vendor") >> vendor;
    std::ifstream(device.path() / "class") >> pci_class;
    if (vendor == "0x10de" && pci_class.rfind("0x03", 0) == 0) return true;
  }
  return false;
}

// How many GPUs this process can use; without any, a one-line error that ends the run with exit
// code 2, as a bad command line does. CUDA's own reason only where a GPU exists: on a machine
// without one it reads "CUDA driver version is insufficient for CUDA runtime version".
int device_count() {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err == cudaSuccess && n > 0) return n;
  const bool nothing_found =
      err == cudaSuccess || err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver;
  if (nothing_found && !nvidia_gpu_present()) {
    throw Error("no CUDA GPU found (no NVIDIA device on the PCI bus, no /dev/nvidia0)", 2);
  }
  throw Error(std::string("no CUDA device: ") +
                  (err == cudaSuccess ? "cudaGetDeviceCount found none" : cudaGetErrorString(err)),
              2);
}

std::unique_ptr<cuda::KernelVersion> make_version(const std::string& name) {
  if (name == "v1") return cuda::make_v1();
  if (name == "v2") return cuda::make_v2();
  if (name == "fused") return cuda::make_fused();
  throw Error("--kernels: unknown CUDA kernel version '" + name + "' (v1, v2 or fused)", 2);
}

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(const CudaOptions& o)
      : device_(o.device), batch_hint_(o.batch), timing_hint_(o.timing) {
    const int n = device_count();
    if (o.device < 0 || o.device >= n) {
      throw Error("--device: " + std::to_string(o.device) +
                      " is not a GPU of this machine (it has " + std::to_string(n) +
                      ", numbered from 0)",
                  2);
    }
    CUDA_CHECK(cudaSetDevice(device_));
    CUDA_CHECK(cudaGetDeviceProperties(&prop_, device_));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime_version_));
    CUDA_CHECK(cudaDriverGetVersion(&driver_version_));
    version_ = make_version(o.kernels);
    params_.resize(kParamCount);
    tallies_.resize(2);
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));  // last: nothing
                                                                             // throws after it
  }

  ~CudaBackend() override {
    // Not checked: a destructor must not throw. The buffers are freed after this body.
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }

  BackendInfo info() const override {
    BackendInfo b;
    b.name = "cuda";
    b.kernels = version_->name();
    b.strategy = version_->strategy();
    b.device = "GPU " + std::to_string(device_) + ": " + prop_.name;
    char memory[32];
    std::snprintf(memory, sizeof memory, "%.1f", prop_.totalGlobalMem / double(1 << 30));
    b.extra = {
        {"Compute capability", std::to_string(prop_.major) + "." + std::to_string(prop_.minor)},
        {"Multiprocessors", std::to_string(prop_.multiProcessorCount)},
        {"GPU memory (GiB)", memory},
        {"CUDA runtime", cuda_version_text(runtime_version_)},
        {"CUDA driver", cuda_version_text(driver_version_)},
        {"Launches per step",
         std::to_string(version_->launches_per_step(batch_hint_, timing_hint_)) + " at batch " +
             std::to_string(batch_hint_)},
    };
    return b;
  }

  void set_params(const std::vector<float>& params) override {
    if (params.size() != kParamCount) {
      throw Error("set_params: " + std::to_string(params.size()) + " values, expected " +
                  std::to_string(kParamCount));
    }
    copy(params_.get(), params.data(), params_.bytes(), cudaMemcpyHostToDevice);
  }

  std::vector<float> get_params() override {
    std::vector<float> params(kParamCount);
    copy(params.data(), params_.get(), params_.bytes(), cudaMemcpyDeviceToHost);
    return params;
  }

  void bind_data(const Dataset& train, const Dataset& test) override {
    upload(train_pixels_, train.pixels);
    upload(train_labels_, train.labels);
    upload(test_pixels_, test.pixels);
    upload(test_labels_, test.labels);
    train_count_ = train.count;
    test_count_ = test.count;
    order_.resize(train.count);
    // Allocate the work space now rather than inside the first, timed, step.
    version_->reserve(std::clamp(batch_hint_, 1, std::max(train.count, 1)));
  }

  void begin_epoch(const std::vector<int32_t>& order) override {
    if (order.size() != static_cast<size_t>(train_count_)) {
      throw Error("begin_epoch: an order of " + std::to_string(order.size()) +
                  " samples for a training set of " + std::to_string(train_count_));
    }
    copy(order_.get(), order.data(), order_.bytes(), cudaMemcpyHostToDevice);
    CUDA_CHECK(cudaMemsetAsync(tallies_.get(), 0, sizeof(cuda::Tally), stream_));
  }

  void train_batch(int first, int count, float lr) override {
    if (first < 0 || count < 1 || first + count > train_count_) {
      throw Error("train_batch: samples " + std::to_string(first) + " to " +
                  std::to_string(first + count) + " are not in the training set");
    }
    if (count > cuda::kMaxBatch) {
      throw Error("--batch: the CUDA backend takes at most " + std::to_string(cuda::kMaxBatch) +
                      " samples per step",
                  2);
    }
    version_->train_step(data(), first, count, lr);
  }

  // Reading the loss waits for the GPU to drain its queue of steps; once every 256 steps costs
  // well under 1% at any batch size and still stops a diverged run early.
  int loss_check_interval() const override { return 256; }

  double epoch_loss_sum() override {
    cuda::Tally t;
    copy(&t, tallies_.get(), sizeof t, cudaMemcpyDeviceToHost);
    return t.loss_sum;
  }

  EvalResult evaluate() override {
    cuda::Tally* eval = tallies_.get() + 1;
    CUDA_CHECK(cudaMemsetAsync(eval, 0, sizeof(cuda::Tally), stream_));
    version_->evaluate(data());
    cuda::Tally t;
    copy(&t, eval, sizeof t, cudaMemcpyDeviceToHost);
    EvalResult r;
    r.correct = static_cast<long long>(t.correct);
    r.loss_sum = t.loss_sum;
    r.count = test_count_;
    return r;
  }

  void set_timing(bool on) override {
    timer_ = on ? std::make_unique<cuda::EventTimer>() : nullptr;
  }
  LayerTimes times() const override { return times_; }

 private:
  // A host <-> device copy, timed into times_.comm. The stream's earlier work (kernels) is waited
  // for first, outside the timer: it is not communication.
  void copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
    if (bytes == 0) return;
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    const double t0 = now_seconds();
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    times_.comm += now_seconds() - t0;
  }

  // src: a std::vector<T> or the data set's Pixels (anything with data() and size()).
  template <class T, class Host>
  void upload(DeviceBuffer<T>& dst, const Host& src) {
    static_assert(std::is_same_v<std::remove_cv_t<std::remove_pointer_t<decltype(src.data())>>, T>,
                  "upload: the host data's elements must be the buffer's");
    dst.resize(src.size());
    copy(dst.get(), src.data(), dst.bytes(), cudaMemcpyHostToDevice);
  }

  // The device pointers a kernel version works on.
  cuda::DeviceData data() {
    cuda::DeviceData d;
    d.params = params_.get();
    d.train.pixels = train_pixels_.get();
    d.train.labels = train_labels_.get();
    d.train.order = order_.get();
    d.train.count = train_count_;
    d.test.pixels = test_pixels_.get();
    d.test.labels = test_labels_.get();
    d.test.count = test_count_;
    d.epoch = tallies_.get();
    d.eval = tallies_.get() + 1;
    d.stream = stream_;
    d.timer = timer_.get();
    d.times = &times_;
    return d;
  }

  int device_;
  int batch_hint_;
  bool timing_hint_;
  cudaDeviceProp prop_{};
  int runtime_version_ = 0, driver_version_ = 0;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<cuda::KernelVersion> version_;
  DeviceBuffer<float> params_;
  DeviceBuffer<uint8_t> train_pixels_, train_labels_, test_pixels_, test_labels_;
  DeviceBuffer<int32_t> order_;
  DeviceBuffer<cuda::Tally> tallies_;  // [0] this epoch's training losses, [1] the evaluation
  int train_count_ = 0, test_count_ = 0;
  std::unique_ptr<cuda::EventTimer> timer_;  // null unless --timing
  LayerTimes times_;
};

}  // namespace

std::vector<std::string> cuda_kernel_versions() {
  return {"v1", "v2", "fused"};
}

std::unique_ptr<Backend> make_cuda_backend(const CudaOptions& options) {
  return std::make_unique<CudaBackend>(options);
}

}  // namespace lenet
