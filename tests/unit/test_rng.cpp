// splitmix64, parameter init and the epoch shuffle, bit for bit against the PyTorch generator.
#include <algorithm>

#include "../../common/rng.hpp"
#include "catch.hpp"
#include "vectors.hpp"

using namespace lenet;
using lenet::test::Vectors;

TEST_CASE("splitmix64 and uniform01 match the reference generator", "[rng]") {
  const Vectors& v = Vectors::shared();
  SplitMix64 a(1), b(1);
  for (uint64_t want : v.u64("splitmix64.seed1.first8"))
    CHECK(a.next() == want);
  for (float want : v.f32("uniform01.seed1.first8"))
    CHECK(b.uniform01() == want);
}

TEST_CASE("initial parameters are bit-identical to the generator's", "[rng]") {
  const Vectors& v = Vectors::shared();
  for (uint64_t seed : {1, 42}) {
    const auto got = init_params(seed);
    const auto& want = v.f32("init.seed" + std::to_string(seed));
    REQUIRE(got.size() == want.size());
    int differing = 0;
    for (size_t i = 0; i < got.size(); ++i)
      differing += got[i] != want[i];
    INFO("seed " << seed);
    CHECK(differing == 0);
  }
}

TEST_CASE("epoch orders match the generator's and are permutations", "[rng]") {
  const Vectors& v = Vectors::shared();
  struct Case {
    uint64_t seed;
    int n, epoch;
    const char* name;
  };
  for (const Case& c :
       {Case{1, 128, 0, "order.seed1.n128.e0"}, Case{1, 128, 1, "order.seed1.n128.e1"},
        Case{7, 10, 3, "order.seed7.n10.e3"}}) {
    const auto got = epoch_order(c.seed, c.epoch, c.n, true);
    const auto& want = v.i32(c.name);
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i)
      CHECK(got[i] == want[i]);
  }
  auto sorted = epoch_order(3, 5, 1000, true);
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 1000; ++i)
    REQUIRE(sorted[i] == i);
  CHECK(epoch_order(1, 0, 5, false) == std::vector<int32_t>{0, 1, 2, 3, 4});
  CHECK(epoch_order(1, 0, 100, true) != epoch_order(1, 1, 100, true));
}
