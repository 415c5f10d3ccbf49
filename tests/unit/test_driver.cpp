// The shared driver's failure paths: an exception that is not the project's own Error still ends
// in the documented one-line error and exit code 1, never in std::terminate (exit 134).
#include <stdexcept>

#include "../../common/driver.hpp"
#include "catch.hpp"
#include "vectors.hpp"

using namespace lenet;
using namespace lenet::test;

namespace {

// A backend that fails the way a library call might: with a standard exception, mid-training.
class ThrowingBackend final : public Backend {
 public:
  BackendInfo info() const override {
    BackendInfo b;
    b.name = "throwing";
    return b;
  }
  void set_params(const std::vector<float>& p) override { params_ = p; }
  std::vector<float> get_params() override { return params_; }
  void bind_data(const Dataset&, const Dataset&) override {}
  void begin_epoch(const std::vector<int32_t>&) override {}
  void train_batch(int, int, float) override { throw std::out_of_range("vector::at"); }
  double epoch_loss_sum() override { return 0; }
  EvalResult evaluate() override { return {}; }
  void set_timing(bool) override {}
  LayerTimes times() const override { return {}; }

 private:
  std::vector<float> params_;
};

int run(const BackendSpec& spec) {
  std::string prog = spec.program, flag = "--data", dir = Vectors::data_dir(), q = "--quiet";
  char* argv[] = {prog.data(), flag.data(), dir.data(), q.data()};
  return run_driver(4, argv, spec);
}

}  // namespace

TEST_CASE("driver: a standard exception while training exits 1", "[driver]") {
  BackendSpec spec;
  spec.program = "lenet-test";
  spec.create = [](const Options&) { return std::make_unique<ThrowingBackend>(); };
  CHECK(run(spec) == 1);
}

TEST_CASE("driver: a standard exception while setting up exits 1", "[driver]") {
  BackendSpec spec;
  spec.program = "lenet-test";
  spec.create = [](const Options&) -> std::unique_ptr<Backend> {
    throw std::runtime_error("no such device");
  };
  CHECK(run(spec) == 1);
}
