#include <string>

#include "../common/error.hpp"
#include "check.hpp"

namespace lenet::cuda {

void fail(cudaError_t err, const char* call, const char* file, int line) {
  // __FILE__ is the path nvcc was given; keep it from backend_cuda/ on.
  std::string where = file;
  const size_t cut = where.rfind("backend_cuda/");
  if (cut != std::string::npos) where.erase(0, cut);
  throw Error("CUDA error at " + where + ":" + std::to_string(line) + " (" + call +
              "): " + cudaGetErrorString(err));
}

}  // namespace lenet::cuda
