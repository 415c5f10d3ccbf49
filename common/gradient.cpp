#include "gradient.hpp"

#include <algorithm>

#include "share.hpp"

namespace lenet {

namespace {

// The forward layers of the group that starts at sample `first`, each call timed.
void forward_group(Kernels& k, const float* params, int first, LayerTimes* times) {
  timed(times, &LayerTimes::c1_forward, [&] {
    k.load_input(first);
    k.c1_forward(params, first);
  });
  timed(times, &LayerTimes::s1_forward, [&] { k.s1_forward(params, first); });
  timed(times, &LayerTimes::f_forward, [&] { k.f_forward(params, first); });
}

// The chunk's n samples, a group at a time, forward and backward; each group's gradients added to
// chunk_sum (zeroed first). before(g) runs before the group that starts at sample g. Returns the
// loss sum, in sample order.
template <class Before>
double train_groups(Kernels& k, const float* params, int n, float* chunk_sum, LayerTimes* times,
                    Before&& before) {
  std::fill(chunk_sum, chunk_sum + kParamCount, 0.0f);
  for (int first = 0; first < n; first += k.group()) {
    before(first);
    forward_group(k, params, first, times);
    timed(times, &LayerTimes::f_backward, [&] { k.f_backward(params, first); });
    timed(times, &LayerTimes::s1_backward, [&] { k.s1_backward(params, first); });
    timed(times, &LayerTimes::c1_backward, [&] { k.c1_backward(params, first); });
    timed(times, &LayerTimes::reduce, [&] { k.add_gradients(first, chunk_sum); });
  }
  double loss = 0;
  for (int s = 0; s < n; ++s)
    loss += k.loss(s);
  return loss;
}

// Hands the kernels images index(0), ..., index(n - 1) of data, with their labels, as the chunk.
template <class Index>
void set_chunk(Kernels& k, const Dataset& data, int n, Index index) {
  const uint8_t* images[kChunk] = {};  // {}: GCC 12 cannot tell that set_chunk reads only n
  int labels[kChunk] = {};
  for (int s = 0; s < n; ++s) {
    images[s] = data.image(index(s));
    labels[s] = data.label(index(s));
  }
  k.set_chunk(images, labels, n);
}

}  // namespace

double chunk_gradient(Kernels& k, const float* params, const Dataset& data, const int32_t* order,
                      int n, NextChunk next, float* chunk_sum, LayerTimes* times) {
  set_chunk(k, data, n, [&](int s) { return order[s]; });
  const int groups = (n + k.group() - 1) / k.group();
  return train_groups(k, params, n, chunk_sum, times, [&](int first) {
    const Range mine = share(next.n, groups, first / k.group());
    for (int i = mine.begin; i < mine.end; ++i)
      data.prefetch(next.images[i]);  // arrives while this group computes
  });
}

void forward_chunk(Kernels& k, const float* params, const Dataset& data, int first, int n,
                   float* losses, int* predicted) {
  set_chunk(k, data, n, [&](int s) { return first + s; });
  for (int g = 0; g < n; g += k.group())
    forward_group(k, params, g, nullptr);
  for (int s = 0; s < n; ++s) {
    losses[s] = k.loss(s);
    predicted[s] = k.predicted(s);
  }
}

float forward_sample(Kernels& k, const float* params, const uint8_t* pixels, int label) {
  k.set_chunk(&pixels, &label, 1);
  forward_group(k, params, 0, nullptr);
  return k.loss(0);
}

float train_sample(Kernels& k, const float* params, const uint8_t* pixels, int label, float* grad,
                   LayerTimes* times) {
  k.set_chunk(&pixels, &label, 1);
  return static_cast<float>(train_groups(k, params, 1, grad, times, [](int) {}));
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

}  // namespace lenet
