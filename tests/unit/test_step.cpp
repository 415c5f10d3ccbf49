// The training step's shared pieces (common/step.hpp) and the table of LayerTimes' fields
// (common/timer.hpp).
#include <cmath>
#include <iterator>
#include <vector>

#include "../../common/gradient.hpp"
#include "../../common/rng.hpp"
#include "../../common/step.hpp"
#include "catch.hpp"

using namespace lenet;

TEST_CASE("step: the parameter slices of a team cover every parameter once, in whole lines",
          "[step]") {
  for (int parts = 1; parts <= 6; ++parts) {
    INFO(parts << " parts");
    int next = 0;
    for (int part = 0; part < parts; ++part) {
      const Range slice = param_slice(parts, part);
      CHECK(slice.begin == next);
      CHECK(slice.begin % 16 == 0);  // a slice starts on a cache line of its own
      CHECK(slice.size() > 0);       // 147 lines: every thread of up to 6 gets some
      next = slice.end;
    }
    CHECK(next == kParamCount);
  }
}

TEST_CASE("step: sum and update by slices is the whole step, bit for bit", "[step]") {
  constexpr int kChunks = 3;
  std::vector<ChunkSum> chunks(kChunks);
  SplitMix64 rng(5);
  for (ChunkSum& c : chunks) {
    // Of many magnitudes, so that the sums round, and another order gives other bits.
    for (float& g : c.grad)
      g = std::ldexp(rng.uniform01() - 0.5f, static_cast<int>(rng.next() % 24) - 12);
  }
  const std::vector<float> start = init_params(1);

  // The reference: the chunk sums added one after the other into a zeroed vector, then the
  // update, with the pieces of gradient.hpp.
  std::vector<float> want = start, grad(kParamCount, 0.0f);
  for (const ChunkSum& c : chunks)
    accumulate(grad.data(), c.grad);
  sgd_update(want.data(), grad.data(), 0.1f, 40);

  for (int parts = 1; parts <= 4; ++parts) {
    INFO(parts << " parts");
    std::vector<float> got = start, sum(kParamCount, -1.0f);
    LayerTimes times;
    for (int part = parts - 1; part >= 0; --part) {  // any order of the slices
      sum_and_update(chunks.data(), kChunks, sum.data(), got.data(), 0.1f, 40,
                     param_slice(parts, part), &times);
    }
    CHECK(sum == grad);
    CHECK(got == want);
    CHECK(times.reduce > 0);
    CHECK(times.update > 0);
  }
}

TEST_CASE("step: the losses are added in chunk order", "[step]") {
  std::vector<ChunkSum> chunks(3);
  chunks[0].loss = 1.0, chunks[1].loss = 1e16, chunks[2].loss = -1e16;
  double sum = 0;
  add_losses(chunks.data(), 3, sum);
  CHECK(sum == 0.0);  // (1 + 1e16) - 1e16 in doubles; in reverse order, 1
}

TEST_CASE("step: LayerTimes' table lists each of its fields once", "[step]") {
  CHECK(sizeof(LayerTimes) == std::size(kLayerTimeFields) * sizeof(double));
  LayerTimes t, ones;
  double value = 1;
  for (const LayerTimeField& f : kLayerTimeFields) {
    CHECK(t.*f.seconds == 0);  // not set yet: no field listed twice
    t.*f.seconds = value;
    ones.*f.seconds = 1;
    value *= 2;  // each field its own bit: a sum shows which fields it took
  }
  CHECK(t.total() == value - 1);
  t += ones;
  CHECK(t.total() == value - 1 + std::size(kLayerTimeFields));
}
