// lenet-bench-layers: each layer's forward and backward pass, alone, for every kernels in
// this build, on one group of samples held in cache (kernels.hpp: one sample for ref and simd,
// a chunk of 16 side by side for lanes), the whole
// sample as training runs it (a chunk of 16), and the step's sum of chunk sums and update at
// B = 32 (reduce/B32, update/B32): CPU nanoseconds per sample (the ns/sample column),
// GFLOP/s and %peak (every layer and the sample) against one core's peak, measured when the
// program starts; the header names the CPU (cpu:) and that peak (peak:). The row `sigmoids`
// times the sample's sigmoids alone, work the FLOP count does not see, and reports the ceiling
// they put on the sample's %peak; each sample row's %ceiling is its share of that ceiling
// (measured at start too: ceiling:). What the whole training loop costs per layer is what --timing
// prints; the two are compared in docs/performance.md.
//
//   build-simd/bench/lenet-bench-layers --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true      (medians of 5; see --help for filters)
#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "../common/gradient.hpp"
#include "../common/kernels_registry.hpp"
#include "../common/network.hpp"
#include "../common/rng.hpp"
#include "../common/step.hpp"
#include "../common/vec/exp_vectors.hpp"
#include "../common/vec/vec.hpp"
#include "checked.hpp"

namespace {

using namespace lenet;

// One core's fp32 peak with this build's vectors, measured when the program starts
// (measure_peak): machines of one kind differ (224 GFLOP/s on one AVX-512 machine, 284 on
// another the same day), so a share of a fixed figure would mislead.
double peak_gflops = 0;

// Useful FLOP per sample and layer: 2 per multiply-add of the spec (docs/performance.md);
// the sigmoids, derivatives and softmax are not counted.
constexpr double kC1Flop = 2.0 * kC1Size * kC1Kernel * kC1Kernel;  // 172,800 each way
constexpr double kS1Flop = 2.0 * kC1Size;                          // 6,912 each way
constexpr double kFForwardFlop = 2.0 * kW3Size;                    // 4,320
constexpr double kFBackwardFlop = 2.0 * 2 * kW3Size;               // dW3 and g2: 8,640
constexpr double kSampleFlop =
    2 * kC1Flop + 2 * kS1Flop + kFForwardFlop + kFBackwardFlop;  // 372,384

// This thread's CPU time: what the CPU column shows, unaffected by time spent descheduled.
double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// One chunk of kChunk random images of label 3.
struct Sample {
  std::vector<float> params = init_params(1);
  Dataset chunk;
  std::vector<int32_t> order = std::vector<int32_t>(kChunk);
  std::vector<float> grad = std::vector<float>(kParamCount);
  int label = 3;
  Sample() {
    SplitMix64 rng(7);  // timings do not depend on the pixel values: no data-dependent branches
    std::vector<uint8_t> bytes(kChunk * kImageSize);
    for (uint8_t& p : bytes)
      p = static_cast<uint8_t>(rng.next() >> 56);
    chunk.pixels = Pixels(std::move(bytes));
    chunk.labels.assign(kChunk, static_cast<uint8_t>(label));
    chunk.count = kChunk;
    for (int s = 0; s < kChunk; ++s)
      order[s] = s;
  }
  // The gradient sum of the first n samples, as training computes it (common/gradient.hpp).
  double train_chunk(Kernels& k, int n = kChunk) {
    return chunk_gradient(k, params.data(), chunk, order.data(), n, {}, grad.data(), nullptr);
  }
};

// Times f(), which computes `samples` samples, over the benchmark's iterations: CPU ns per
// sample, and GFLOP/s and %peak from `flop`, the useful FLOP of one sample.
template <class F>
void measure(benchmark::State& state, double flop, int samples, F&& f) {
  const double t0 = cpu_seconds();
  for (auto _ : state) {
    f();
    benchmark::ClobberMemory();
  }
  const double seconds = cpu_seconds() - t0;
  const double n = static_cast<double>(state.iterations()) * samples;
  state.counters["ns/sample"] = seconds / n * 1e9;
  state.counters["GFLOP/s"] = flop * n / seconds * 1e-9;
  state.counters["%peak"] = 100.0 * state.counters["GFLOP/s"] / peak_gflops;
}

// Runs `step` on kernels that have just trained a chunk of one group (so every buffer is
// filled). samples: computed by one step; 0: the kernels' group.
void run(benchmark::State& state, const std::string& kernels, double flop, int samples,
         const std::function<void(Kernels&, Sample&)>& step) {
  Sample s;
  auto k = make_kernels(kernels);
  const int group = std::min(k->group(), kChunk);
  s.train_chunk(*k, group);
  measure(state, flop, samples > 0 ? samples : group, [&] { step(*k, s); });
}

// The machine's peak for this build's vectors: independent chains of vector multiply-adds
// (enough of them to cover the FMA units' latency), nothing loaded or stored.
constexpr int kChains = 10;  // 2 FMA units x 4-5 cycles of latency; fits 16 registers
constexpr int kRounds = 1000;
constexpr double kBlockFlop = 2.0 * kChains * kRounds * simd::kLanes;

// `blocks` times kRounds multiply-adds on each chain. The chains come in and go out through
// memory, so the compiler cannot fold any of it away.
[[gnu::noinline]] void fma_blocks(simd::vfloat (&acc)[kChains], long blocks) {
  const simd::vfloat m = simd::splat(0.999f), a = simd::splat(1e-3f);
  for (long b = 0; b < blocks; ++b) {
    for (int r = 0; r < kRounds; ++r) {
      for (int c = 0; c < kChains; ++c)
        acc[c] = acc[c] * m + a;
    }
    for (int c = 0; c < kChains; ++c)
      acc[c] = simd::in_register(acc[c]);
  }
}

// The CPU seconds of the fastest of 10 runs of f(): the one least disturbed by other work.
template <class F>
double fastest_of_10(F&& f) {
  double best = 1e9;
  for (int run = 0; run < 10; ++run) {
    const double t0 = cpu_seconds();
    f();
    best = std::min(best, cpu_seconds() - t0);
  }
  return best;
}

// kBlocks blocks a run, about 20 ms.
double measure_peak() {
  constexpr long kBlocks = 2000;
  simd::vfloat acc[kChains] = {};
  const double seconds = fastest_of_10([&] { fma_blocks(acc, kBlocks); });
  benchmark::DoNotOptimize(acc);
  return kBlocks * kBlockFlop / seconds * 1e-9;
}

// The CPU, as lscpu names it from /proc/cpuinfo's first processor: the model name and, since a
// virtual machine's name can be as vague as "Intel(R) Xeon(R) Processor", family and model
// (x86) or implementer and part (ARM), which tell the core's generation, and so its FMA units.
std::string cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  std::map<std::string, std::string> field;
  for (std::string line; std::getline(in, line) && !line.empty();) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    field[key] = line.substr(std::min(line.size(), colon + 2));
  }
  std::string name = field.count("model name") ? field["model name"] : "unknown model";
  if (field.count("cpu family") && field.count("model"))
    name += ", family " + field["cpu family"] + " model " + field["model"];
  if (field.count("CPU implementer") && field.count("CPU part"))
    name += ", implementer " + field["CPU implementer"] + " part " + field["CPU part"];
  return field.empty() ? "unknown (no /proc/cpuinfo)" : name;
}

