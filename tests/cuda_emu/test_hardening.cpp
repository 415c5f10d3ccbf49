// The CUDA backend's error paths and first steps that only the emulation can provoke (a launch
// that fails inside a stream capture, a step with kernels never loaded before). EMULATED.
#include <string>
#include <vector>

#include "../../backend_cuda/cuda_backend.hpp"
#include "../../common/error.hpp"
#include "../../common/rng.hpp"
#include "../unit/backend_checks.hpp"
#include "../unit/catch.hpp"
#include "cuda_emu_control.hpp"

using namespace lenet;

namespace {

std::unique_ptr<Backend> fused_b1(bool timing = false) {
  CudaOptions o;
  o.kernels = "fused";
  o.batch = 1;
  o.timing = timing;
  auto b = make_cuda_backend(o);
  b->bind_data(test::vector_train(), test::vector_train());
  b->set_params(init_params(1));
  b->set_timing(timing);
  b->begin_epoch(epoch_order(1, 0, test::vector_train().count, true));
  return b;
}

// Three B = 1 steps: fused captures the first into a CUDA Graph and replays it.
std::vector<float> three_steps(Backend& b) {
  for (int s = 0; s < 3; ++s)
    b.train_batch(s, 1, 0.05f);
  return b.get_params();
}

}  // namespace

TEST_CASE("hardening: fused loads its kernels before it captures the first B = 1 step",
          "[hardening]") {
  cuda_emu::forget_loaded_kernels();  // as in a new process: nothing launched yet
  auto graph = fused_b1();
  std::vector<float> got;
  REQUIRE_NOTHROW(got = three_steps(*graph));
  auto timed = fused_b1(true);  // --timing launches the kernels instead of the graph
  CHECK(got == three_steps(*timed));
}

TEST_CASE(
    "hardening: a launch that fails inside the capture is the error reported, and the "
    "stream works after it",
    "[hardening]") {
  auto b = fused_b1();
  cuda_emu::fail_launches_of("train_kernel");
  std::string message;
  try {
    b->train_batch(0, 1, 0.05f);
  } catch (const Error& e) {
    message = e.what();
  }
  cuda_emu::fail_launches_of(nullptr);
  INFO(message);
  CHECK(message.find("fused/kernels.cu") != std::string::npos);
  CHECK(message.find("(kernel launch): too many resources requested for launch") !=
        std::string::npos);
  // The capture was ended: the stream takes copies and steps again, and the step that failed
  // can be redone.
  std::vector<float> got;
  REQUIRE_NOTHROW(got = three_steps(*b));
  auto fresh = fused_b1();
  CHECK(got == three_steps(*fresh));
}

TEST_CASE("hardening: the summary counts fused's launches at B = 1 with and without --timing",
          "[hardening]") {
  for (const bool timing : {false, true}) {
    CudaOptions o;
    o.kernels = "fused";
    o.batch = 1;
    o.timing = timing;
    std::string extra;
    for (const auto& [key, value] : make_cuda_backend(o)->info().extra)
      extra += key + " = " + value + "\n";
    INFO(extra);
    CHECK(extra.find(timing ? "= 2 at batch 1" : "= 1 at batch 1") != std::string::npos);
  }
}
