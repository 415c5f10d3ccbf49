// The fused version: one block per sample runs the whole network, forward and backward, in
// shared memory, the six layer passes of docs/network.md one after the other with a
// __syncthreads between them. Nothing but the sample's gradient (9.4 KB) and loss leaves the
// block; a second kernel sums the batch's gradients and updates the parameters.
//   c1 forward   x = pixel / 255 and W1, b1 into shared memory; a1 = sigmoid(C1(x)), 13.5 cells
//                per thread
//   s1 forward   a2 = sigmoid(S1(a1)), one window per thread
//   f forward    z3[k] one warp per logit; softmax, loss, prediction in thread 0
//   f backward   dW3, db3 (one entry per thread, straight to the gradient); d2 one per thread
//   s1 backward  dW2, db2 one warp per entry; then d1 overwrites a1 cell by cell
//   c1 backward  dW1, db1 one warp per entry, lanes striding over the 576 positions
#include "../check.hpp"
#include "../device_math.cuh"
#include "kernels.hpp"

namespace lenet::cuda::fused {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kFilterSize = kC1Kernel * kC1Kernel;  // 25
static_assert(kB1 == kW1 + kW1Size && kB2 == kW2 + kW2Size && kB3 == kW3 + kW3Size,
              "each bias follows its weights: one loop covers both");

// One sample's values in shared memory: 19 KB, so several blocks share an SM.
struct Sample {
  float x[kImageSize];
  float w1[kW1Size + kB1Size];  // W1 then b1: each is read by hundreds of C1 outputs
  float a1[kC1Size];            // a1; the s1 backward pass overwrites it with d1
  float a2[kS1Size];
  float d2[kS1Size];
  float z3[kClasses];
  float p[kClasses];
};

// With --timing, thread 0 of every block adds each phase's clock cycles to cycles[phase]; the
// host shares the kernel's event-timed duration among the layers in these proportions.
class PhaseClock {
 public:
  __device__ explicit PhaseClock(unsigned long long* cycles) : cycles_(cycles) {
    if (on()) last_ = clock64();
  }
  // Ends phase `phase`: call it right after the __syncthreads that ends the phase.
  __device__ void lap(int phase) {
    if (!on()) return;
    const long long now = clock64();
    atomicAdd(&cycles_[phase], static_cast<unsigned long long>(now - last_));
    last_ = now;
  }

