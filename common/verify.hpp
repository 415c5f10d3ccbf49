// --verify: the final parameters against a reference checkpoint (e.g. lenet-serial's), tensor
// by tensor. Bit-identical backends (docs/network.md) should match bit for bit; the others
// (MPI's allreduce strategy, another kernels, CUDA) within float32 rounding, which the
// tolerance below allows with headroom (docs/network.md, "Verification").
#pragma once

#include <string>
#include <vector>

#include "compare.hpp"

namespace lenet {

// Per-tensor tolerance of --verify: |got - want| <= kVerifyAtolScale * max|want over the
// tensor| + kVerifyRtol * |want|.
constexpr double kVerifyRtol = 2e-5;
constexpr double kVerifyAtolScale = 2e-5;

struct Verification {
  std::vector<TensorComparison> tensors;
  bool require_identical = false;  // --identical
  bool identical() const;          // every value has the same bits
  bool successful() const;
  std::string summary() const;  // the summary block's "(...)" after SUCCESSFUL/UNSUCCESSFUL
  double max_abs() const;       // over all tensors; NaN when a value is not finite
};

Verification verify_params(const std::vector<float>& got, const std::vector<float>& want,
                           bool require_identical);

}  // namespace lenet
