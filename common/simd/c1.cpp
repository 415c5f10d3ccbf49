// C1: 6 filters 5x5 over the 28x28 input, stride 1, no padding, then a sigmoid.
//   forward:  z1[m][i][j] = b1[m] + sum_{u,v} W1[m][u][v] * x[i+u][j+v]      a1 = sigmoid(z1)
//   backward: d1 = dloss/dz1 comes from S1;
//             dW1[m][u][v] = sum_{i,j} d1[m][i][j] * x[i+u][j+v]            db1[m] = sum d1[m]
// With the shifted copies xs[v][24 r + j] = x[r][j + v] (input.cpp), both become sums over a
// whole map seen as one flat run of 576 floats, o = 24 i + j:
//   z1[m][o]     = b1[m] + sum_{u,v} W1[m][u][v] * xs[v][o + 24 u]
//   dW1[m][u][v] = sum_o d1[m][o] * xs[v][o + 24 u]
// C1 is 93% of the network's multiply-adds, so the loops are blocked for the registers: each
// vector loaded is used by several multiply-adds before the next load.
#include "../vec/exp_vectors.hpp"
#include "simd_kernels.hpp"

namespace lenet {

using namespace simd;

namespace {

// Forward: kFwdMaps maps x kFwdVectors output vectors are summed at once, all 25 taps, in
// registers: per tap kFwdVectors loads of x and kFwdMaps weight broadcasts feed
// kFwdMaps * kFwdVectors multiply-adds.
constexpr int kFwdMaps = kVectorRegisters >= 32 ? 6 : 3;
constexpr int kFwdVectors = 3;
// The sigmoid: a pass of its own over z1 (exp_vectors.hpp's sigmoids). Inside the block loop above
// it was slower: with 16 registers its temporaries push the accumulators out (AVX2: 2,786 -> 3,424
// ns), and with 32 it gained nothing measurable.
// Backward: kBwdMaps maps x the 5 taps of one kernel row u, summed over the map in registers.
constexpr int kBwdMaps = kVectorRegisters >= 32 ? 3 : 2;
// db1 taken in the pass for u = 0, which loads d1 anyway, pays where there are 32 registers
// (AVX-512, AMD Zen 4: C1 backward 1,650 -> 1,608 ns); with 16 the extra sums spill the
// accumulators (AVX2: 1,700 -> 2,070 ns), and a pass of its own over d1 stays.
constexpr bool kBiasInPass = kVectorRegisters >= 32;

static_assert(kC1Maps % kFwdMaps == 0 && kC1Maps % kBwdMaps == 0);
static_assert(kC1MapSize % (kFwdVectors * kLanes) == 0, "a map is whole blocks of vectors");

}  // namespace

void SimdKernels::c1_forward(const float* params) {
  const float* W1 = params + kW1;
  const float* b1 = params + kB1;
  for (int m0 = 0; m0 < kC1Maps; m0 += kFwdMaps) {
    for (int o = 0; o < kC1MapSize; o += kFwdVectors * kLanes) {
      vfloat z[kFwdMaps][kFwdVectors];
      for (int m = 0; m < kFwdMaps; ++m) {
        for (int k = 0; k < kFwdVectors; ++k)
          z[m][k] = splat(b1[m0 + m]);
      }
      for (int u = 0; u < kC1Kernel; ++u) {
        for (int v = 0; v < kC1Kernel; ++v) {
          vfloat x[kFwdVectors];
          const float* run = xs_[v] + u * kC1Side + o;
          // in_register: otherwise GCC reloads x[k] in each of its kFwdMaps multiply-adds and
          // loads set the pace (the convolution alone: 3.3 -> 2.2 us per sample on AVX2).
          for (int k = 0; k < kFwdVectors; ++k)
            x[k] = in_register(load(run + k * kLanes));
          for (int m = 0; m < kFwdMaps; ++m) {
            const float w = W1[((m0 + m) * kC1Kernel + u) * kC1Kernel + v];
            for (int k = 0; k < kFwdVectors; ++k)
              z[m][k] += w * x[k];
          }
        }
      }
      for (int m = 0; m < kFwdMaps; ++m) {
        for (int k = 0; k < kFwdVectors; ++k)
          store(z1_ + (m0 + m) * kC1MapSize + o + k * kLanes, z[m][k]);
      }
    }
  }
  sigmoids(z1_, a1_, kC1Size);
}

void SimdKernels::c1_backward(const float* /*params*/, float* grad) {
  float* dW1 = grad + kW1;
  float* db1 = grad + kB1;
  // db1: lane-wise sums of d1, the six maps side by side so that they do not wait on each
  // other's additions; the same adds in the same order in either place below.
  vfloat db[kC1Maps] = {};
  for (int m0 = 0; m0 < kC1Maps; m0 += kBwdMaps) {
    for (int u = 0; u < kC1Kernel; ++u) {
      // Lane-wise partial sums over the map; each is added across its lanes once at the end.
      vfloat dw[kBwdMaps][kC1Kernel] = {};
      for (int o = 0; o < kC1MapSize; o += kLanes) {
        vfloat d[kBwdMaps];
        for (int m = 0; m < kBwdMaps; ++m)
          d[m] = load(d1_ + (m0 + m) * kC1MapSize + o);
        if (kBiasInPass && u == 0) {
          for (int m = 0; m < kBwdMaps; ++m)
            db[m0 + m] += d[m];
        }
        for (int v = 0; v < kC1Kernel; ++v) {
          const vfloat x = in_register(load(xs_[v] + u * kC1Side + o));
          for (int m = 0; m < kBwdMaps; ++m)
            dw[m][v] += d[m] * x;
        }
      }
      float sums[kBwdMaps * kC1Kernel];
      hsums(reinterpret_cast<const vfloat(&)[kBwdMaps * kC1Kernel]>(dw), sums);
      for (int m = 0; m < kBwdMaps; ++m) {
        for (int v = 0; v < kC1Kernel; ++v) {
          dW1[((m0 + m) * kC1Kernel + u) * kC1Kernel + v] = sums[m * kC1Kernel + v];
        }
      }
    }
  }
  if constexpr (!kBiasInPass) {
    for (int o = 0; o < kC1MapSize; o += kLanes) {
      for (int m = 0; m < kC1Maps; ++m)
        db[m] += load(d1_ + m * kC1MapSize + o);
    }
  }
  for (int m = 0; m < kC1Maps; ++m)
    db1[m] = hsum(db[m]);
}

}  // namespace lenet
