#include "gradient.hpp"

#include <algorithm>

namespace lenet {

float forward_sample(SampleKernels& k, const float* params, const uint8_t* pixels, int label,
                     LayerTimes* times) {
  float loss = 0;
  timed(times, &LayerTimes::c1_forward, [&] {
    k.load_input(pixels);
    k.c1_forward(params);
  });
  timed(times, &LayerTimes::s1_forward, [&] { k.s1_forward(params); });
  timed(times, &LayerTimes::f_forward, [&] { loss = k.f_forward(params, label); });
  return loss;
}

float train_sample(SampleKernels& k, const float* params, const uint8_t* pixels, int label,
                   float* grad, LayerTimes* times) {
  const float loss = forward_sample(k, params, pixels, label, times);
  timed(times, &LayerTimes::f_backward, [&] { k.f_backward(params, grad); });
  timed(times, &LayerTimes::s1_backward, [&] { k.s1_backward(params, grad); });
  timed(times, &LayerTimes::c1_backward, [&] { k.c1_backward(params, grad); });
  return loss;
}

double chunk_gradient(SampleKernels& k, const float* params, const Dataset& data,
                      const int32_t* order, int n, int next, float* chunk_sum, float* sample_grad,
                      LayerTimes* times) {
  // Kernels that train the whole chunk at once (side by side) do; the image after the chunk is
  // fetched meanwhile.
  const uint8_t* images[kChunk];
  int labels[kChunk];
  for (int s = 0; s < n; ++s) {
    images[s] = data.image(order[s]);
    labels[s] = data.label(order[s]);
  }
  if (next >= 0) data.prefetch(next);
  double loss = 0;
  if (k.train_chunk(params, images, labels, n, chunk_sum, loss, times)) return loss;
  // The others: one sample at a time.
  std::fill(chunk_sum, chunk_sum + kParamCount, 0.0f);
  for (int s = 0; s < n; ++s) {
    const int i = order[s];
    const int after = s + 1 < n ? order[s + 1] : next;
    if (after >= 0) data.prefetch(after);  // arrives while sample s computes
    loss += train_sample(k, params, data.image(i), data.label(i), sample_grad, times);
    timed(times, &LayerTimes::reduce, [&] { accumulate(chunk_sum, sample_grad); });
  }
  return loss;
}

void forward_chunk(SampleKernels& k, const float* params, const Dataset& data, int first, int n,
                   float* losses, int* predicted) {
  const uint8_t* images[kChunk];
  int labels[kChunk];
  for (int s = 0; s < n; ++s) {
    images[s] = data.image(first + s);
    labels[s] = data.label(first + s);
  }
  if (k.forward_chunk(params, images, labels, n, losses, predicted)) return;
  for (int s = 0; s < n; ++s) {
    losses[s] = forward_sample(k, params, images[s], labels[s], nullptr);
    predicted[s] = k.predicted();
  }
}

void accumulate(float* acc, const float* g) {
  for (int i = 0; i < kParamCount; ++i)
    acc[i] += g[i];
}

void sgd_update(float* params, const float* grad_sum, float lr, int batch, int count) {
  const float scale = lr / static_cast<float>(batch);
  for (int i = 0; i < count; ++i)
    params[i] -= scale * grad_sum[i];
}

void sgd_step(SampleKernels& k, float* params, const Dataset& data,
              const std::vector<int32_t>& order, int first, int count, float lr, float* batch_grad,
              float* chunk_grad, float* sample_grad, double& loss_sum, LayerTimes* times) {
  // G = sum of chunk sums, in chunk order.
  std::fill(batch_grad, batch_grad + kParamCount, 0.0f);
  for (int c = first; c < first + count; c += kChunk) {
    const int n = std::min(kChunk, first + count - c);
    loss_sum += chunk_gradient(k, params, data, order.data() + c, n, image_at(order, c + n),
                               chunk_grad, sample_grad, times);
    timed(times, &LayerTimes::reduce, [&] { accumulate(batch_grad, chunk_grad); });
  }
  timed(times, &LayerTimes::update, [&] { sgd_update(params, batch_grad, lr, count); });
}

}  // namespace lenet
