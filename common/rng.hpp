// Deterministic randomness of docs/network.md: splitmix64, parameter init, epoch order.
#pragma once

#include <cstdint>
#include <vector>

namespace lenet {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t state) : state_(state) {}
  uint64_t next();
  float uniform01();  // (next() >> 40) * 2^-24, in [0, 1)

 private:
  uint64_t state_;
};

// The initial 2343 parameters for a seed, bit-exact to the spec.
std::vector<float> init_params(uint64_t seed);

// The order in which epoch `epoch` (from 0) visits n samples; 0..n-1 when !shuffle.
std::vector<int32_t> epoch_order(uint64_t seed, int epoch, int n, bool shuffle);

}  // namespace lenet
