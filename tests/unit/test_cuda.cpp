// The CUDA backend on a GPU, for each kernel version: the PyTorch vectors (one step at B = 1, 4,
// 7 and the 64-step trajectory), the versions against each other and against lenet-serial over
// two epochs (with a short last batch, and at B = 1, where fused replays a CUDA Graph), the
// evaluation and the loss sum, run-to-run determinism, --timing, and the --device check.
// Without a GPU, test_cuda_main.cpp skips them all.
#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "../../backend_cuda/cuda_backend.hpp"
#include "../../backend_serial/serial_backend.hpp"
#include "../../common/error.hpp"
#include "../../common/rng.hpp"
#include "backend_checks.hpp"
#include "catch.hpp"
#include "vectors.hpp"

using namespace lenet;
using namespace lenet::test;

namespace {

// CUDA against the CPU after two epochs (38 to 256 steps). The GPU adds in other orders (warp
// and block trees, FMA contraction) and uses CUDA's expf instead of the CPU's vexp: a few ulp
// per operation, which SGD carries from step to step much as it carries the CPU's differences
// from PyTorch, for which backend_checks.cpp allows 1e-4 over 64 steps. The PyTorch vectors
// themselves are checked with backend_checks.cpp's own tolerances, unchanged.
constexpr double kRtol = 1e-4;

std::unique_ptr<Backend> make(const std::string& version) {
  CudaOptions o;
  o.kernels = version;
  o.batch = 8;
  return make_cuda_backend(o);
}

// Batch sizes and rates for the multi-step comparisons: 128 = 18 * 7 + 2 leaves a short last
// batch; B = 1 takes fused's graph path; B = 100 (then 28) runs the loops over a batch's samples
// more than once per warp; rates from docs/network.md's table, so none saturates.
const std::pair<int, float> kRuns[] = {{7, 0.3f}, {1, 0.05f}, {32, 0.5f}, {100, 1.0f}};

}  // namespace

TEST_CASE("cuda: one SGD step matches PyTorch", "[cuda][vectors][lab5]") {
  for (const std::string& v : cuda_kernel_versions()) {
    INFO("kernels " << v);
    check_one_step_vectors([&] { return make(v); });
  }
}

TEST_CASE("cuda: the 64-step trajectory matches PyTorch", "[cuda][vectors]") {
  for (const std::string& v : cuda_kernel_versions()) {
    INFO("kernels " << v);
    check_trajectory_vectors([&] { return make(v); });
  }
}

TEST_CASE("cuda: v1, v2 and fused agree with each other and with serial", "[cuda]") {
  for (const auto& [batch, lr] : kRuns) {
    const std::string run = std::to_string(batch) + "-sample batches, ";
    SerialBackend serial("ref");
    const std::vector<float> want = train_params(serial, vector_train(), batch, lr, 2);
    const EvalResult want_eval = serial.evaluate();
    std::vector<float> v1;
    for (const std::string& v : cuda_kernel_versions()) {
      INFO(run << "kernels " << v);
      auto b = make(v);
      const std::vector<float> got = train_params(*b, vector_train(), batch, lr, 2);
      CHECK(close_enough(run + v + " vs serial", got, want, kRtol));
      if (v1.empty()) v1 = got;
      CHECK(close_enough(run + v + " vs v1", got, v1, kRtol));
      CHECK(b->epoch_loss_sum() == Approx(serial.epoch_loss_sum()).epsilon(kRtol));
      const EvalResult e = b->evaluate();
      CHECK(e.count == want_eval.count);
      CHECK(e.correct == want_eval.correct);
      CHECK(e.loss_sum == Approx(want_eval.loss_sum).epsilon(kRtol));
    }
  }
}

TEST_CASE("cuda: evaluate() counts the same hits as serial on a model that predicts many classes",
          "[cuda]") {
  // After the two epochs above, every image is predicted as one class, so a broken argmax could
  // match serial's hit count by chance. Ten epochs at B = 8 spread the predictions over most
  // classes (79 of the 128 training images right); both backends evaluate the same parameters.
  SerialBackend serial("ref");
  const std::vector<float> params = train_params(serial, vector_train(), 8, 0.3f, 10);
  serial.bind_data(vector_train(), vector_train());
  const EvalResult want = serial.evaluate();
  for (const std::string& v : cuda_kernel_versions()) {
    INFO("kernels " << v);
    auto b = make(v);
    b->bind_data(vector_train(), vector_train());
    b->set_params(params);
    const EvalResult e = b->evaluate();
    CHECK(e.count == want.count);
    CHECK(e.correct == want.correct);
    CHECK(e.loss_sum == Approx(want.loss_sum).epsilon(kRtol));
  }
}

TEST_CASE("cuda: two runs give bit-identical parameters", "[cuda]") {
  // No atomics decide an order anywhere: every sum has a fixed tree.
  for (const std::string& v : cuda_kernel_versions()) {
    INFO("kernels " << v);
    auto a = make(v), b = make(v);
    const auto pa = train_params(*a, vector_train(), 7, 0.3f, 2);
    const auto pb = train_params(*b, vector_train(), 7, 0.3f, 2);
    CHECK(pa == pb);
    CHECK(pa != init_params(1));
  }
}

TEST_CASE("cuda: --timing measures every layer and changes no result", "[cuda]") {
  for (const auto& [batch, lr] : kRuns) {
    for (const std::string& v : cuda_kernel_versions()) {
      INFO("B" << batch << " kernels " << v);
      auto plain = make(v), timed = make(v);
      timed->set_timing(true);
      // At B = 1, fused with timing runs the launches that its graph would replay.
      const auto want = train_params(*plain, vector_train(), batch, lr, 1);
      const auto got = train_params(*timed, vector_train(), batch, lr, 1);
      CHECK(got == want);
      const LayerTimes t = timed->times();
      for (double s :
           {t.c1_forward, t.s1_forward, t.f_forward, t.f_backward, t.s1_backward, t.c1_backward}) {
        CHECK(s > 0);
      }
      CHECK(t.comm > 0);  // the data and the orders were copied
    }
  }
}

TEST_CASE("cuda: the summary names the device and the kernel version", "[cuda]") {
  for (const std::string& v : cuda_kernel_versions()) {
    const BackendInfo info = make(v)->info();
    CHECK(info.name == "cuda");
    CHECK(info.kernels == v);
    CHECK(info.device.rfind("GPU 0: ", 0) == 0);
    std::string extra;
    for (const auto& [key, value] : info.extra)
      extra += key + " = " + value + "\n";
    for (const char* key : {"Compute capability", "CUDA runtime", "CUDA driver"}) {
      CHECK(extra.find(key) != std::string::npos);
    }
  }
}

TEST_CASE("cuda: --device must name a GPU of this machine", "[cuda]") {
  int devices = 0;
  REQUIRE(cudaGetDeviceCount(&devices) == cudaSuccess);
  CudaOptions o;
  o.device = devices;  // one past the last
  try {
    make_cuda_backend(o);
    FAIL("no error for --device " << devices);
  } catch (const Error& e) {
    CHECK(e.exit_code() == 2);
    CHECK(std::string(e.what()).find("--device") != std::string::npos);
  }
}
