// The lanes kernels against ref: each lane does ref's operations in ref's order
// (common/lanes/layers.hpp), but the compiler decides which of ref's multiply-adds it fuses
// (common/lanes/f.cpp), so the two agree within float32 rounding (bit for bit through S1 in the
// -O3 release build with g++ 12, not with the asan preset's -O2). And a whole chunk side by side
// against the same kernels one sample at a time (chunks of one), bit for bit, for chunks of every
// size from 1 to kChunk: the lanes past the chunk's end compute a blank image that no sum may
// take in.
// (Bit-identity across threads and ranks: the backends' tests, which run every kernels.)
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>

#include "../../backend_serial/serial_backend.hpp"
#include "../../common/checkpoint.hpp"
#include "../../common/gradient.hpp"
#include "../../common/kernels_registry.hpp"
#include "../../common/rng.hpp"
#include "backend_checks.hpp"
#include "catch.hpp"
#include "vectors.hpp"

using namespace lenet;
using namespace lenet::test;

namespace {

// One sample, as tests/test_kernels.cpp asks of every kernels against PyTorch; a chunk's sum
// adds 16 gradients of either sign, whose cancellation magnifies the relative error (as the MPI
// allreduce tests allow an epoch: tests/test_mpi.cpp).
constexpr double kRtol = 1e-5;
constexpr double kChunkRtol = 1e-4;

template <size_t N>
std::vector<float> vec(const float (&a)[N]) {
  return std::vector<float>(a, a + N);
}

// Bit equality (== would call -0 and +0 equal, and NaN unequal to itself).
template <class T>
bool same_bits(const T* a, const T* b, int n) {
  return std::memcmp(a, b, sizeof(T) * n) == 0;
}

// The seed-1 initial parameters; the same scaled by 4: larger sums, saturated sigmoids, more
// cancellation (the tolerance against ref, 10 times looser); and those after 10 epochs, whose
// small gradients cancel as much.
struct ParameterSet {
  std::vector<float> params;
  double rtol;
};
std::vector<ParameterSet> parameter_sets() {
  std::vector<float> big = init_params(1);
  for (float& w : big)
    w *= 4.0f;
  SerialBackend serial("ref");  // trained until the samples' predicted classes differ
  return {{init_params(1), 1}, {big, 10}, {train_params(serial, vector_train(), 8, 0.3f, 10), 10}};
}

}  // namespace

TEST_CASE("lanes: one sample: ref's activations and gradient within float32 rounding", "[lanes]") {
  const Dataset& data = vector_train();
  auto ref = make_kernels("ref"), lanes = make_kernels("lanes");
  for (const auto& [params, looser] : parameter_sets()) {
    const double rtol = looser * kRtol;
    for (int s = 0; s < 8; ++s) {
      INFO("sample " << s);
      std::vector<float> want(kParamCount), got(kParamCount);
      const float lr =
          train_sample(*ref, params.data(), data.image(s), data.label(s), want.data(), nullptr);
      const float ll =
          train_sample(*lanes, params.data(), data.image(s), data.label(s), got.data(), nullptr);
      Activations a, b;
      ref->activations(0, a);
      lanes->activations(0, b);
      CHECK(same_bits(a.x, b.x, kImageSize));  // the spec's IEEE division
      // The same operations in the same order, but whether ref's compiled loops fuse each
      // multiply-add is the compiler's choice (docs/performance.md): within float32 rounding.
      CHECK(close_enough("z1", vec(b.z1), vec(a.z1), rtol));
      CHECK(close_enough("a1", vec(b.a1), vec(a.a1), rtol));
      CHECK(close_enough("z2", vec(b.z2), vec(a.z2), rtol));
      CHECK(close_enough("a2", vec(b.a2), vec(a.a2), rtol));
      CHECK(close_enough("z3", vec(b.z3), vec(a.z3), rtol));
      CHECK(close_enough("p", vec(b.p), vec(a.p), rtol));
      CHECK(close_enough("loss", {ll}, {lr}, rtol));
      // Each of W1's gradients sums 576 products, which cancel: there the two orders' rounding
      // differs more than in one product (2.6e-5 in an -O2 build, sanitize.sh, on a Zen CPU).
      CHECK(params_close("grad", got, want, 10 * rtol));
    }
  }
}