 private:
  __device__ bool on() const { return cycles_ != nullptr && threadIdx.x == 0; }
  unsigned long long* cycles_;
  long long last_ = 0;
};

// The a1 cell that S1 window n's tap (u, v) reads: a1[m][4i+u][4j+v].
__device__ int window_cell(int n, int u, int v) {
  const int m = n / kS1MapSize, i = (n % kS1MapSize) / kS1Side, j = n % kS1Side;
  return m * kC1MapSize + (kS1Kernel * i + u) * kC1Side + kS1Kernel * j + v;
}

// The forward pass of one sample; every thread of the block calls it. Leaves x, a1, a2, z3 and p
// in `sm`, and gives thread 0 the loss and the prediction.
__device__ float forward_sample(const float* params, const uint8_t* image, int label, Sample& sm,
                                int* predicted, PhaseClock& clock) {
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;

  for (int k = t; k < kImageSize; k += kThreads)
    sm.x[k] = input_x(image[k]);
  for (int k = t; k < kW1Size + kB1Size; k += kThreads)
    sm.w1[k] = params[kW1 + k];
  __syncthreads();
  // 576 = 18 warps: a warp's 32 cells always lie in one map m, so its W1 reads are broadcasts.
  for (int c = t; c < kC1Size; c += kThreads) {
    const int m = c / kC1MapSize, i = (c % kC1MapSize) / kC1Side, j = c % kC1Side;
    float z = sm.w1[kW1Size + m];
    for (int u = 0; u < kC1Kernel; ++u) {
      for (int v = 0; v < kC1Kernel; ++v) {
        z += sm.w1[m * kFilterSize + u * kC1Kernel + v] * sm.x[(i + u) * kImageSide + j + v];
      }
    }
    sm.a1[c] = sigmoid(z);
  }
  __syncthreads();
  clock.lap(0);

  for (int n = t; n < kS1Size; n += kThreads) {
    float z = params[kB2];
    for (int u = 0; u < kS1Kernel; ++u) {
      for (int v = 0; v < kS1Kernel; ++v) {
        z += params[kW2 + u * kS1Kernel + v] * sm.a1[window_cell(n, u, v)];
      }
    }
    sm.a2[n] = sigmoid(z);
  }
  __syncthreads();
  clock.lap(1);

  for (int k = warp; k < kClasses; k += kWarps) {  // warp-uniform: whole warps enter
    const float* W3 = params + kW3 + k * kS1Size;
    float sum = 0.0f;
    for (int n = lane; n < kS1Size; n += 32)
      sum += W3[n] * sm.a2[n];
    sum = warp_sum(sum);
    if (lane == 0) sm.z3[k] = params[kB3 + k] + sum;
  }
  __syncthreads();
  float loss = 0.0f;
  if (t == 0) loss = softmax_loss(sm.z3, label, sm.p, predicted);
  __syncthreads();  // p is read by every thread in the backward pass
  clock.lap(2);
  return loss;
}

__global__ void __launch_bounds__(kThreads)
    train_kernel(const float* params, Samples b, float* grads, float* losses,
                 unsigned long long* cycles) {
  __shared__ Sample sm;
  PhaseClock clock(cycles);
  const int s = blockIdx.x, t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int label = b.label(s);
  int predicted;
  const float loss = forward_sample(params, b.pixels_of(s), label, sm, &predicted, clock);
  if (t == 0) losses[s] = loss;
  float* g = grads + static_cast<size_t>(s) * kParamCount;

  // F backward. Entry q of W3, b3 (q < 2160: W3[k][n]; then b3[k]): coalesced writes.
  for (int q = t; q < kW3Size + kB3Size; q += kThreads) {
    const bool bias = q >= kW3Size;
    const int k = bias ? q - kW3Size : q / kS1Size;
    const float d3 = logit_grad(sm.p, label, k);
    g[kW3 + q] = bias ? d3 : d3 * sm.a2[q % kS1Size];
  }
  for (int n = t; n < kS1Size; n += kThreads) {
    float g2 = 0.0f;
    for (int k = 0; k < kClasses; ++k) {
      g2 += params[kW3 + k * kS1Size + n] * logit_grad(sm.p, label, k);
    }
    sm.d2[n] = g2 * sm.a2[n] * (1.0f - sm.a2[n]);
  }
  __syncthreads();
  clock.lap(3);

  // S1 backward. Entry w of W2, b2 (w < 16: W2[w/4][w%4]; w = 16: b2), one warp each.
  for (int w = warp; w < kW2Size + kB2Size; w += kWarps) {
    const bool bias = w == kW2Size;
    float sum = 0.0f;
    for (int n = lane; n < kS1Size; n += 32) {
      sum += sm.d2[n] * (bias ? 1.0f : sm.a1[window_cell(n, w / kS1Kernel, w % kS1Kernel)]);
    }
    sum = warp_sum(sum);
    if (lane == 0) g[kW2 + w] = sum;
  }
  __syncthreads();  // the sums above read a1: all of them end before a1 becomes d1
  // Cell c = a1[m][row][col] lies in window (m, row/4, col/4) at tap (row%4, col%4); each
  // thread reads and then overwrites only its own cells.
  for (int c = t; c < kC1Size; c += kThreads) {
    const int m = c / kC1MapSize, row = (c % kC1MapSize) / kC1Side, col = c % kC1Side;
    const int n = m * kS1MapSize + (row / kS1Kernel) * kS1Side + col / kS1Kernel;
    const float w = params[kW2 + (row % kS1Kernel) * kS1Kernel + col % kS1Kernel];
    const float a = sm.a1[c];
    sm.a1[c] = w * sm.d2[n] * a * (1.0f - a);
  }
  __syncthreads();
  clock.lap(4);

  // C1 backward. Entry w of W1, b1 (w < 150: W1[m][u][v]; then b1[m]), one warp each; a bias
  // term is d1 itself.
  const float* d1 = sm.a1;
  for (int w = warp; w < kW1Size + kB1Size; w += kWarps) {
    const bool bias = w >= kW1Size;
    const int m = bias ? w - kW1Size : w / kFilterSize;
    const int u = (w % kFilterSize) / kC1Kernel, v = w % kC1Kernel;  // unused for a bias
    float sum = 0.0f;
    for (int r = lane; r < kC1MapSize; r += 32) {
      const int i = r / kC1Side, j = r % kC1Side;
      sum += d1[m * kC1MapSize + r] * (bias ? 1.0f : sm.x[(i + u) * kImageSide + j + v]);
    }
    sum = warp_sum(sum);
    if (lane == 0) g[kW1 + w] = sum;
  }
  if (cycles) {  // the same for every thread: the barrier is safe
    __syncthreads();
    clock.lap(5);
  }
}

__global__ void __launch_bounds__(kThreads)
    forward_kernel(const float* params, Samples b, float* loss, int* hit) {
  __shared__ Sample sm;
  PhaseClock clock(nullptr);
  const int s = blockIdx.x, label = b.label(s);
  int predicted = 0;
  const float l = forward_sample(params, b.pixels_of(s), label, sm, &predicted, clock);
  if (threadIdx.x == 0) {
    loss[s] = l;
    hit[s] = predicted == label;
  }
}

// Thread i sums parameter i's gradient over the batch in sample order (reads coalesced across
// threads for each sample) and moves the parameter. Thread 0 also does the step's bookkeeping.
__global__ void reduce_update_kernel(float* params, const float* grads, const float* losses,
                                     int count, float scale, Tally* tally, int* cursor) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kParamCount) return;
  float sum = 0.0f;
  for (int s = 0; s < count; ++s)
    sum += grads[static_cast<size_t>(s) * kParamCount + i];
  params[i] -= scale * sum;
  if (i == 0) {
    double loss = 0;
    for (int s = 0; s < count; ++s)
      loss += losses[s];
    tally->loss_sum += loss;
    *cursor += count;
  }
}

