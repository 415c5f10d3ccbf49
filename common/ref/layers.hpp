// The `ref` kernels' loops, one function per loop nest, each over a range [begin, end) of outputs
// that do not depend on one another. RefKernels (ref_kernels.cpp) runs each over its whole
// range; the OpenMP layer strategy (backend_openmp/layer_kernels.cpp) gives each thread a part
// of the range. The loops are compiled once, here, so an output element is computed by the same
// machine code on either path: the same bits.
#pragma once

#include <cstdint>

#include "../network.hpp"
#include "../softmax.hpp"

namespace lenet::ref {

// x = pixel / 255 for the 784 pixels.
void load_input(const uint8_t* pixels, float* x);

// C1 (c1.cpp). Output row r = m * 24 + i is row i of map m: 144 rows.
constexpr int kC1Rows = kC1Maps * kC1Side;
// z1 and a1 = sigmoid(z1) of the output rows [begin, end).
void c1_forward(const float* params, const float* x, float* z1, float* a1, int begin, int end);
// dW1 and db1 of the maps [begin, end), from d1 = dloss/dz1.
void c1_backward(const float* x, const float* d1, float* grad, int begin, int end);

// S1 (s1.cpp). Output row r = m * 6 + i is row i of map m: 36 rows of 6 windows.
constexpr int kS1Rows = kC1Maps * kS1Side;
// z2 and a2 = sigmoid(z2) of the output rows [begin, end).
void s1_forward(const float* params, const float* a1, float* z2, float* a2, int begin, int end);
// dW2 and db2: sums over every window of the layer, from d2 = dloss/dz2.
void s1_weight_gradient(const float* a1, const float* d2, float* grad);
// d1 = dloss/dz1 of the C1 cells under the S1 output rows [begin, end).
void s1_delta(const float* params, const float* a1, const float* d2, float* d1, int begin, int end);

// F (f.cpp).
// The logits z3 of the classes [begin, end).
void f_logits(const float* params, const float* a2, float* z3, int begin, int end);
// p = softmax(z3), the loss, and the predicted class: the code every kernels shares
// (common/softmax.hpp).
using lenet::f_predicted;
using lenet::f_softmax_loss;
// db3 = d3 = p - onehot(label).
void f_bias_gradient(const float* p, int label, float* grad);
// dW3 of the input columns n in [begin, end), and d2 = dloss/dz2 of those inputs.
void f_backward(const float* params, const float* a2, const float* p, int label, float* grad,
                float* d2, int begin, int end);

}  // namespace lenet::ref
