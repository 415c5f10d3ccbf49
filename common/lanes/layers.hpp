// The `lanes` kernels' layers: each function runs kLanes samples side by side, one per lane of
// the build's vectors (simd/vec.hpp: 16 with AVX-512, 8 with AVX2, 4 with SSE2 or NEON). Every
// activation is stored one vector per element, lane l holding sample l's value (structure of
// arrays), and every weight is broadcast to all lanes. So each lane does exactly the arithmetic
// of ref's loops (common/ref/), in ref's order: no shuffles, no sums across lanes, and the same
// bits as ref (tests/test_lanes.cpp checks that).
#pragma once

#include <cstdint>

#include "../network.hpp"
#include "../simd/vec.hpp"

namespace lenet::lanes {

using simd::kLanes;
using simd::vfloat;
using simd::vint;

// kLanes samples side by side: the spec's activations, element by element ([m][i][j]
// row-major, as in Activations), each element one vector of kLanes samples.
struct Lanes {
  vfloat x[kImageSize];
  vfloat z1[kC1Size], a1[kC1Size];
  vfloat z2[kS1Size], a2[kS1Size];
  vfloat z3[kClasses], p[kClasses];
  float loss[kLanes];
  int label[kLanes];
  // Backward: the deltas, and each sample's gradient of the tensors that are not summed
  // straight into the chunk's sum (lanes_kernels.cpp does dW3 and db3 from a2 and d3).
  vfloat d3[kClasses], d2[kS1Size], d1[kC1Size];
  vfloat dW1[kW1Size], db1[kB1Size], dW2[kW2Size], db2;
};

// x = pixel / 255 of images[l] into lane l (input.cpp).
void load_input(const uint8_t* const (&images)[kLanes], Lanes& g);

// C1 (c1.cpp): z1, a1; then dW1, db1 from d1.
void c1_forward(const float* params, Lanes& g);
void c1_backward(Lanes& g);

// S1 (s1.cpp): z2, a2; then dW2, db2 and d1 from d2.
void s1_forward(const float* params, Lanes& g);
void s1_backward(const float* params, Lanes& g);

// F (f.cpp): z3, p and each lane's loss of label[l]; then d3 and d2.
void f_forward(const float* params, Lanes& g);
void f_backward(const float* params, Lanes& g);

}  // namespace lenet::lanes