__global__ void set_cursor_kernel(int* cursor, int value) {
  *cursor = value;
}

}  // namespace

void train(const float* params, const Samples& b, float* grads, float* losses,
           unsigned long long* cycles, cudaStream_t stream) {
  train_kernel<<<b.count, kThreads, 0, stream>>>(params, b, grads, losses, cycles);
  CUDA_CHECK_LAUNCH();
}

void reduce_update(float* params, const float* grads, const float* losses, int count, float scale,
                   Tally* tally, int* cursor, cudaStream_t stream) {
  reduce_update_kernel<<<blocks_for(kParamCount, kThreads), kThreads, 0, stream>>>(
      params, grads, losses, count, scale, tally, cursor);
  CUDA_CHECK_LAUNCH();
}

void forward(const float* params, const Samples& b, float* loss, int* hit, cudaStream_t stream) {
  forward_kernel<<<b.count, kThreads, 0, stream>>>(params, b, loss, hit);
  CUDA_CHECK_LAUNCH();
}

void set_cursor(int* cursor, int value, cudaStream_t stream) {
  set_cursor_kernel<<<1, 1, 0, stream>>>(cursor, value);
  CUDA_CHECK_LAUNCH();
}

void load_step_kernels() {
  cudaFuncAttributes attributes;  // asking for them loads the kernel
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, train_kernel));
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, reduce_update_kernel));
}

}  // namespace lenet::cuda::fused
