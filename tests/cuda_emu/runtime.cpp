// The CUDA emulation's runtime: what include/cuda_runtime.h declares (its top comment says what
// is modelled and what is not). Three parts:
//   1. the scheduler: CUDA threads as fibers, block and warp barriers, the schedule's seed;
//   2. device memory: 0xFF-filled blocks with a guard page after each;
//   3. the host API: errors, streams, events, stream capture and graphs, lazy loading.
// Everything runs on the calling host thread: a launch runs its grid before it returns.

// Fibers switch with _setjmp/_longjmp between stacks (ucontext only starts them: swapcontext
// makes a system call, which at millions of switches per test would dominate). glibc's
// fortified longjmp refuses jumps between stacks, so it is turned off for this file.
#undef _FORTIFY_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cuda_emu_control.hpp"
#include "cuda_runtime.h"

uint3 threadIdx, blockIdx;
dim3 blockDim, gridDim;

// Shared memory: every __shared__ variable lies in this section (cuda_runtime.h); the linker
// defines its bounds. Weak: a program without shared variables has no such section.
extern "C" char __start_cuda_emu_shared[] __attribute__((weak));
extern "C" char __stop_cuda_emu_shared[] __attribute__((weak));

namespace cuda_emu {
namespace {

// ---- 1. The scheduler ----------------------------------------------------------------------

unsigned long long env_number(const char* name, unsigned long long fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

const unsigned long long g_seed = env_number("CUDA_EMU_SEED", 0);

struct Fiber {
  ucontext_t start;  // enters fiber_main, once
  void* resume[5];   // where the fiber continues (__builtin_setjmp's buffer)
  void* stack = nullptr;
  bool started = false;
  int thread = 0;  // this launch: the thread's flat index in its block, and as threadIdx
  uint3 index{};
  uint64_t value = 0;  // a shuffle: what the lane offers, then what it receives
  unsigned int delta = 0;
  int width = 32;
};

struct Barrier {    // a __syncthreads of the block, or a shuffle of one warp
  int members = 0;  // threads that must arrive
  int arrived = 0;
  int exited = 0;  // members that have returned from the kernel
  const char* file = nullptr;
  int line = 0;
};

constexpr size_t kStackBytes = 256 * 1024;

// What runs now: the launch, the block, the fiber.
struct Run {
  const char* kernel = nullptr;
  const std::function<void()>* thread_body = nullptr;
  int threads = 0;
  std::vector<int> order;       // priority rank -> thread: the lowest ready rank runs next
  std::vector<int> rank;        // thread -> rank
  std::vector<uint64_t> ready;  // bit r: the thread of rank r can run
  Barrier block;
  std::vector<Barrier> warps;
  int exited = 0;
  Fiber* current = nullptr;
};

std::vector<std::unique_ptr<Fiber>> g_fibers;
void* g_scheduler[5];
Run g_run;
unsigned long long g_launches = 0;  // numbers the launches, for the shuffled orders

[[noreturn]] void fail_run(const char* fmt, ...) {
  std::fprintf(stderr, "cuda_emu: %s block (%u,%u,%u)", g_run.kernel ? g_run.kernel : "?",
               blockIdx.x, blockIdx.y, blockIdx.z);
  if (g_run.current) std::fprintf(stderr, " thread %d", g_run.current->thread);
  std::fprintf(stderr, ": ");
  va_list args;
  va_start(args, fmt);
  std::vfprintf(stderr, fmt, args);
  va_end(args);
  std::fprintf(stderr, "\n");
  std::fflush(stderr);
  std::abort();
}

void set_all_ready() {
  std::fill(g_run.ready.begin(), g_run.ready.end(), ~uint64_t{0});
  if (g_run.threads % 64) g_run.ready.back() = (uint64_t{1} << (g_run.threads % 64)) - 1;
}

void set_ready(int thread) {
  const int r = g_run.rank[thread];
  g_run.ready[r / 64] |= uint64_t{1} << (r % 64);
}

int take_ready() {
  for (size_t w = 0; w < g_run.ready.size(); ++w) {
    if (g_run.ready[w]) {
      const int bit = __builtin_ctzll(g_run.ready[w]);
      g_run.ready[w] &= g_run.ready[w] - 1;
      return static_cast<int>(w) * 64 + bit;
    }
  }
  return -1;
}

// Switching threads. A fiber that waits or has finished saves where it is and runs the next
// ready thread itself (one jump, not two through the scheduler); only when no thread is ready
// does it return to the scheduler, in run_block. __builtin_setjmp/__builtin_longjmp save and
// restore just the stack and frame pointers: the compiler keeps everything else in the frame.
[[noreturn, gnu::noinline]] void jump(void** to) {
  __builtin_longjmp(to, 1);
}

[[noreturn]] void fiber_main();

[[noreturn]] void run_next() {
  const int r = take_ready();
  if (r < 0) jump(g_scheduler);
  Fiber& f = *g_fibers[g_run.order[r]];
  threadIdx = f.index;
  g_run.current = &f;
  if (f.started) jump(f.resume);
  f.started = true;
  setcontext(&f.start);  // a new fiber: enters fiber_main on its own stack
  std::abort();
}

// Returns when this thread is resumed.
void yield() {
  if (__builtin_setjmp(g_run.current->resume) == 0) run_next();
}

[[noreturn]] void fiber_main() {
  for (;;) {
    (*g_run.thread_body)();
    // The thread has returned from the kernel: no barrier can complete without it any more.
    Fiber& f = *g_run.current;
    Barrier& warp = g_run.warps[f.thread / 32];
    if (g_run.block.arrived > 0) {
      fail_run(
          "returned from the kernel while %d threads wait at __syncthreads (%s:%d): a "
          "barrier that not every thread of the block reaches",
          g_run.block.arrived, g_run.block.file, g_run.block.line);
    }
    if (warp.arrived > 0) {
      fail_run("returned from the kernel while %d lanes of its warp wait at a shuffle (%s:%d)",
               warp.arrived, warp.file, warp.line);
    }
    ++g_run.exited, ++g_run.block.exited, ++warp.exited;
    yield();  // resumed later as another thread of another block
  }
}

// Arrives at barrier b and waits until all its members have arrived; `all` makes them ready.
template <class MakeReady>
void arrive(Barrier& b, const char* what, const char* file, int line, MakeReady all) {
  if (b.exited > 0) {
    fail_run("waits at %s (%s:%d) for %d threads that have returned from the kernel", what, file,
             line, b.exited);
  }
  if (b.arrived == 0) {
    b.file = file, b.line = line;
  } else if (b.line != line || (b.file != file && std::strcmp(b.file, file) != 0)) {
    fail_run("waits at %s (%s:%d) while %d threads wait at another one (%s:%d)", what, file, line,
             b.arrived, b.file, b.line);
  }
  if (++b.arrived == b.members) {
    b.arrived = 0;
    all();
  }
  yield();
}

// No thread can run and some have not finished: say where each group waits, then stop.
[[noreturn]] void deadlock() {
  std::string where;
  if (g_run.block.arrived > 0) {
    where += std::to_string(g_run.block.arrived) + " threads at __syncthreads (" +
             g_run.block.file + ":" + std::to_string(g_run.block.line) + ")";
  }
  for (size_t w = 0; w < g_run.warps.size(); ++w) {
    const Barrier& b = g_run.warps[w];
    if (b.arrived > 0) {
      where += (where.empty() ? "" : ", ") + std::to_string(b.arrived) + " lanes of warp " +
               std::to_string(w) + " at a shuffle (" + b.file + ":" + std::to_string(b.line) + ")";
    }
  }
  g_run.current = nullptr;
  fail_run("deadlock: %s; a barrier that some threads never reach", where.c_str());
}

// The priority order of a block's threads, from the seed: 0 in order (warp 0 runs ahead to each
// barrier), 1 reversed (the last warp runs ahead); even seeds a random warp runs ahead, odd seeds
// all threads in a random order.
void schedule_block(std::mt19937_64& rng) {
  const int n = g_run.threads;
  g_run.order.resize(n);
  for (int t = 0; t < n; ++t)
    g_run.order[t] = t;
  if (g_seed == 1) {
    std::reverse(g_run.order.begin(), g_run.order.end());
  } else if (g_seed > 1 && g_seed % 2 == 1) {
    std::shuffle(g_run.order.begin(), g_run.order.end(), rng);
  } else if (g_seed > 1) {
    std::vector<int> warps((n + 31) / 32);
    for (size_t w = 0; w < warps.size(); ++w)
      warps[w] = static_cast<int>(w);
    std::shuffle(warps.begin(), warps.end(), rng);
    auto next = g_run.order.begin();
    for (int w : warps) {
      const auto lanes = next;
      for (int t = 32 * w; t < std::min(n, 32 * w + 32); ++t)
        *next++ = t;
      std::shuffle(lanes, next, rng);
    }
  }
  for (int r = 0; r < n; ++r)
    g_run.rank[g_run.order[r]] = r;
}

void run_block(std::mt19937_64& rng) {
  const int n = g_run.threads;
  g_run.rank.resize(n);
  schedule_block(rng);
  g_run.ready.resize((n + 63) / 64);
  set_all_ready();
  g_run.block = Barrier{n};
  g_run.warps.assign((n + 31) / 32, Barrier{});
  for (int w = 0; w < static_cast<int>(g_run.warps.size()); ++w)
    g_run.warps[w].members = std::min(32, n - 32 * w);
  g_run.exited = 0;
  // Shared memory starts as NaN in every block.
  if (__start_cuda_emu_shared) {
    std::memset(__start_cuda_emu_shared, 0xFF, __stop_cuda_emu_shared - __start_cuda_emu_shared);
  }
  if (__builtin_setjmp(g_scheduler) == 0) run_next();
  if (g_run.exited < n) deadlock();
  g_run.current = nullptr;
}

void new_fiber() {
  auto f = std::make_unique<Fiber>();
  const size_t page = sysconf(_SC_PAGESIZE);
  void* mem = mmap(nullptr, kStackBytes + page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (mem == MAP_FAILED) fail_run("no memory for a thread's stack");
  mprotect(mem, page, PROT_NONE);  // the stack grows down onto this guard page
  f->stack = mem;
  getcontext(&f->start);
  f->start.uc_stack.ss_sp = static_cast<char*>(mem) + page;
  f->start.uc_stack.ss_size = kStackBytes;
  f->start.uc_link = nullptr;
  makecontext(&f->start, fiber_main, 0);
  g_fibers.push_back(std::move(f));
}

bool valid_launch(dim3 grid, dim3 block) {
  const unsigned long long threads = 1ULL * block.x * block.y * block.z;
  return threads >= 1 && threads <= 1024 && block.x <= 1024 && block.y <= 1024 && block.z <= 64 &&
         grid.x >= 1 && grid.y >= 1 && grid.z >= 1 && grid.x <= 0x7fffffffu && grid.y <= 65535 &&
         grid.z <= 65535;
}

void run_grid(const char* name, dim3 grid, dim3 block, const std::function<void()>& body) {
  if (g_run.thread_body) fail_run("a kernel launch from inside a kernel");
  const int threads = static_cast<int>(block.x * block.y * block.z);
  while (static_cast<int>(g_fibers.size()) < threads)
    new_fiber();
  g_run.kernel = name;
  g_run.thread_body = &body;
  g_run.threads = threads;
  gridDim = grid;
  blockDim = block;
  for (int t = 0; t < threads; ++t) {
    Fiber& f = *g_fibers[t];
    f.thread = t;
    f.index = {t % block.x, t / block.x % block.y, t / (block.x * block.y)};
  }
  const unsigned long long blocks = 1ULL * grid.x * grid.y * grid.z;
  std::mt19937_64 rng(g_seed * 0x9E3779B97F4A7C15ULL + ++g_launches);
  std::vector<unsigned long long> order(blocks);
  for (unsigned long long b = 0; b < blocks; ++b)
    order[b] = b;
  if (g_seed == 1) std::reverse(order.begin(), order.end());
  if (g_seed > 1) std::shuffle(order.begin(), order.end(), rng);
  for (unsigned long long b : order) {
    blockIdx = {static_cast<unsigned>(b % grid.x), static_cast<unsigned>(b / grid.x % grid.y),
                static_cast<unsigned>(b / (1ULL * grid.x * grid.y))};
    run_block(rng);
  }
  g_run.thread_body = nullptr;
  g_run.kernel = nullptr;
}

// ---- 2. Device memory ----------------------------------------------------------------------

struct Allocation {
  char* mapping;
  size_t mapping_bytes;
  size_t bytes;
};
std::map<uintptr_t, Allocation> g_memory;  // by the address cudaMalloc returned

// The allocation that holds [p, p + bytes), or null.
const Allocation* device_range(const void* p, size_t bytes) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  auto it = g_memory.upper_bound(a);
  if (it == g_memory.begin()) return nullptr;
  --it;
  return a + bytes <= it->first + it->second.bytes ? &it->second : nullptr;
}

// A fault on a guard page: an access past the end of a cudaMalloc block, almost always.
void on_segv(int, siginfo_t* info, void*) {
  char msg[256];
  const int n = std::snprintf(msg, sizeof msg,
                              "cuda_emu: %s: invalid memory access at %p (past the end of a "
                              "cudaMalloc block, or a thread's stack overflowed)\n",
                              g_run.kernel ? g_run.kernel : "host code", info->si_addr);
  if (write(2, msg, n) < 0) {
  }
  signal(SIGSEGV, SIG_DFL);
  std::abort();
}

// ---- 3. The host API -----------------------------------------------------------------------

thread_local cudaError_t g_last_error = cudaSuccess;
const int g_devices = static_cast<int>(env_number("CUDA_EMU_DEVICES", 1));
// CUDA_EMU_DRIVER=none plays a machine with the CUDA libraries but no driver.
const bool g_no_driver = [] {
  const char* v = std::getenv("CUDA_EMU_DRIVER");
  return v && std::string(v) == "none";
}();
const bool g_eager = [] {
  const char* v = std::getenv("CUDA_MODULE_LOADING");
  return v && std::string(v) == "EAGER";
}();
std::set<const void*> g_loaded;
std::string g_failing_kernel;

cudaError_t fail(cudaError_t err) {
  g_last_error = err;
  return err;
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace
}  // namespace cuda_emu

using namespace cuda_emu;

struct CUgraph_st {
  std::vector<std::function<void()>> nodes;  // in capture order
};
struct CUgraphExec_st {
  std::vector<std::function<void()>> nodes;
};
struct CUstream_st {
  std::unique_ptr<CUgraph_st> capture;  // non-null while capturing
  bool invalidated = false;
};
struct CUevent_st {
  double ms = -1;  // host clock when recorded; -1: never
};

namespace cuda_emu {
namespace {

std::set<CUstream_st*> g_streams;

CUstream_st* capturing_stream() {
  for (CUstream_st* s : g_streams) {
    if (s->capture) return s;
  }
  return nullptr;
}

// A call that a capture forbids (a synchronous one, or a host copy) fails while any stream
// captures, and invalidates that capture: cudaStreamEndCapture then reports it.
bool refused_by_capture() {
  CUstream_st* s = capturing_stream();
  if (!s) return false;
  s->invalidated = true;
  fail(cudaErrorStreamCaptureUnsupported);
  return true;
}

// Runs `op` now, or records it into the stream's capture.
cudaError_t issue(cudaStream_t s, std::function<void()> op) {
  if (s && s->capture) {
    if (!s->invalidated) s->capture->nodes.push_back(std::move(op));
    return cudaSuccess;
  }
  if (!s && refused_by_capture()) return cudaErrorStreamCaptureUnsupported;
  op();
  return cudaSuccess;
}

}  // namespace

void launch_grid(const void* kernel, const char* name, dim3 grid, dim3 block, cudaStream_t stream,
                 std::function<void()> thread) {
  cudaError_t err = cudaSuccess;
  if (!valid_launch(grid, block)) err = cudaErrorInvalidConfiguration;
  if (g_failing_kernel == name) err = cudaErrorLaunchOutOfResources;
  if (!err && stream && stream->capture && !g_eager && !g_loaded.count(kernel)) {
    std::fprintf(stderr,
                 "cuda_emu: %s is first loaded inside a stream capture, which drivers before "
                 "CUDA 12.3 refuse with lazy loading: load it before the capture\n",
                 name);
    err = cudaErrorStreamCaptureUnsupported;
  }
  if (err) {
    if (stream && stream->capture) stream->invalidated = true;
    fail(err);
    return;
  }
  g_loaded.insert(kernel);
  issue(stream,
        [name, grid, block, body = std::move(thread)] { run_grid(name, grid, block, body); });
}

cudaError_t load_kernel(const void* kernel) {
  g_loaded.insert(kernel);
  return cudaSuccess;
}

void sync_block(const char* file, int line) {
  if (!g_run.current) fail_run("__syncthreads outside a kernel");
  arrive(g_run.block, "__syncthreads", file, line, set_all_ready);
}

uint64_t shuffle_down(unsigned int mask, uint64_t bits, unsigned int delta, int width,
                      const char* file, int line) {
  if (!g_run.current) fail_run("a warp shuffle outside a kernel");
  Fiber& f = *g_run.current;
  const int w = f.thread / 32;
  Barrier& warp = g_run.warps[w];
  if (mask != 0xffffffffu || warp.members != 32) {
    fail_run(
        "a shuffle with mask %#x in a warp of %d lanes (%s:%d): only full warps with a full "
        "mask are emulated",
        mask, warp.members, file, line);
  }
  f.value = bits, f.delta = delta, f.width = width;
  arrive(warp, "a warp shuffle", file, line, [w] {
    // Every lane has offered its value: each takes lane + delta's, or keeps its own past the
    // end of its width-lane segment.
    uint64_t offered[32];
    for (int lane = 0; lane < 32; ++lane)
      offered[lane] = g_fibers[32 * w + lane]->value;
    for (int lane = 0; lane < 32; ++lane) {
      Fiber& l = *g_fibers[32 * w + lane];
      const int src = lane % l.width + static_cast<int>(l.delta) < l.width
                          ? lane + static_cast<int>(l.delta)
                          : lane;
      l.value = offered[src];
      set_ready(32 * w + lane);
    }
  });
  return f.value;
}

long long clock() {
  return std::chrono::steady_clock::now().time_since_epoch().count();
}

unsigned long long schedule_seed() {
  return g_seed;
}

void fail_launches_of(const char* kernel_name) {
  g_failing_kernel = kernel_name ? kernel_name : "";
}

void forget_loaded_kernels() {
  g_loaded.clear();
}

}  // namespace cuda_emu

const char* cudaGetErrorString(cudaError_t err) {
  switch (err) {
    case cudaSuccess:
      return "no error";
    case cudaErrorInvalidValue:
      return "invalid argument";
    case cudaErrorMemoryAllocation:
      return "out of memory";
    case cudaErrorInvalidConfiguration:
      return "invalid configuration argument";
    case cudaErrorInsufficientDriver:
      return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorNoDevice:
      return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice:
      return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle:
      return "invalid resource handle";
    case cudaErrorIllegalState:
      return "the operation cannot be performed in the present state";
    case cudaErrorLaunchOutOfResources:
      return "too many resources requested for launch";
    case cudaErrorStreamCaptureUnsupported:
      return "operation not permitted when stream is capturing";
    case cudaErrorStreamCaptureInvalidated:
      return "operation failed due to a previous error during capture";
  }
  return "unknown error";
}

cudaError_t cudaGetLastError() {
  const cudaError_t err = g_last_error;
  g_last_error = cudaSuccess;
  return err;
}

cudaError_t cudaGetDeviceCount(int* count) {
  *count = g_no_driver ? 0 : g_devices;
  if (g_no_driver) return fail(cudaErrorInsufficientDriver);
  return g_devices > 0 ? cudaSuccess : fail(cudaErrorNoDevice);
}

cudaError_t cudaSetDevice(int device) {
  return device >= 0 && device < g_devices ? cudaSuccess : fail(cudaErrorInvalidDevice);
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (device < 0 || device >= g_devices) return fail(cudaErrorInvalidDevice);
  *prop = cudaDeviceProp{};
  std::snprintf(prop->name, sizeof prop->name, "EMULATED on the CPU by tests/cuda_emu: not a GPU");
  prop->totalGlobalMem = size_t{1} << 30;
  prop->multiProcessorCount = 1;
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int* version) {
  *version = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int* version) {
  *version = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() {
  return refused_by_capture() ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

cudaError_t cudaMalloc(void** ptr, size_t bytes) {
  *ptr = nullptr;
  if (refused_by_capture()) return cudaErrorStreamCaptureUnsupported;
  if (bytes == 0) return cudaSuccess;
  static const bool handler = [] {
    struct sigaction sa {};
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, nullptr);
    return true;
  }();
  (void)handler;
  // The block ends (256-byte aligned, as CUDA aligns) just before a page that cannot be touched;
  // the bytes between its end and that page are 0xFF too.
  const size_t page = sysconf(_SC_PAGESIZE);
  const size_t aligned = (bytes + 255) / 256 * 256;
  const size_t data = (aligned + page - 1) / page * page;
  void* map =
      mmap(nullptr, data + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return fail(cudaErrorMemoryAllocation);
  char* mapping = static_cast<char*>(map);
  std::memset(mapping, 0xFF, data);
  mprotect(mapping + data, page, PROT_NONE);
  char* p = mapping + data - aligned;
  g_memory[reinterpret_cast<uintptr_t>(p)] = Allocation{mapping, data + page, bytes};
  *ptr = p;
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  if (!ptr) return cudaSuccess;
  if (refused_by_capture()) return cudaErrorStreamCaptureUnsupported;
  auto it = g_memory.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == g_memory.end()) return fail(cudaErrorInvalidValue);
  munmap(it->second.mapping, it->second.mapping_bytes);
  g_memory.erase(it);
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* ptr, int value, size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return cudaSuccess;
  if (!device_range(ptr, bytes)) return fail(cudaErrorInvalidValue);
  return issue(stream, [=] { std::memset(ptr, value, bytes); });
}

cudaError_t cudaMemset(void* ptr, int value, size_t bytes) {
  return cudaMemsetAsync(ptr, value, bytes, nullptr);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  if (bytes == 0) return cudaSuccess;
  const bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if ((dst_device && !device_range(dst, bytes)) || (src_device && !device_range(src, bytes))) {
    return fail(cudaErrorInvalidValue);
  }
  // Host memory here is pageable: a capture cannot record a copy to or from it.
  if (kind != cudaMemcpyDeviceToDevice && refused_by_capture()) {
    return cudaErrorStreamCaptureUnsupported;
  }
  return issue(stream, [=] { std::memcpy(dst, src, bytes); });
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  return cudaMemcpyAsync(dst, src, bytes, kind, nullptr);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int) {
  *stream = new CUstream_st;
  g_streams.insert(*stream);
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if (!g_streams.erase(stream)) return fail(cudaErrorInvalidResourceHandle);
  delete stream;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t) {
  return refused_by_capture() ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  *event = new CUevent_st;
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return issue(stream, [event] { event->ms = now_ms(); });
}

cudaError_t cudaEventSynchronize(cudaEvent_t) {
  return refused_by_capture() ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (start->ms < 0 || end->ms < 0) return fail(cudaErrorInvalidResourceHandle);
  *ms = static_cast<float>(end->ms - start->ms);
  return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode) {
  if (!stream) return fail(cudaErrorStreamCaptureUnsupported);  // the legacy stream cannot
  if (capturing_stream()) return fail(cudaErrorIllegalState);
  stream->capture = std::make_unique<CUgraph_st>();
  stream->invalidated = false;
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  *graph = nullptr;
  if (!stream || !stream->capture) return fail(cudaErrorIllegalState);
  std::unique_ptr<CUgraph_st> captured = std::move(stream->capture);
  if (stream->invalidated) return fail(cudaErrorStreamCaptureInvalidated);
  *graph = captured.release();
  return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status) {
  *status = !stream || !stream->capture ? cudaStreamCaptureStatusNone
            : stream->invalidated       ? cudaStreamCaptureStatusInvalidated
                                        : cudaStreamCaptureStatusActive;
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long) {
  if (!graph) return fail(cudaErrorInvalidValue);
  *exec = new CUgraphExec_st{graph->nodes};
  return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  if (!exec) return fail(cudaErrorInvalidValue);
  if (stream && stream->capture) return fail(cudaErrorStreamCaptureUnsupported);
  for (const auto& node : exec->nodes)
    node();
  return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  if (!graph) return fail(cudaErrorInvalidValue);
  delete graph;
  return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  if (!exec) return fail(cudaErrorInvalidValue);
  delete exec;
  return cudaSuccess;
}
