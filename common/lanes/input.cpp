// The input: x = pixel / 255 (an IEEE float32 division, as the spec says), image l into lane l.
#include <algorithm>
#include <cstring>
#include <utility>

#include "layers.hpp"

namespace lenet::lanes {

namespace {

using vbyte = uint8_t __attribute__((vector_size(kLanes)));

// Pixel pairs of two rows of bytes: lanes 2j, 2j + 1 of the result are lane j + half of a and
// of b (half: 0 for the low halves, kLanes / 2 for the high ones).
template <int Half, int... J>
vbyte zip(vbyte a, vbyte b, std::integer_sequence<int, J...>) {
#if __has_builtin(__builtin_shufflevector)
  return __builtin_shufflevector(a, b, (J % 2 ? kLanes : 0) + J / 2 + Half...);
#else
  return __builtin_shuffle(a, b, vbyte{((J % 2 ? kLanes : 0) + J / 2 + Half)...});
#endif
}

// A kLanes x kLanes block of bytes transposed: zipping row k with row k + kLanes / 2, log2(kLanes)
// times over, turns rows into columns.
void transpose(vbyte (&rows)[kLanes]) {
  constexpr auto lanes = std::make_integer_sequence<int, kLanes>{};
  for (int round = 1; round < kLanes; round *= 2) {
    vbyte next[kLanes];
    for (int k = 0; k < kLanes / 2; ++k) {
      next[2 * k] = zip<0>(rows[k], rows[k + kLanes / 2], lanes);
      next[2 * k + 1] = zip<kLanes / 2>(rows[k], rows[k + kLanes / 2], lanes);
    }
    std::copy_n(next, kLanes, rows);
  }
}

}  // namespace

void load_input(const uint8_t* const (&images)[kLanes], Lanes& g) {
  // The bytes first, pixel i of image l to bytes[i][l] (a quarter of the data of the floats),
  // a block of kLanes pixels of every image at a time; then all of them converted and divided
  // in one loop, which GCC vectorises.
  static_assert(kImageSize % kLanes == 0);
  vbyte bytes[kImageSize];
  for (int i = 0; i < kImageSize; i += kLanes) {
    vbyte block[kLanes];
    for (int l = 0; l < kLanes; ++l)
      std::memcpy(&block[l], images[l] + i, sizeof(vbyte));
    transpose(block);
    std::copy_n(block, kLanes, bytes + i);
  }
  const uint8_t* from = reinterpret_cast<const uint8_t*>(bytes);
  float* x = reinterpret_cast<float*>(g.x);
  for (int k = 0; k < kImageSize * kLanes; ++k)
    x[k] = static_cast<float>(from[k]) / 255.0f;
}

}  // namespace lenet::lanes
