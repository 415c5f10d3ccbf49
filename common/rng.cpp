#include "rng.hpp"

#include <cmath>
#include <numeric>
#include <utility>

#include "network.hpp"

namespace lenet {

uint64_t SplitMix64::next() {
  state_ += 0x9E3779B97F4A7C15ull;
  uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

float SplitMix64::uniform01() {
  return static_cast<float>(next() >> 40) * 0x1p-24f;
}

std::vector<float> init_params(uint64_t seed) {
  // Each tensor draws from U(-bound, bound), bound = 1/sqrt(fan_in), in double, rounded once.
  struct Tensor {
    int size;
    int fan_in;
  };
  const Tensor tensors[] = {{kW1Size, 25}, {kB1Size, 25},  {kW2Size, 16},
                            {kB2Size, 16}, {kW3Size, 216}, {kB3Size, 216}};
  SplitMix64 rng(seed);
  std::vector<float> params;
  params.reserve(kParamCount);
  for (const Tensor& t : tensors) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(t.fan_in));
    for (int i = 0; i < t.size; ++i) {
      const double u = rng.uniform01();
      params.push_back(static_cast<float>((2.0 * u - 1.0) * bound));
    }
  }
  return params;
}

std::vector<int32_t> epoch_order(uint64_t seed, int epoch, int n, bool shuffle) {
  std::vector<int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (!shuffle) return order;
  // Fisher-Yates from the back, one splitmix64 stream per epoch.
  SplitMix64 rng(seed ^ (static_cast<uint64_t>(epoch + 1) * 0xA0761D6478BD642Full));
  for (int i = n - 1; i >= 1; --i) {
    const auto j = static_cast<int>(rng.next() % static_cast<uint64_t>(i + 1));
    std::swap(order[i], order[j]);
  }
  return order;
}

}  // namespace lenet
