// The serial backend through the Backend interface: the PyTorch step and trajectory vectors for
// all kernels, and run-to-run determinism.
#include "../../backend_serial/serial_backend.hpp"
#include "../../common/kernels_registry.hpp"
#include "../../common/rng.hpp"
#include "backend_checks.hpp"
#include "catch.hpp"

using namespace lenet;
using namespace lenet::test;

TEST_CASE("serial: one SGD step matches PyTorch", "[serial][vectors]") {
  for (const std::string& kernels : available_kernels()) {
    INFO("kernels " << kernels);
    check_one_step_vectors([&] { return std::make_unique<SerialBackend>(kernels); });
  }
}

TEST_CASE("serial: the 64-step trajectory matches PyTorch", "[serial][vectors]") {
  for (const std::string& kernels : available_kernels()) {
    INFO("kernels " << kernels);
    check_trajectory_vectors([&] { return std::make_unique<SerialBackend>(kernels); });
  }
}

TEST_CASE("serial: two runs give bit-identical parameters", "[serial]") {
  for (const std::string& kernels : available_kernels()) {
    SerialBackend a(kernels), b(kernels);
    const auto pa = train_params(a, vector_train(), 7, 0.5f, 2);
    const auto pb = train_params(b, vector_train(), 7, 0.5f, 2);
    CHECK(pa == pb);
    CHECK(pa != init_params(1));
  }
}
