# Cross-compiling the CPU programs and their tests for 64-bit ARM (NVIDIA Grace, AWS Graviton)
# on an x86-64 Debian machine (docs/portability.md):
#   dpkg --add-architecture arm64 && apt-get update
#   apt-get install crossbuild-essential-arm64 qemu-user zlib1g-dev:arm64 catch2:arm64 libcli11-dev
#   cmake -S . -B build-arm64 --toolchain cmake/toolchains/aarch64-linux-gnu.cmake -DLENET_MPI=OFF
# CTest runs the tests under qemu-aarch64 (CMAKE_CROSSCOMPILING_EMULATOR). The programs are built
# for the baseline ARMv8-A (NEON, 4 floats a vector); LENET_ARCH_FLAGS picks a CPU, e.g.
# -DLENET_ARCH_FLAGS=-mcpu=neoverse-v2 for Grace.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Debian's arm64 libraries (zlib1g-dev:arm64, ...) sit beside the machine's own, in
# /usr/lib/aarch64-linux-gnu: the sysroot is /, and CMake's multiarch search finds them there.
# Programs (cmake, python3) are the machine's; libraries and headers only the target's.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# qemu-aarch64 runs what CTest starts; -L is where it finds the target's dynamic loader and
# C++ runtime (crossbuild-essential-arm64 puts them in /usr/aarch64-linux-gnu).
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu)
