// Helpers that write small IDX files and scratch directories for the loader tests.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace lenet::test {

// A fresh empty directory under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "lenet-test-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline void put_be32(std::string& s, uint32_t v) {
  for (int i = 3; i >= 0; --i)
    s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

inline std::string idx_images(uint32_t count, uint32_t rows = 28, uint32_t cols = 28,
                              uint32_t magic = 0x803, long pixel_bytes = -1) {
  std::string s;
  put_be32(s, magic);
  put_be32(s, count);
  put_be32(s, rows);
  put_be32(s, cols);
  const size_t n = pixel_bytes < 0 ? size_t(count) * rows * cols : size_t(pixel_bytes);
  for (size_t i = 0; i < n; ++i)
    s.push_back(static_cast<char>(i * 7 % 256));
  return s;
}

inline std::string idx_labels(const std::vector<uint8_t>& labels, uint32_t magic = 0x801) {
  std::string s;
  put_be32(s, magic);
  put_be32(s, static_cast<uint32_t>(labels.size()));
  for (uint8_t l : labels)
    s.push_back(static_cast<char>(l));
  return s;
}

inline void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

inline void write_gz(const std::string& path, const std::string& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
}

}  // namespace lenet::test
