// A kLanes x kLanes block transposed in registers: row r, lane c becomes row c, lane r. The
// lanes kernels turn samples-in-lanes into samples-in-rows with it (the input's bytes, and the
// gradients summed sample by sample), where one element at a time costs a load and a store each.
#pragma once

#include <algorithm>
#include <utility>

#include "../vec/vec.hpp"

namespace lenet::lanes {

// Lanes 2j and 2j + 1 of the result are lane j + Half of a and of b.
template <int Half, class V, int... J>
V zip(V a, V b, std::integer_sequence<int, J...>) {
  constexpr int kN = sizeof...(J);
#if __has_builtin(__builtin_shufflevector)
  return __builtin_shufflevector(a, b, (J % 2 ? kN : 0) + J / 2 + Half...);
#else
  using Index = decltype(a - a < a - a);  // the integer vector of V's width (GCC before 12)
  return __builtin_shuffle(a, b, Index{((J % 2 ? kN : 0) + J / 2 + Half)...});
#endif
}

// Zipping row k with row k + kLanes / 2, log2(kLanes) times over, turns rows into columns.
template <class V>
void transpose(V (&rows)[simd::kLanes]) {
  constexpr int kN = simd::kLanes;
  constexpr auto lanes = std::make_integer_sequence<int, kN>{};
  for (int round = 1; round < kN; round *= 2) {
    V next[kN];
    for (int k = 0; k < kN / 2; ++k) {
      next[2 * k] = zip<0>(rows[k], rows[k + kN / 2], lanes);
      next[2 * k + 1] = zip<kN / 2>(rows[k], rows[k + kN / 2], lanes);
    }
    std::copy_n(next, kN, rows);
  }
}

}  // namespace lenet::lanes
