// Checks that any backend must pass, run through the Backend interface alone, so that every
// backend's tests reuse them: the PyTorch vectors for one SGD step and for a 64-step trajectory,
// and a helper to train a few epochs for bit-identity comparisons between backends.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "../../common/backend.hpp"
#include "../../common/dataset.hpp"

namespace lenet::test {

using BackendFactory = std::function<std::unique_ptr<Backend>()>;

// The small real data set shipped with the vectors (128 train, 32 test), loaded once.
const Dataset& vector_train();
const Dataset& vector_test();
// vector_train()'s 128 images 8 times over (1024): enough chunks at B = 32 and 100 for every
// thread of 3 or 4, and enough images for a test loss that a double sum rounds.
const Dataset& vector_train_8x();

// One SGD step (B = 1, 4, 7, 40, lr 0.5, seed-1 init) against step.B*.params / step.B*.loss, and
// the 64-step trajectory against traj.* (Catch2 CHECKs; tolerances documented in
// backend_checks.cpp).
void check_one_step_vectors(const BackendFactory& make);
void check_trajectory_vectors(const BackendFactory& make);

// Trains `epochs` epochs of `data` (shuffled with `seed`) from the seed's init and returns the
// final parameters: compare two backends' results bit for bit.
std::vector<float> train_params(Backend& b, const Dataset& data, int batch, float lr, int epochs,
                                uint64_t seed = 1);

}  // namespace lenet::test