// The same loop as a benchmark: how steady the peak stays over the run.
void peak_fma(benchmark::State& state) {
  simd::vfloat acc[kChains] = {};
  const double t0 = cpu_seconds();
  for (auto _ : state)
    fma_blocks(acc, 1);
  const double seconds = cpu_seconds() - t0;
  benchmark::DoNotOptimize(acc);
  state.counters["GFLOP/s"] = kBlockFlop * static_cast<double>(state.iterations()) / seconds * 1e-9;
  state.counters["%peak"] = 100.0 * state.counters["GFLOP/s"] / peak_gflops;
}

// The sample's sigmoids alone (C1's 3,456 and S1's 216), as simd and lanes compute them
// (vec/exp_vectors.hpp: one exp, an add and a division each, all on the FMA units' ports),
// kLanes samples at a time: 153 passes over one C1 row of kLanes samples (24 vectors, in L1),
// as lanes runs them a row at a time. The FLOP count does not see this work, so it puts a
// ceiling on the sample: the %peak a sample would reach if its multiply-adds ran at the peak
// and nothing but these sigmoids took any time (docs/performance.md, "The ceiling").
struct SigmoidRows {
  static constexpr int kRow = kC1Side * simd::kLanes;
  static constexpr int kPasses = (kC1Size + kS1Size) / kC1Side;
  static_assert(kPasses * kC1Side == kC1Size + kS1Size);
  std::vector<float> z = std::vector<float>(kRow), a = std::vector<float>(kRow);

