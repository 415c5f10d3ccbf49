// F's softmax, loss and prediction on one sample's logits: scalar code that every kernels runs
// (ref and the OpenMP layer strategy as ref::f_softmax_loss, lanes lane by lane), compiled once in
// softmax.cpp, so that each gives the same bits.
#pragma once

namespace lenet {

// p = softmax(z3) of the 10 logits; returns the loss -log p[label].
float f_softmax_loss(const float* z3, float* p, int label);

// argmax of z3, the lowest index on a tie.
int f_predicted(const float* z3);

}  // namespace lenet
