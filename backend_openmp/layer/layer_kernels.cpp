#include "layer_kernels.hpp"

namespace lenet {

// 784 divisions: less work than waking the team, so one thread does it.
void LayerKernels::load_input(const uint8_t* pixels) {
  for (int i = 0; i < kImageSize; ++i)
    act_.x[i] = static_cast<float>(pixels[i]) / 255.0f;
}

}  // namespace lenet
