#include "ref_kernels.hpp"

namespace lenet {

void RefKernels::load_input(const uint8_t* pixels) {
  for (int i = 0; i < kImageSize; ++i)
    act_.x[i] = static_cast<float>(pixels[i]) / 255.0f;
}

}  // namespace lenet
