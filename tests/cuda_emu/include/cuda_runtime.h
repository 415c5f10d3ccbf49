// cuda_emu: a CPU stand-in for the part of the CUDA runtime that backend_cuda/ uses, so that its
// real .cu files compile with the host C++ compiler and their kernels run on the CPU, in CI,
// without a GPU. Results from it are EMULATED: they say nothing about a GPU run.
//
// What it models (the runtime is tests/cuda_emu/runtime.cpp):
//   - every CUDA thread is a fiber; the blocks of a grid run one after another, and the threads
//     of a block interleave only at __syncthreads and warp shuffles, in an order chosen by
//     CUDA_EMU_SEED (0: in order, 1: reversed, other values: shuffled; blocks likewise);
//   - __syncthreads is a real barrier of the whole block and __shfl_down_sync one of the whole
//     warp: a thread that exits, or waits at another barrier, while the others wait at this one
//     aborts the run with a message naming the kernel, the block and the barrier's file:line;
//   - shared memory (__shared__) and cudaMalloc memory start as 0xFF bytes, which are NaN as
//     float and as double: a value read before anything wrote it spreads NaN into the results;
//     a read or write past the end of a cudaMalloc block stops the run (a guard page);
//   - streams run their work as it is issued; events are stamped with the host clock; a stream
//     capture records launches and device memsets into a graph that cudaGraphLaunch replays, and
//     a call that a capture forbids (synchronising, host copies, cudaMalloc) fails and
//     invalidates it, as on CUDA 12;
//   - lazy module loading as on drivers before CUDA 12.3: a kernel first launched inside a stream
//     capture fails (CUDA_MODULE_LOADING=EAGER loads them all up front);
//   - the launch limits (1 to 1024 threads per block, at least one block).
// What it does not model: the GPU's expf, logf and FMA rounding (the CPU's are used, so results
// differ from a GPU's in the last bits), the memory model (threads never run truly at the same
// time, so a race shows only when a schedule exposes it), warp-synchronous code without
// *_sync calls, atomics under contention, kernel time, and the driver (no real capture, no
// module loading, no sticky errors after a fault). docs/cuda.md, "Tests without a GPU".
#pragma once

#include <math.h>  // expf, logf in the global namespace, as nvcc provides them

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

// The CUDA runtime API level these declarations follow (cudaGraphInstantiate with 3 arguments).
#define CUDART_VERSION 12000

// Function and variable qualifiers: device code is plain C++ here. Shared variables are static
// (one block runs at a time) and live in one linker section, which the runtime fills with 0xFF
// before each block.
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static __attribute__((section("cuda_emu_shared")))

struct uint3 {
  unsigned int x, y, z;
};
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
};

// The running thread's coordinates; the scheduler sets them before it resumes a thread.
extern uint3 threadIdx, blockIdx;
extern dim3 blockDim, gridDim;
constexpr int warpSize = 32;

enum cudaError_t {  // CUDA's own numbers
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorIllegalState = 401,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorStreamCaptureInvalidated = 901,
};
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
};
enum cudaStreamCaptureMode {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2,
};
enum cudaStreamCaptureStatus {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2,
};
constexpr unsigned int cudaStreamNonBlocking = 1;

using cudaStream_t = struct CUstream_st*;
using cudaEvent_t = struct CUevent_st*;
using cudaGraph_t = struct CUgraph_st*;
using cudaGraphExec_t = struct CUgraphExec_st*;

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  int major, minor;
  int multiProcessorCount;
};
struct cudaFuncAttributes {
  int maxThreadsPerBlock;
};

// Host API: the calls backend_cuda/ and its tests make, with CUDA's signatures.
const char* cudaGetErrorString(cudaError_t err);
cudaError_t cudaGetLastError();
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaRuntimeGetVersion(int* version);
cudaError_t cudaDriverGetVersion(int* version);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaMalloc(void** ptr, size_t bytes);
template <class T>
cudaError_t cudaMalloc(T** ptr, size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), bytes);
}
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMemset(void* ptr, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t bytes, cudaStream_t stream = nullptr);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream = nullptr);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = nullptr);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph,
                                 unsigned long long flags = 0);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);

namespace cuda_emu {

// One launch: `thread` runs the kernel with the launch's arguments for the current thread.
void launch_grid(const void* kernel, const char* name, dim3 grid, dim3 block, cudaStream_t stream,
                 std::function<void()> thread);
cudaError_t load_kernel(const void* kernel);
void sync_block(const char* file, int line);
uint64_t shuffle_down(unsigned int mask, uint64_t bits, unsigned int delta, int width,
                      const char* file, int line);
long long clock();

// `kernel<<<grid, block, shared, stream>>>(args...)` is compiled as
// `cuda_emu::launch(kernel, "kernel", grid, block, shared, stream)(args...)` (translate.cmake
// rewrites only that syntax). The arguments are copied at the launch, as CUDA copies them.
template <class... Params>
struct Launch {
  void (*kernel)(Params...);
  const char* name;
  dim3 grid, block;
  cudaStream_t stream;

  template <class... Args>
  void operator()(Args&&... args) const {
    static_assert(sizeof...(Args) == sizeof...(Params), "a kernel argument is missing");
    std::tuple<std::decay_t<Params>...> copy(std::forward<Args>(args)...);
    auto* k = kernel;
    launch_grid(reinterpret_cast<const void*>(k), name, grid, block, stream,
                [k, copy] { std::apply(k, copy); });
  }
};

template <class... Params>
Launch<Params...> launch(void (*kernel)(Params...), const char* name, dim3 grid, dim3 block,
                         size_t shared = 0, cudaStream_t stream = nullptr) {
  (void)shared;  // dynamic shared memory: not used by the backend, not emulated
  return {kernel, name, grid, block, stream};
}

}  // namespace cuda_emu

// Loads a kernel (CUDA's template form); with lazy loading this is what makes it launchable
// inside a stream capture.
template <class... Params>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, void (*kernel)(Params...)) {
  attr->maxThreadsPerBlock = 1024;
  return cuda_emu::load_kernel(reinterpret_cast<const void*>(kernel));
}

// Device functions. The file and line name the barrier in a divergence report.
inline void __syncthreads(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  cuda_emu::sync_block(file, line);
}

template <class T>
T __shfl_down_sync(unsigned int mask, T value, unsigned int delta, int width = warpSize,
                   const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8, "a 32- or 64-bit value");
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  bits = cuda_emu::shuffle_down(mask, bits, delta, width, file, line);
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}

inline long long clock64() {
  return cuda_emu::clock();
}

// One thread runs at a time, so an atomic is a plain read-modify-write.
template <class T>
T atomicAdd(T* address, T value) {
  const T old = *address;
  *address = old + value;
  return old;
}
