// The evaluation of the test set, one for every CPU backend (lenet-serial, lenet-openmp, and
// each rank of lenet-mpi): each image's loss kept in an array, the array added in image order.
// The test loss then has serial's bits for every thread count and every rank count; an OpenMP
// reduction(+) would add in an order that depends on the threads.
#pragma once

#include <vector>

#include "../backend.hpp"
#include "../dataset.hpp"
#include "../kernels.hpp"
#include "../share.hpp"

namespace lenet {

// The forward passes of test images [range.begin, range.end) in chunks of kChunk, the chunks
// shared among kernels.size() threads (thread t computes with *kernels[t]): image i's loss into
// losses[i]. Returns how many of the range's images were predicted right.
long long test_losses(const std::vector<Kernels*>& kernels, const float* params,
                      const Dataset& test, Range range, std::vector<float>& losses);

// The test set's result from every image's loss and the count predicted right: the losses
// added in image order, in a double, as lenet-serial always did.
EvalResult eval_result(const std::vector<float>& losses, long long correct);

// The whole test set: test_losses over every image, then eval_result. `losses`: one float per
// test image, kept by the caller so that each evaluation allocates nothing.
EvalResult evaluate(const std::vector<Kernels*>& kernels, const float* params, const Dataset& test,
                    std::vector<float>& losses);

}  // namespace lenet
