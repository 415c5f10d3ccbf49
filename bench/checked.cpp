#include "checked.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "../common/gradient.hpp"
#include "../common/kernels_registry.hpp"
#include "../common/network.hpp"
#include "../common/rng.hpp"

namespace lenet {

namespace {

int usage(const std::string& why) {
  std::fprintf(stderr,
               "lenet-bench-layers: error: %s (usage: lenet-bench-layers --checked "
               "s1_forward/KERNELS --calls N [--seed S] --out FILE)\n",
               why.c_str());
  return 2;
}

}  // namespace

int run_checked(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--help") {  // then Google Benchmark's own flags
    std::printf(
        "lenet-bench-layers --checked s1_forward/KERNELS --calls N [--seed S] --out FILE\n"
        "  the lab kit's timed loop: N calls, each with other weights, and a checksum of\n"
        "  their results in FILE for the grader (bench/checked.hpp); S (default 1) draws the\n"
        "  weights and which calls are checked: the grader's secret, new in every grading\n\n");
    return -1;
  }
  if (argc < 2 || std::string(argv[1]) != "--checked") return -1;
  const bool seeded = argc == 9 && std::string(argv[5]) == "--seed";
  if ((argc != 7 && !seeded) || std::string(argv[3]) != "--calls" ||
      std::string(argv[argc - 2]) != "--out")
    return usage("expected exactly --checked LAYER/KERNELS --calls N [--seed S] --out FILE");
  const std::string what = argv[2], out = argv[argc - 1];
  const std::string layer = what.substr(0, what.find('/'));
  const std::string kernels =
      what.find('/') == std::string::npos ? "" : what.substr(what.find('/') + 1);
  if (layer != "s1_forward")
    return usage("--checked: only s1_forward is checked, got '" + what + "'");
  char* end = nullptr;
  const long calls = std::strtol(argv[4], &end, 10);
  if (*end != '\0' || calls < 1)
    return usage(std::string("--calls: expected a positive number, got '") + argv[4] + "'");
  uint64_t seed = 1;
  if (seeded) {
    seed = std::strtoull(argv[6], &end, 10);
    if (*end != '\0' || argv[6][0] < '0' || argv[6][0] > '9')
      return usage(std::string("--seed: expected a whole number, got '") + argv[6] + "'");
  }
  std::unique_ptr<Kernels> k;
  try {
    k = make_kernels(kernels);
  } catch (const std::exception& e) {
    return usage(std::string("--checked: ") + e.what());
  }
  std::FILE* f = std::fopen((out + ".tmp").c_str(), "w");
  if (f == nullptr) return usage("--out: cannot write " + out);

  // One sample (a chunk of one) trained once, so that every buffer of the kernels is filled
  // (C1's output, which S1 reads, among them).
  std::vector<float> params = init_params(1), grad(kParamCount);
  std::vector<uint8_t> pixels(kImageSize);
  SplitMix64 rng(7);
  for (uint8_t& p : pixels)
    p = static_cast<uint8_t>(rng.next() >> 56);
  train_sample(*k, params.data(), pixels.data(), 3, grad.data(), nullptr);

  // Call i scales each of S1's 16 weights by one of 16 factors, drawn anew (4 bits a weight), and
  // runs S1: no call repeats an earlier one, and none differs from the last in a few weights
  // only, which an update could follow with less work than S1 itself. About one call in 8,
  // drawn from another stream, then runs F's forward pass, whose loss depends on every S1
  // output, into the checksum: a call that reused an earlier result, or computed nothing, is
  // found out if it is one of them, and no call can tell whether it is. Both streams come from
  // the seed, which the grader draws anew for every grading and gives the reference too: a
  // submission built before the grading cannot know which calls will be checked.
  // The checked losses go into kSums sums, each call's drawn from the same secret stream. One
  // sum alone let skipped calls' errors cancel: a stale result's loss is as likely above the
  // right one as below, and about 1 in 100 such submissions landed within the grader's
  // rounding tolerance. All kSums must now land there at once.
  static_assert(kW2Size * 4 == 64, "one 64-bit draw scales the 16 weights");
  constexpr int kSums = 16;
  const std::vector<float> base(params.begin() + kW2, params.begin() + kW2 + kW2Size);
  double sums[kSums] = {};
  long checked = 0;
  SplitMix64 streams(seed);
  SplitMix64 factors(streams.next()), checks(streams.next());
  for (long i = 0; i < calls; ++i) {
    uint64_t draw = factors.next();
    for (int w = 0; w < kW2Size; ++w, draw >>= 4)
      params[kW2 + w] = base[w] * (0.5f + static_cast<float>(draw & 15) * 0.0625f);
    k->s1_forward(params.data(), 0);
    const uint64_t check = checks.next();
    if ((check & 7) == 0) {
      k->f_forward(params.data(), 0);
      sums[(check >> 3) % kSums] += k->loss(0);
      ++checked;
    }
  }
  // The sums, then their total last: the grader compares each sum and reads the last word.
  std::fprintf(f, "%s calls %ld seed %llu checked %ld sums", what.c_str(), calls,
               static_cast<unsigned long long>(seed), checked);
  double checksum = 0;
  for (double sum : sums) {
    std::fprintf(f, " %.17g", sum);
    checksum += sum;
  }
  std::fprintf(f, " checksum %.17g\n", checksum);
  const bool ok = std::fclose(f) == 0 && std::rename((out + ".tmp").c_str(), out.c_str()) == 0;
  return ok ? 0 : usage("--out: cannot write " + out);
}

}  // namespace lenet
