// MNIST-format data in memory, and the IDX loader (plain or .gz files).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "network.hpp"

namespace lenet {

// A data set's pixels, never changed once loaded. Read from the files, they are this process's
// own; lenet-mpi's ranks of one node share one copy instead (MpiComm::load puts it in an MPI
// shared-memory window). Copies of a Pixels share the bytes, so a copy is cheap and a move is
// a copy: a moved-from Pixels still holds its bytes.
class Pixels {
 public:
  Pixels() = default;
  Pixels(const Pixels&) = default;
  Pixels& operator=(const Pixels&) = default;
  explicit Pixels(std::vector<uint8_t> bytes) {
    auto own = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
    data_ = own->data(), size_ = own->size(), own_ = std::move(own);
  }
  // A copy of bytes on huge pages where the kernel grants them (huge_pages.hpp); a plain copy
  // where the buffer cannot be had.
  static Pixels on_huge_pages(std::vector<uint8_t> bytes);
  // n bytes at p, owned elsewhere, that outlive every Pixels made of them.
  static Pixels borrowed(const uint8_t* p, size_t n) {
    Pixels v;
    v.data_ = p, v.size_ = n;
    return v;
  }

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  uint8_t operator[](size_t i) const { return data_[i]; }
  const uint8_t* begin() const { return data_; }
  const uint8_t* end() const { return data_ + size_; }
  void keep_first(size_t n) { size_ = std::min(size_, n); }

 private:
  std::shared_ptr<const void> own_;  // null when borrowed
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

struct Dataset {
  std::string images_path;  // where it came from, for messages and reports
  int count = 0;
  Pixels pixels;                // count * 784, row-major
  std::vector<uint8_t> labels;  // count, each 0..9

  const uint8_t* image(int i) const { return pixels.data() + static_cast<size_t>(i) * kImageSize; }
  int label(int i) const { return labels[i]; }
  // Asks the caches for image i, without waiting for it. Training reads the images in shuffled
  // order from a set far larger than the caches, so each one is a miss unless asked for early.
  void prefetch(int i) const {
    const uint8_t* p = image(i);
    for (int at = 0; at < kImageSize; at += 64)
      __builtin_prefetch(p + at);
    __builtin_prefetch(p + kImageSize - 1);
  }
};

// Reads an IDX image file (magic 0x00000803, n x 28 x 28) and its label file (0x00000801),
// each plain or gzip-compressed, and checks magic, dimensions, counts, label range and length.
// Throws lenet::Error with a one-line message naming the file on any problem.
Dataset load_idx(const std::string& images_path, const std::string& labels_path);

// Finds and loads `prefix` ("train" or "t10k") in dir, accepting both the
// `train-images-idx3-ubyte` and `train-images.idx3-ubyte` spellings, plain or .gz.
// The error for a missing file names every path tried.
Dataset load_split(const std::string& dir, const std::string& prefix);

// The first n samples of d (n <= d.count).
void truncate(Dataset& d, int n);

// `flag` (--train-limit, --test-limit) applied to d: its first n samples, all of them for n = 0;
// an n beyond d.count is an Error (exit 2) naming the flag and the file.
void apply_limit(Dataset& d, int n, const char* flag);

// CRC-32 of the pixels and labels: the data set's identity in resumable checkpoints.
uint32_t dataset_crc(const Dataset& d);

}  // namespace lenet
