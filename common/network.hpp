// The network of docs/network.md, as constants: shapes, the parameter vector's layout, and the
// per-sample activations. Every backend (CPU and CUDA) includes this one file.
#pragma once

#include <cstdint>

namespace lenet {

// Input: one 28x28 grey image.
constexpr int kImageSide = 28;
constexpr int kImageSize = kImageSide * kImageSide;  // 784
constexpr int kClasses = 10;

// C1: 6 filters 5x5, stride 1, no padding -> 6 maps of 24x24.
constexpr int kC1Maps = 6;
constexpr int kC1Kernel = 5;
constexpr int kC1Side = kImageSide - kC1Kernel + 1;  // 24
constexpr int kC1MapSize = kC1Side * kC1Side;        // 576
constexpr int kC1Size = kC1Maps * kC1MapSize;        // 3456

// S1: one shared 4x4 kernel, stride 4 -> 6 maps of 6x6.
constexpr int kS1Kernel = 4;
constexpr int kS1Side = kC1Side / kS1Kernel;   // 6
constexpr int kS1MapSize = kS1Side * kS1Side;  // 36
constexpr int kS1Size = kC1Maps * kS1MapSize;  // 216, also F's input size

// The parameter vector: W1, b1, W2, b2, W3, b3 in this order (2343 floats).
constexpr int kW1Size = kC1Maps * kC1Kernel * kC1Kernel;  // 150
constexpr int kB1Size = kC1Maps;                          // 6
constexpr int kW2Size = kS1Kernel * kS1Kernel;            // 16
constexpr int kB2Size = 1;
constexpr int kW3Size = kClasses * kS1Size;  // 2160
constexpr int kB3Size = kClasses;            // 10

constexpr int kW1 = 0;
constexpr int kB1 = kW1 + kW1Size;
constexpr int kW2 = kB1 + kB1Size;
constexpr int kB2 = kW2 + kW2Size;
constexpr int kW3 = kB2 + kB2Size;
constexpr int kB3 = kW3 + kW3Size;
constexpr int kParamCount = kB3 + kB3Size;
static_assert(kParamCount == 2343, "the spec's parameter count");

// The same layout as a list, for code that walks the tensors one by one (e.g. --verify).
struct ParamTensor {
  const char* name;
  int offset, size;
};
constexpr ParamTensor kParamTensors[] = {{"W1", kW1, kW1Size}, {"b1", kB1, kB1Size},
                                         {"W2", kW2, kW2Size}, {"b2", kB2, kB2Size},
                                         {"W3", kW3, kW3Size}, {"b3", kB3, kB3Size}};

// FLOP of one training sample (forward + backward: 2 per multiply-add plus the element-wise
// work), for GFLOP/s figures; docs/performance.md derives it.
constexpr double kFlopsPerSample = 401614.0;

// Everything one sample's forward pass produces, laid out as in the spec (row-major).
struct Activations {
  float x[kImageSize];  // input, pixel / 255
  float z1[kC1Size];    // C1 pre-activation [6][24][24]
  float a1[kC1Size];    // sigmoid(z1)
  float z2[kS1Size];    // S1 pre-activation, n = m*36 + i*6 + j
  float a2[kS1Size];    // sigmoid(z2)
  float z3[kClasses];   // logits
  float p[kClasses];    // softmax(z3)
  float loss;           // -log p[label]
};

}  // namespace lenet
