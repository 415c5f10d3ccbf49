#include "step.hpp"

#include <algorithm>

#include "gradient.hpp"

namespace lenet {

Range param_slice(int parts, int part) {
  constexpr int kLineFloats = 16;
  constexpr int kLines = (kParamCount + kLineFloats - 1) / kLineFloats;
  const Range lines = share(kLines, parts, part);
  return {std::min(kParamCount, lines.begin * kLineFloats),
          std::min(kParamCount, lines.end * kLineFloats)};
}

void sum_chunks(const ChunkSum* chunks, int n, float* grad, Range slice) {
  std::fill(grad + slice.begin, grad + slice.end, 0.0f);
  for (int c = 0; c < n; ++c) {
    for (int i = slice.begin; i < slice.end; ++i)
      grad[i] += chunks[c].grad[i];
  }
}

void sum_and_update(const ChunkSum* chunks, int n, float* grad, float* params, float lr, int batch,
                    Range slice, LayerTimes* times) {
  timed(times, &LayerTimes::reduce, [&] { sum_chunks(chunks, n, grad, slice); });
  timed(times, &LayerTimes::update,
        [&] { sgd_update(params + slice.begin, grad + slice.begin, lr, batch, slice.size()); });
}

void add_losses(const ChunkSum* chunks, int n, double& loss_sum) {
  for (int c = 0; c < n; ++c)
    loss_sum += chunks[c].loss;
}

void sgd_step(Kernels& k, float* params, const Dataset& data, const std::vector<int32_t>& order,
              int first, int count, float lr, std::vector<ChunkSum>& chunks, float* grad,
              double& loss_sum, LayerTimes* times) {
  const int n = (count + kChunk - 1) / kChunk;
  if (n > static_cast<int>(chunks.size())) chunks.resize(n);  // once, at the largest batch
  for (int c = 0; c < n; ++c) {
    const int start = first + c * kChunk;
    const int size = std::min(kChunk, first + count - start);
    chunks[c].loss = chunk_gradient(k, params, data, order.data() + start, size,
                                    chunk_at(order, start + size), chunks[c].grad, times);
  }
  add_losses(chunks.data(), n, loss_sum);
  sum_and_update(chunks.data(), n, grad, params, lr, count, kAllParams, times);
}

}  // namespace lenet
