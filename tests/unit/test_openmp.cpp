// The OpenMP backend: the PyTorch vectors for both strategies, bit-identity with lenet-serial
// for 1 to 4 threads (more threads than this machine has cores is fine: the arithmetic must
// not change), a deterministic test loss, and the errors of its own flags.
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "../../backend_openmp/layer_kernels.hpp"
#include "../../backend_openmp/openmp_backend.hpp"
#include "../../backend_serial/serial_backend.hpp"
#include "../../common/error.hpp"
#include "../../common/gradient.hpp"
#include "../../common/kernels_registry.hpp"
#include "../../common/rng.hpp"
#include "backend_checks.hpp"
#include "catch.hpp"
#include "vectors.hpp"

using namespace lenet;
using namespace lenet::test;

namespace {

constexpr int kThreadCounts[] = {1, 2, 3, 4};
constexpr Strategy kStrategies[] = {Strategy::kBatch, Strategy::kLayer};

// The kernels a strategy runs: batch any, layer only ref.
std::vector<std::string> kernels_of(Strategy s) {
  return s == Strategy::kLayer ? std::vector<std::string>{"ref"} : available_kernels();
}

// The learning rates of docs/network.md's table, so that no run saturates.
float lr_for(int batch) {
  return batch == 1 ? 0.05f : batch < 32 ? 0.3f : 0.5f;
}

struct CliRun {
  int code;
  std::string text;
};

// Runs lenet-openmp on the vector data set with `args` and a shell redirection `streams`;
// returns its exit code and what it wrote to the pipe.
CliRun run_cli(const std::string& args, const std::string& streams) {
  const std::string cmd =
      std::string(LENET_OPENMP_EXE) + " --data " + Vectors::data_dir() + " " + args + " " + streams;
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe);
  std::string text;
  char buf[256];
  while (std::fgets(buf, sizeof buf, pipe))
    text += buf;
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
}

// Expects exit code 2 and one line on stderr that names `flag`.
void expect_cli_error(const std::string& args, const std::string& flag) {
  INFO("lenet-openmp " << args);
  const CliRun r = run_cli(args, "2>&1 >/dev/null");
  CHECK(r.code == 2);
  CHECK(std::count(r.text.begin(), r.text.end(), '\n') == 1);
  CHECK(r.text.find(flag) != std::string::npos);
}

}  // namespace

// Each strategy's checks in test cases of its own, tagged with the lab whose code they grade
// (run_scripts/lab.sh grade N runs `ctest -L labN`): lab 1 is the batch strategy's parallel
// region, lab 2 the layer strategy's kernels.
void check_one_step(Strategy s) {
  for (const std::string& kernels : kernels_of(s)) {
    for (int threads : kThreadCounts) {
      INFO(strategy_name(s) << ", kernels " << kernels << ", " << threads << " threads");
      check_one_step_vectors([&] { return std::make_unique<OpenMPBackend>(kernels, s, threads); });
    }
  }
}

void check_trajectory(Strategy s) {
  for (const std::string& kernels : kernels_of(s)) {
    for (int threads : kThreadCounts) {
      INFO(strategy_name(s) << ", kernels " << kernels << ", " << threads << " threads");
      check_trajectory_vectors(
          [&] { return std::make_unique<OpenMPBackend>(kernels, s, threads); });
    }
  }
}

TEST_CASE("batch: one SGD step matches PyTorch", "[openmp][vectors][lab1]") {
  check_one_step(Strategy::kBatch);
}

TEST_CASE("layer: one SGD step matches PyTorch", "[openmp][vectors][lab2]") {
  check_one_step(Strategy::kLayer);
}

TEST_CASE("batch: the 64-step trajectory matches PyTorch", "[openmp][vectors][lab1]") {
  check_trajectory(Strategy::kBatch);
}

TEST_CASE("layer: the 64-step trajectory matches PyTorch", "[openmp][vectors][lab2]") {
  check_trajectory(Strategy::kLayer);
}

TEST_CASE("layer: the layer kernels compute ref's bits", "[openmp][lab2][kernels]") {
  const Dataset& data = vector_train();
  const std::vector<float> params = init_params(1);
  auto ref = make_kernels("ref");
  for (int threads : kThreadCounts) {
    PerSample layer(std::make_unique<LayerKernels>(threads));
    for (int s = 0; s < 16; ++s) {
      INFO(threads << " threads, sample " << s);
      std::vector<float> want(kParamCount), got(kParamCount);
      const float want_loss =
          train_sample(*ref, params.data(), data.image(s), data.label(s), want.data(), nullptr);
      const float got_loss =
          train_sample(layer, params.data(), data.image(s), data.label(s), got.data(), nullptr);
      Activations a, b;
      ref->activations(0, a);
      layer.activations(0, b);
      CHECK(std::memcmp(&a, &b, sizeof a) == 0);
      CHECK(got_loss == want_loss);
      CHECK(got == want);
      CHECK(layer.predicted(0) == ref->predicted(0));
    }
  }
}

