// The `lanes` kernels' layers: each function runs kLanes samples side by side, one per lane of
// the build's vectors (vec/vec.hpp: 16 with AVX-512, 8 with AVX2, 4 with SSE2 or NEON). Every
// activation is stored one vector per element, lane l holding sample l's value (structure of
// arrays), and every weight is broadcast to all lanes. So each lane does exactly the arithmetic
// of ref's loops (common/ref/), in ref's order: no shuffles, no sums across lanes. The results
// agree with ref's within float32 rounding, not bit for bit: the compiler decides which
// multiply-adds it fuses (f.cpp; tests/unit/test_lanes.cpp checks both).
#pragma once

#include <cstdint>

#include "../network.hpp"
#include "../vec/vec.hpp"

namespace lenet::lanes {

using simd::kLanes;
using simd::vfloat;
using simd::vint;

// kLanes samples side by side: the spec's activations, element by element ([m][i][j]
// row-major, as in Activations), each element one vector of kLanes samples.
// a2 and d3 are padded to whole blocks of kLanes elements for sum.cpp's transposes (the pads
// stay zero).
struct Lanes {
  vfloat x[kImageSize];
  vfloat z1[kC1Size], a1[kC1Size];
  vfloat z2[kS1Size], a2[simd::padded(kS1Size)];
  vfloat z3[kClasses], p[kClasses];
  float loss[kLanes];
  int label[kLanes];
  // Backward: the deltas (d1 only a column at a time, in c1.cpp), and each sample's dW1, db1,
  // dW2 and db2 at their parameter offsets (0 to kW3 - 1). dW3 = d3 a2^T and db3 = d3 are
  // formed only in the chunk's sum (sum.cpp).
  vfloat d3[simd::padded(kClasses)], d2[kS1Size];
  vfloat grad[simd::padded(kW3)];
};

// x = pixel / 255 of images[l] into lane l (input.cpp).
void load_input(const uint8_t* const (&images)[kLanes], Lanes& g);

// C1 (c1.cpp): z1, a1; then d1 from d2 (S1's deltas, made where they are used), dW1, db1.
void c1_forward(const float* params, Lanes& g);
void c1_backward(const float* params, Lanes& g);

// S1 (s1.cpp): z2, a2; then dW2, db2 from d2.
void s1_forward(const float* params, Lanes& g);
void s1_backward(Lanes& g);

// F (f.cpp): z3, p and each lane's loss of label[l]; then d3 and d2.
void f_forward(const float* params, Lanes& g);
void f_backward(const float* params, Lanes& g);

}  // namespace lenet::lanes
