// Reader for tests/vectors/lenet_vectors.txt, the test vectors written by the independent
// PyTorch reference tests/vectors/generate.py (format: tests/vectors/README.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace lenet::test {

class Vectors {
 public:
  // The shared file, located through the LENET_VECTORS_DIR compile definition.
  static const Vectors& shared();
  static std::string data_dir();  // tests/vectors/data: the small real data set

  explicit Vectors(const std::string& path);
  const std::vector<float>& f32(const std::string& name) const;
  const std::vector<double>& f64(const std::string& name) const;
  const std::vector<int64_t>& i32(const std::string& name) const;
  const std::vector<uint64_t>& u64(const std::string& name) const;

 private:
  std::string path_;
  std::map<std::string, std::vector<float>> f32_;
  std::map<std::string, std::vector<double>> f64_;
  std::map<std::string, std::vector<int64_t>> i32_;
  std::map<std::string, std::vector<uint64_t>> u64_;
};

// Compares `got` with the reference `want` element-wise with the tolerance
//   |got - want| <= atol + rtol * |want|,  atol = rtol * max|want| * 0.01,
// prints one line "OK name max_abs ... max_rel ... (x% of tol)" and returns whether it passed.
// A NaN or infinity on either side fails (common/compare.hpp).
bool close_enough(const std::string& name, const std::vector<float>& got,
                  const std::vector<float>& want, double rtol);

// The same for a parameter vector, tensor by tensor (W1 ... b3), each with its own absolute
// floor, so that a wrong update to a small tensor such as b2 is not hidden by W3's scale.
bool params_close(const std::string& name, const std::vector<float>& got,
                  const std::vector<float>& want, double rtol);

}  // namespace lenet::test