  SigmoidRows() {
    SplitMix64 rng(7);
    for (float& v : z)
      v = 16.0f * rng.uniform01() - 8.0f;  // timings do not depend on the values
  }
  void compute() {  // kLanes samples' sigmoids
    for (int pass = 0; pass < kPasses; ++pass)
      simd::sigmoids(z.data(), a.data(), kRow);
  }
};

double ceiling_pct(double sigmoid_seconds_per_sample) {
  const double mac_seconds = kSampleFlop / (peak_gflops * 1e9);
  return 100.0 * mac_seconds / (mac_seconds + sigmoid_seconds_per_sample);
}

void sigmoids(benchmark::State& state) {
  SigmoidRows rows;
  measure(state, 0, simd::kLanes, [&] { rows.compute(); });
  state.counters["ceiling %peak"] = ceiling_pct(state.counters["ns/sample"] * 1e-9);
}

// The ceiling when the program starts, as the peak (runs of about 10 ms), so that each sample
// row can say how near it comes: %ceiling = %peak / the ceiling.
double ceiling_at_start = 0;

double measure_ceiling() {
  constexpr int kReps = 1000;
  SigmoidRows rows;
  const double seconds = fastest_of_10([&] {
    for (int rep = 0; rep < kReps; ++rep)
      rows.compute();
  });
  benchmark::DoNotOptimize(rows.a.data());
  return ceiling_pct(seconds / (kReps * simd::kLanes));
}

// The step's work after the chunks (common/step.hpp) at B = 32, per sample: `reduce` adds the
// batch's two chunk sums in chunk order, `update` applies G to the parameters. With the layer rows
// and `sample`, they make up the epoch's compute: docs/performance.md, "Epoch budget".
constexpr int kBatch = 32;

void step_reduce(benchmark::State& state) {
  std::vector<ChunkSum> chunks(kBatch / kChunk);
  for (ChunkSum& c : chunks)
    std::fill(c.grad, c.grad + kParamCount, 1e-3f);
  std::vector<float> grad(kParamCount);
  measure(state, 0, kBatch,
          [&] { sum_chunks(chunks.data(), kBatch / kChunk, grad.data(), kAllParams); });
}

void step_update(benchmark::State& state) {
  std::vector<float> params = init_params(1), grad(kParamCount, 1e-3f);
  measure(state, 0, kBatch, [&] { sgd_update(params.data(), grad.data(), 1e-9f, kBatch); });
}

struct Layer {
  const char* name;
  double flop;
  std::function<void(Kernels&, Sample&)> step;
  int samples = 0;  // computed by one step; 0: the kernels' group
};

