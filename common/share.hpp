// Cutting n items into contiguous parts: the batch over MPI ranks, the test set over ranks, a
// layer's rows over the threads of the OpenMP layer strategy.
#pragma once

namespace lenet {

// [begin, end): part `part` of n items cut into `parts` contiguous ranges whose sizes differ by
// at most one. Empty for some parts when n < parts.
struct Range {
  int begin, end;
  int size() const { return end - begin; }
};

inline Range share(int n, int parts, int part) {
  const auto at = [&](int p) { return static_cast<int>(static_cast<long long>(n) * p / parts); };
  return {at(part), at(part + 1)};
}

}  // namespace lenet
