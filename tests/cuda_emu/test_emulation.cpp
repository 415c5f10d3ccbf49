// The emulation itself (tests/cuda_emu/): each kind of mistake that it promises to catch is made
// on purpose by a probe kernel (probes.cu) and caught; and what it emulates of streams, capture
// and graphs behaves as CUDA 12 documents it. The fatal cases run in a child process.
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "../unit/catch.hpp"
#include "cuda_emu_control.hpp"
#include "probes.hpp"

namespace {

using probes::kThreads;

struct Death {
  bool aborted;        // ended by SIGABRT, as the emulation stops a run
  std::string stderr;  // what it said
};

// Runs `body` in a child process and reports how it ended.
Death run_in_child(const std::function<void()>& body) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    body();
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
    text.append(buf, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return {WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, text};
}

template <class T>
T* device(size_t n) {
  T* p = nullptr;
  REQUIRE(cudaMalloc(&p, n * sizeof(T)) == cudaSuccess);
  return p;
}

std::vector<float> download(const float* d, size_t n) {
  std::vector<float> h(n);
  REQUIRE(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
  return h;
}

}  // namespace

TEST_CASE("emulation: cudaMalloc memory starts as NaN", "[emulation]") {
  float* d = device<float>(100);
  for (float v : download(d, 100))
    CHECK(std::isnan(v));
  cudaFree(d);
}

TEST_CASE("emulation: a missing __syncthreads reads shared memory nobody wrote (NaN)",
          "[emulation]") {
  const int blocks = 3, n = blocks * kThreads;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i)
    in[i] = static_cast<float>(i);
  float *d_in = device<float>(n), *d_out = device<float>(n);
  REQUIRE(cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);

  probes::reverse(d_in, d_out, blocks, true);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  const std::vector<float> good = download(d_out, n);
  for (int i = 0; i < n; ++i)
    CHECK(good[i] == in[i / kThreads * kThreads + kThreads - 1 - i % kThreads]);

  // Without the barrier, a thread runs on to its read before the thread that writes that cell.
  probes::reverse(d_in, d_out, blocks, false);
  int nan = 0;
  for (float v : download(d_out, n))
    nan += std::isnan(v);
  CHECK(nan > 0);
  cudaFree(d_in);
  cudaFree(d_out);
}

TEST_CASE("emulation: warp shuffles add as a GPU's do", "[emulation]") {
  std::vector<float> in(kThreads);
  for (int i = 0; i < kThreads; ++i)
    in[i] = static_cast<float>(i + 1);
  float *d_in = device<float>(kThreads), *d_out = device<float>(2);
  REQUIRE(cudaMemcpy(d_in, in.data(), sizeof(float) * kThreads, cudaMemcpyHostToDevice) ==
          cudaSuccess);
  probes::warp_sums(d_in, d_out, nullptr);
  const std::vector<float> sums = download(d_out, 2);
  CHECK(sums[0] == 528.0f);   // 1 + ... + 32
  CHECK(sums[1] == 1552.0f);  // 33 + ... + 64
  cudaFree(d_in);
  cudaFree(d_out);
}

TEST_CASE("emulation: a __syncthreads that half the block skips stops the run", "[emulation]") {
  const Death d = run_in_child([] { probes::divergent_barrier(); });
  CHECK(d.aborted);
  CHECK(d.stderr.find("divergent_barrier_kernel") != std::string::npos);
  CHECK(d.stderr.find("__syncthreads") != std::string::npos);
  CHECK(d.stderr.find("probes.cu:") != std::string::npos);
}

TEST_CASE("emulation: a lane that leaves before a shuffle stops the run", "[emulation]") {
  const Death d = run_in_child([] {
    float* out = nullptr;
    cudaMalloc(&out, sizeof(float) * kThreads);
    probes::lane_leaves_before_shuffle(out);
  });
  CHECK(d.aborted);
  CHECK(d.stderr.find("lane_leaves_kernel") != std::string::npos);
  CHECK(d.stderr.find("shuffle") != std::string::npos);
}

TEST_CASE("emulation: a write past the end of cudaMalloc memory stops the run", "[emulation]") {
  const Death d = run_in_child([] {
    float* out = nullptr;
    cudaMalloc(&out, sizeof(float) * 1024);  // 4096 bytes: the next byte is on the guard page
    probes::write_past_the_end(out, 1024);
  });
  CHECK(d.aborted);
  CHECK(d.stderr.find("past_the_end_kernel: invalid memory access") != std::string::npos);
}

TEST_CASE("emulation: a launch of too many threads fails as on a GPU", "[emulation]") {
  float* out = device<float>(2048);
  probes::too_many_threads(out);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  CHECK(cudaGetLastError() == cudaSuccess);  // read once, then cleared
  cudaFree(out);
}

TEST_CASE("emulation: a captured launch runs only when its graph is launched", "[emulation]") {
  float *d_in = device<float>(kThreads), *d_out = device<float>(kThreads);
  REQUIRE(cudaMemset(d_in, 0, sizeof(float) * kThreads) == cudaSuccess);
  probes::reverse(d_in, d_out, 1, true);                                      // loads the kernel
  REQUIRE(cudaMemset(d_out, 0xFF, sizeof(float) * kThreads) == cudaSuccess);  // NaN again
  cudaStream_t s;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
  probes::reverse(d_in, d_out, 1, true, s);
  cudaStreamCaptureStatus status;
  REQUIRE(cudaStreamIsCapturing(s, &status) == cudaSuccess);
  CHECK(status == cudaStreamCaptureStatusActive);
  cudaGraph_t graph;
  REQUIRE(cudaStreamEndCapture(s, &graph) == cudaSuccess);
  CHECK(std::isnan(download(d_out, kThreads)[0]));  // not run yet
  cudaGraphExec_t exec;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(graph) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
  CHECK(download(d_out, kThreads)[0] == 0.0f);
  cudaGraphExecDestroy(exec);

  SECTION("a call that a capture forbids fails and invalidates the capture") {
    REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
    CHECK(cudaStreamSynchronize(s) == cudaErrorStreamCaptureUnsupported);
    REQUIRE(cudaStreamIsCapturing(s, &status) == cudaSuccess);
    CHECK(status == cudaStreamCaptureStatusInvalidated);
    CHECK(cudaStreamEndCapture(s, &graph) == cudaErrorStreamCaptureInvalidated);
    CHECK(graph == nullptr);
    CHECK(cudaStreamSynchronize(s) == cudaSuccess);  // the capture is over
  }
  SECTION("a kernel first launched inside a capture fails; loading it before does not") {
    cuda_emu::forget_loaded_kernels();  // as in a new process
    REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
    probes::warp_sums(d_in, d_out, s);
    CHECK(cudaGetLastError() == cudaErrorStreamCaptureUnsupported);
    CHECK(cudaStreamEndCapture(s, &graph) == cudaErrorStreamCaptureInvalidated);
    cudaGetLastError();
    probes::load_warp_sums();  // cudaFuncGetAttributes, as fused/step.cu does
    REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
    probes::warp_sums(d_in, d_out, s);
    CHECK(cudaGetLastError() == cudaSuccess);
    REQUIRE(cudaStreamEndCapture(s, &graph) == cudaSuccess);
    cudaGraphDestroy(graph);
  }
  cudaStreamDestroy(s);
  cudaFree(d_in);
  cudaFree(d_out);
}
