// The input: x = pixel / 255 (an IEEE float32 division, as the spec says, rounded as it rounds:
// vec/over255.hpp), image l into lane l.
#include <algorithm>
#include <cstring>

#include "../vec/over255.hpp"
#include "layers.hpp"
#include "transpose.hpp"

namespace lenet::lanes {

using vbyte = uint8_t __attribute__((vector_size(kLanes)));

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
    x[k] = simd::over255(from[k]);
}

}  // namespace lenet::lanes
