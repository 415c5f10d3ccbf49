# The CUDA backend's sources, relative to backend_cuda/: compiled by nvcc (CMakeLists.txt here)
# and, unchanged, by the host compiler against the CPU emulation (tests/cuda_emu/cuda_emu.cmake).
set(LENET_CUDA_SOURCES
  check.cu
  cuda_backend.cu
  event_timer.cu
  tally.cu
  v1/c1.cu
  v1/f.cu
  v1/s1.cu
  v1/step.cu
  v1/update.cu
  v2/c1.cu
  v2/f.cu
  v2/s1.cu
  v2/step.cu
  fused/kernels.cu
  fused/step.cu
)
