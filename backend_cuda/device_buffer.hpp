// An array in GPU memory that frees itself: the CUDA counterpart of std::vector, without the
// element-wise operations (kernels do those).
#pragma once

#include <cstddef>

#include "check.hpp"

namespace lenet::cuda {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t n) { resize(n); }
  ~DeviceBuffer() { cudaFree(ptr_); }  // not checked: a destructor must not throw
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // n elements; the old contents are lost when the size changes.
  void resize(size_t n) {
    if (n == size_) return;
    CUDA_CHECK(cudaFree(ptr_));
    ptr_ = nullptr;
    size_ = 0;
    if (n > 0) CUDA_CHECK(cudaMalloc(&ptr_, n * sizeof(T)));
    size_ = n;
  }

  T* get() const { return ptr_; }
  size_t size() const { return size_; }
  size_t bytes() const { return size_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  size_t size_ = 0;
};

}  // namespace lenet::cuda
