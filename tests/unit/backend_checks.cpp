#include "backend_checks.hpp"

#include <cmath>

#include "../../common/report.hpp"
#include "../../common/rng.hpp"
#include "catch.hpp"
#include "vectors.hpp"

namespace lenet::test {

// Tolerances (relative, with an absolute floor of 1% of the tensor's scale; vectors.hpp):
// 1e-5 for one step, as the serial issue demands; 1e-4 for 64 steps, where float32 rounding
// differences between us and PyTorch (other summation orders) have had time to grow.
constexpr double kStepRtol = 1e-5;
constexpr double kTrajectoryRtol = 1e-4;

const Dataset& vector_train() {
  static const Dataset d = load_split(Vectors::data_dir(), "train");
  return d;
}

const Dataset& vector_test() {
  static const Dataset d = load_split(Vectors::data_dir(), "t10k");
  return d;
}

const Dataset& vector_train_8x() {
  static const Dataset d = [] {
    const Dataset& v = vector_train();
    Dataset r = v;
    std::vector<uint8_t> pixels(v.pixels.begin(), v.pixels.end());
    for (int copy = 1; copy < 8; ++copy) {
      pixels.insert(pixels.end(), v.pixels.begin(), v.pixels.end());
      r.labels.insert(r.labels.end(), v.labels.begin(), v.labels.end());
    }
    r.pixels = Pixels(std::move(pixels));
    r.count = static_cast<int>(r.labels.size());
    return r;
  }();
  return d;
}

void check_one_step_vectors(const BackendFactory& make) {
  const Vectors& v = Vectors::shared();
  // 40: three chunks, so that a team shares the step (1, 4 and 7 are one chunk each).
  for (int B : {1, 4, 7, 40}) {
    const std::string name = "step.B" + std::to_string(B);
    auto b = make();
    b->bind_data(vector_train(), vector_test());
    b->set_params(v.f32("init.seed1"));
    b->begin_epoch(epoch_order(1, 0, vector_train().count, false));
    b->train_batch(0, B, 0.5f);
    const std::vector<float> loss{static_cast<float>(b->epoch_loss_sum() / B)};
    CHECK(close_enough(name + ".loss", loss, v.f32(name + ".loss"), kStepRtol));
    CHECK(params_close(name + ".params", b->get_params(), v.f32(name + ".params"), kStepRtol));
  }
}

void check_trajectory_vectors(const BackendFactory& make) {
  const Vectors& v = Vectors::shared();
  const auto& ref_loss = v.f32("traj.loss");
  const auto& ref_checksum = v.f64("traj.checksum");
  const float lr = v.f32("traj.lr")[0];
  auto b = make();
  b->bind_data(vector_train(), vector_test());
  b->set_params(v.f32("init.seed1"));
  const int n = vector_train().count, batch = 8;
  std::vector<float> losses;
  int step = 0;
  for (int epoch = 0; step < static_cast<int>(ref_loss.size()); ++epoch) {
    b->begin_epoch(epoch_order(1, epoch, n, true));
    for (int first = 0; first < n; first += batch, ++step) {
      const double before = b->epoch_loss_sum();
      b->train_batch(first, batch, lr);
      losses.push_back(static_cast<float>((b->epoch_loss_sum() - before) / batch));
      // The checksum weights parameter i by i + 1; compare it on the scale of sum (i+1)|p_i|.
      const std::vector<float> p = b->get_params();
      double scale = 0;
      for (size_t i = 0; i < p.size(); ++i)
        scale += (i + 1) * std::fabs(double(p[i]));
      INFO("step " << step);
      CHECK(std::fabs(param_checksum(p) - ref_checksum[step]) <= kTrajectoryRtol * scale);
    }
  }
  CHECK(close_enough("traj.loss", losses, ref_loss, kTrajectoryRtol));
  CHECK(params_close("traj.params", b->get_params(), v.f32("traj.params"), kTrajectoryRtol));
  const EvalResult e = b->evaluate();
  CHECK(e.count == vector_test().count);
  CHECK(e.correct == v.i32("traj.test.correct")[0]);
  const std::vector<float> mean_loss{static_cast<float>(e.loss_sum / e.count)};
  CHECK(close_enough("traj.test.loss", mean_loss, v.f32("traj.test.loss"), kTrajectoryRtol));
}

std::vector<float> train_params(Backend& b, const Dataset& data, int batch, float lr, int epochs,
                                uint64_t seed) {
  b.bind_data(data, vector_test());
  b.set_params(init_params(seed));
  for (int epoch = 0; epoch < epochs; ++epoch) {
    b.begin_epoch(epoch_order(seed, epoch, data.count, true));
    for (int first = 0; first < data.count; first += batch) {
      b.train_batch(first, std::min(batch, data.count - first), lr);
    }
  }
  return b.get_params();
}

}  // namespace lenet::test