TEST_CASE("lanes: a chunk of every size from 1 to 16 is its samples run one at a time", "[lanes]") {
  // The chunk side by side against the same kernels one sample at a time (chunks of one, in lane
  // 0), summed as the per-sample adapter sums: the same bits, or a lane is computed or summed
  // wrongly (a lane past the chunk's end taken in, another lane's label, ...).
  const Dataset& data = vector_train();
  auto lanes = make_kernels("lanes"), ref = make_kernels("ref");
  std::vector<float> want(kParamCount), got(kParamCount), grad(kParamCount), ref_sum(kParamCount);
  std::set<int> classes;  // predicted, so that the check of the predicted classes can fail
  for (const auto& [params, looser] : parameter_sets()) {
    for (int n = 1; n <= kChunk; ++n) {
      // Another run of images for each size, so that the lanes past the end hold an earlier
      // chunk's samples unless the kernels blank them.
      std::vector<int32_t> order(n);
      for (int s = 0; s < n; ++s)
        order[s] = (7 * s + 5 * n) % data.count;
      INFO("chunk of " << n);
      std::fill(want.begin(), want.end(), 0.0f);
      double want_loss = 0;
      for (int s = 0; s < n; ++s) {
        const int i = order[s];
        want_loss +=
            train_sample(*lanes, params.data(), data.image(i), data.label(i), grad.data(), nullptr);
        accumulate(want.data(), grad.data());
      }
      const double loss =
          chunk_gradient(*lanes, params.data(), data, order.data(), n, {}, got.data(), nullptr);
      CHECK(loss == want_loss);
      for (const ParamTensor& t : kParamTensors) {
        INFO("d" << t.name);
        CHECK(same_bits(want.data() + t.offset, got.data() + t.offset, t.size));
      }
      // The evaluation's forward pass of the same chunk, one sample at a time and at once.
      float losses[kChunk];
      int predicted[kChunk];
      const int first = 5 * n;  // consecutive images, as the evaluation takes them
      forward_chunk(*lanes, params.data(), data, first, n, losses, predicted);
      for (int s = 0; s < n; ++s) {
        const float one =
            forward_sample(*lanes, params.data(), data.image(first + s), data.label(first + s));
        CHECK(same_bits(&one, &losses[s], 1));
        CHECK(lanes->predicted(0) == predicted[s]);
        classes.insert(predicted[s]);
      }
      // And ref's chunk sum within float32 rounding.
      chunk_gradient(*ref, params.data(), data, order.data(), n, {}, ref_sum.data(), nullptr);
      CHECK(params_close("chunk sum", got, ref_sum, looser * kChunkRtol));
    }
  }
  CHECK(classes.size() > 1);
}

TEST_CASE("lanes: training resumed from a checkpoint goes on with the same bits", "[lanes]") {
  // Nothing of one chunk may linger into the next (the lanes past a short chunk's end, the
  // buffers' pads): a fresh kernels object from a saved epoch must continue bit for bit.
  const Dataset& data = vector_train();
  constexpr int kBatch = 7;  // every step ends in a short chunk
  SerialBackend straight("lanes");
  const auto want = train_params(straight, data, kBatch, 0.5f, 2);

  SerialBackend first("lanes");
  const std::string path = "lanes_resume_test.ck";
  save_checkpoint(path, train_params(first, data, kBatch, 0.5f, 1));
  SerialBackend resumed("lanes");
  resumed.bind_data(data, vector_test());
  resumed.set_params(load_checkpoint(path));
  std::remove(path.c_str());
  resumed.begin_epoch(epoch_order(1, 1, data.count, true));
  for (int first_sample = 0; first_sample < data.count; first_sample += kBatch)
    resumed.train_batch(first_sample, std::min(kBatch, data.count - first_sample), 0.5f);
  CHECK(same_bits(want.data(), resumed.get_params().data(), kParamCount));
}