// Each layer over the kernels' first group of the chunk.
const std::vector<Layer>& layers() {
  static const std::vector<Layer> all = {
      {"input", 0, [](Kernels& k, Sample&) { k.load_input(0); }},
      {"c1_forward", kC1Flop, [](Kernels& k, Sample& s) { k.c1_forward(s.params.data(), 0); }},
      {"s1_forward", kS1Flop, [](Kernels& k, Sample& s) { k.s1_forward(s.params.data(), 0); }},
      {"f_forward", kFForwardFlop,
       [](Kernels& k, Sample& s) {
         k.f_forward(s.params.data(), 0);
         benchmark::DoNotOptimize(k.loss(0));
       }},
      {"f_backward", kFBackwardFlop,
       [](Kernels& k, Sample& s) { k.f_backward(s.params.data(), 0); }},
      {"s1_backward", kS1Flop, [](Kernels& k, Sample& s) { k.s1_backward(s.params.data(), 0); }},
      {"c1_backward", kC1Flop, [](Kernels& k, Sample& s) { k.c1_backward(s.params.data(), 0); }},
  };
  return all;
}

// The whole sample as training computes it: a chunk of kChunk through chunk_gradient, each
// sample's gradient summed into the chunk's, per sample. Kernels that compute samples side by
// side (lanes) need a whole chunk to fill their lanes.
const Layer kWholeSample = {
    "sample", kSampleFlop,
    [](Kernels& k, Sample& s) { benchmark::DoNotOptimize(s.train_chunk(k)); }, kChunk};

}  // namespace

int main(int argc, char** argv) {
  if (const int code = run_checked(argc, argv); code >= 0) return code;  // the lab kit's mode
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  peak_gflops = measure_peak();
  benchmark::AddCustomContext("peak", std::to_string(static_cast<int>(peak_gflops)) +
                                          " GFLOP/s measured at start, one core, " +
                                          std::to_string(simd::kLanes) +
                                          "-float vectors (%peak is against this)");
  ceiling_at_start = measure_ceiling();
  char ceiling[128];
  std::snprintf(ceiling, sizeof ceiling,
                "%.1f %%peak measured at start: the most a sample can reach beside its sigmoids "
                "(%%ceiling is against this)",
                ceiling_at_start);
  benchmark::AddCustomContext("ceiling", ceiling);
  benchmark::AddCustomContext("cpu", cpu_name());
  benchmark::RegisterBenchmark("peak_fma", peak_fma);
  // With --benchmark_repetitions: the fastest repetition too, the least disturbed by other
  // programs on a busy machine (beside the median and mean).
  const auto with_min = [](benchmark::internal::Benchmark* b) {
    b->Unit(benchmark::kNanosecond)->ComputeStatistics("min", [](const std::vector<double>& v) {
      return *std::min_element(v.begin(), v.end());
    });
  };
  with_min(benchmark::RegisterBenchmark("sigmoids", sigmoids));
  with_min(benchmark::RegisterBenchmark("reduce/B32", step_reduce));
  with_min(benchmark::RegisterBenchmark("update/B32", step_update));
  for (const std::string& kernels : available_kernels()) {
    const std::string suffix = "/" + kernels;
    for (const Layer& layer : layers()) {
      // lanes' f_backward computes g2 only: dW3's multiplies are in its chunk sum (lanes/sum.cpp).
      const double flop = kernels == "lanes" && std::string(layer.name) == "f_backward"
                              ? layer.flop / 2
                              : layer.flop;
      with_min(benchmark::RegisterBenchmark((layer.name + suffix).c_str(),
                                            [kernels, &layer, flop](benchmark::State& st) {
                                              run(st, kernels, flop, layer.samples, layer.step);
                                            }));
    }
    with_min(benchmark::RegisterBenchmark(
        (kWholeSample.name + suffix).c_str(), [kernels](benchmark::State& st) {
          run(st, kernels, kWholeSample.flop, kWholeSample.samples, kWholeSample.step);
          st.counters["%ceiling"] = 100.0 * st.counters["%peak"] / ceiling_at_start;
        }));
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