void check_bit_identity(Strategy s) {
  struct Case {
    const Dataset* data;
    int batch;
  };
  const Case cases[] = {{&vector_train(), 1},
                        {&vector_train(), 7},
                        {&vector_train(), 32},
                        {&vector_train_8x(), 32},
                        {&vector_train_8x(), 100}};
  for (const std::string& kernels : kernels_of(s)) {
    for (const Case& c : cases) {
      // The layer strategy's parallelism does not depend on the batch: the small set will do.
      if (s == Strategy::kLayer && c.data != &vector_train()) continue;
      SerialBackend serial(kernels);
      const auto want = train_params(serial, *c.data, c.batch, lr_for(c.batch), 2);
      REQUIRE(want != init_params(1));
      for (int threads : kThreadCounts) {
        INFO(strategy_name(s) << ", kernels " << kernels << ", " << c.data->count << " images, B "
                              << c.batch << ", " << threads << " threads");
        OpenMPBackend omp(kernels, s, threads);
        CHECK(train_params(omp, *c.data, c.batch, lr_for(c.batch), 2) == want);
      }
    }
  }
}

TEST_CASE("batch: bit-identical to lenet-serial for 1 to 4 threads", "[openmp][lab1][sweep]") {
  check_bit_identity(Strategy::kBatch);
}

TEST_CASE("layer: bit-identical to lenet-serial for 1 to 4 threads", "[openmp][lab2]") {
  check_bit_identity(Strategy::kLayer);
}

TEST_CASE("the test loss and accuracy are serial's for every thread count", "[openmp][sweep]") {
  const Dataset& test = vector_train_8x();  // 1024 images: every thread gets some
  for (Strategy s : kStrategies) {
    for (const std::string& kernels : kernels_of(s)) {
      SerialBackend serial(kernels);
      std::vector<float> params = train_params(serial, vector_train(), 8, 0.5f, 10);
      // F's weights and biases 16 times larger: losses from 1e-7 to about 100, whose sum in a
      // double depends on the order of the additions (tests/test_mpi.cpp's check_evaluate).
      for (int i = kW3; i < kParamCount; ++i)
        params[i] *= 16;
      serial.set_params(params);
      serial.bind_data(vector_train(), test);
      const EvalResult want = serial.evaluate();
      for (int threads : kThreadCounts) {
        INFO(strategy_name(s) << ", kernels " << kernels << ", " << threads << " threads");
        OpenMPBackend omp(kernels, s, threads);
        omp.bind_data(vector_train(), test);
        omp.set_params(serial.get_params());
        const EvalResult got = omp.evaluate();
        CHECK(got.count == want.count);
        CHECK(got.correct == want.correct);
        CHECK(got.loss_sum == want.loss_sum);
      }
    }
  }
}

TEST_CASE("the per-layer timers add up to about the training time", "[openmp]") {
  for (Strategy s : kStrategies) {
    INFO(strategy_name(s));
    OpenMPBackend omp("ref", s, 2);
    omp.set_timing(true);
    const double t0 = now_seconds();
    train_params(omp, vector_train(), 32, 0.5f, 2);
    const double wall = now_seconds() - t0;
    const LayerTimes t = omp.times();
    CHECK(t.c1_forward > 0);
    CHECK(t.c1_backward > 0);
    CHECK(t.update > 0);
    CHECK(t.total() <= wall);  // the team's time, never the sum over its threads
  }
}

TEST_CASE("bad construction arguments are one-line errors with exit code 2", "[openmp]") {
  for (int threads : {0, -1}) {
    try {
      OpenMPBackend omp("ref", Strategy::kBatch, threads);
      FAIL("no error for " << threads << " threads");
    } catch (const Error& e) {
      CHECK(e.exit_code() == 2);
      CHECK(std::string(e.what()).find("--threads") != std::string::npos);
    }
  }
  try {
    OpenMPBackend omp("simd", Strategy::kLayer, 2);
    FAIL("no error for the layer strategy with another kernels");
  } catch (const Error& e) {
    CHECK(e.exit_code() == 2);
    CHECK(std::string(e.what()).find("--strategy layer") != std::string::npos);
  }
}

TEST_CASE("lenet-openmp rejects bad --threads and --strategy", "[openmp][cli]") {
  expect_cli_error("--threads 0", "--threads");
  expect_cli_error("--threads -3", "--threads");
  expect_cli_error("--strategy bogus", "--strategy");
  for (const std::string& kernels : available_kernels()) {
    if (kernels != "ref")
      expect_cli_error("--strategy layer --kernels " + kernels, "--strategy layer");
  }
}

TEST_CASE("lenet-openmp --strategy layer runs the ref kernels", "[openmp][cli]") {
  const CliRun r = run_cli("--strategy layer --threads 2 --quiet --train-limit 32", "2>&1");
  CHECK(r.code == 0);
  CHECK(r.text.find("Kernels                = ref") != std::string::npos);
  CHECK(r.text.find("Strategy               = layer") != std::string::npos);
  CHECK(r.text.find("Threads                = 2") != std::string::npos);
}
