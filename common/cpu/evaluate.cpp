#include "evaluate.hpp"

#include <algorithm>

#include "../gradient.hpp"

#ifdef _OPENMP
#include <omp.h>
#else
// Built without OpenMP (lenet-serial alone): one thread, the pragmas ignored.
static int omp_get_thread_num() {
  return 0;
}
#endif

namespace lenet {

long long test_losses(const std::vector<Kernels*>& kernels, const float* params,
                      const Dataset& test, Range range, std::vector<float>& losses) {
  long long correct = 0;
  const int n_chunks = (range.size() + kChunk - 1) / kChunk;
#pragma omp parallel for num_threads(kernels.size()) schedule(static) reduction(+ : correct)
  for (int c = 0; c < n_chunks; ++c) {
    const int first = range.begin + c * kChunk, n = std::min(kChunk, range.end - first);
    int predicted[kChunk];
    forward_chunk(*kernels[omp_get_thread_num()], params, test, first, n, losses.data() + first,
                  predicted);
    for (int s = 0; s < n; ++s)
      correct += predicted[s] == test.label(first + s);
  }
  return correct;
}

EvalResult eval_result(const std::vector<float>& losses, long long correct) {
  EvalResult r;
  for (float loss : losses)
    r.loss_sum += loss;
  r.correct = correct;
  r.count = static_cast<long long>(losses.size());
  return r;
}

EvalResult evaluate(const std::vector<Kernels*>& kernels, const float* params, const Dataset& test,
                    std::vector<float>& losses) {
  losses.resize(test.count);
  return eval_result(losses, test_losses(kernels, params, test, {0, test.count}, losses));
}

}  // namespace lenet
