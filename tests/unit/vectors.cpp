#include "vectors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "../../common/compare.hpp"
#include "../../common/network.hpp"

namespace lenet::test {

const Vectors& Vectors::shared() {
  static const Vectors v(std::string(LENET_VECTORS_DIR) + "/lenet_vectors.txt");
  return v;
}

std::string Vectors::data_dir() {
  return std::string(LENET_VECTORS_DIR) + "/data";
}

Vectors::Vectors(const std::string& path) : path_(path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open (run tests/vectors/generate.py)");
  std::string line;
  bool header = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    if (!header) {
      std::string magic;
      int version = 0;
      ss >> magic >> version;
      if (magic != "lenet-vectors" || version != 1) {
        throw std::runtime_error(path +
                                 ": not a version 1 vector file; regenerate it with "
                                 "tests/vectors/generate.py");
      }
      header = true;
      continue;
    }
    std::string kind, name;
    size_t count = 0;
    ss >> kind >> name >> count;
    std::string token;
    if (kind == "f32") {
      auto& v = f32_[name];
      while (ss >> token) {
        const uint32_t bits = static_cast<uint32_t>(std::stoul(token, nullptr, 16));
        float f;
        std::memcpy(&f, &bits, 4);
        v.push_back(f);
      }
      if (v.size() != count) throw std::runtime_error(path + ": bad count for " + name);
    } else if (kind == "f64") {
      auto& v = f64_[name];
      while (ss >> token) {
        const uint64_t bits = std::stoull(token, nullptr, 16);
        double d;
        std::memcpy(&d, &bits, 8);
        v.push_back(d);
      }
      if (v.size() != count) throw std::runtime_error(path + ": bad count for " + name);
    } else if (kind == "i32") {
      auto& v = i32_[name];
      while (ss >> token)
        v.push_back(std::stoll(token));
      if (v.size() != count) throw std::runtime_error(path + ": bad count for " + name);
    } else if (kind == "u64") {
      auto& v = u64_[name];
      while (ss >> token)
        v.push_back(std::stoull(token, nullptr, 16));
      if (v.size() != count) throw std::runtime_error(path + ": bad count for " + name);
    } else {
      throw std::runtime_error(path + ": unknown kind '" + kind + "'");
    }
  }
  if (!header) throw std::runtime_error(path + ": empty vector file");
}

template <class Map>
static const typename Map::mapped_type& find(const Map& m, const std::string& name,
                                             const std::string& path) {
  auto it = m.find(name);
  if (it == m.end()) throw std::runtime_error(path + ": no tensor '" + name + "'");
  return it->second;
}

const std::vector<float>& Vectors::f32(const std::string& n) const {
  return find(f32_, n, path_);
}
const std::vector<double>& Vectors::f64(const std::string& n) const {
  return find(f64_, n, path_);
}
const std::vector<int64_t>& Vectors::i32(const std::string& n) const {
  return find(i32_, n, path_);
}
const std::vector<uint64_t>& Vectors::u64(const std::string& n) const {
  return find(u64_, n, path_);
}

bool close_enough(const std::string& name, const std::vector<float>& got,
                  const std::vector<float>& want, double rtol) {
  if (got.size() != want.size()) {
    std::printf("FAIL %s: %zu values, expected %zu\n", name.c_str(), got.size(), want.size());
    return false;
  }
  double max_ref = 0;
  for (float w : want)
    if (std::isfinite(w)) max_ref = std::max(max_ref, std::fabs(double(w)));
  // The absolute floor keeps values near zero (where relative error means nothing) from failing
  // on rounding noise, while staying 100x below the tensor's scale.
  const Comparison c = compare(got.data(), want.data(), got.size(), rtol * max_ref * 0.01, rtol);
  std::printf("%s %-22s %s, rtol %.0e\n", c.passed() ? "OK  " : "FAIL", name.c_str(),
              describe(c).c_str(), rtol);
  return c.passed();
}

bool params_close(const std::string& name, const std::vector<float>& got,
                  const std::vector<float>& want, double rtol) {
  if (got.size() != kParamCount || want.size() != kParamCount) {
    std::printf("FAIL %s: %zu and %zu values, expected %d\n", name.c_str(), got.size(), want.size(),
                kParamCount);
    return false;
  }
  bool ok = true;
  for (const TensorComparison& t : compare_params(got, want, rtol, rtol * 0.01)) {
    std::printf("%s %-22s %s, rtol %.0e\n", t.c.passed() ? "OK  " : "FAIL",
                (name + "." + t.name).c_str(), describe(t.c).c_str(), rtol);
    ok = ok && t.c.passed();
  }
  return ok;
}

}  // namespace lenet::test
