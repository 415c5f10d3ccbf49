// Controls of the CUDA emulation (tests/cuda_emu/) for the tests that check error paths; the
// backend never includes this.
#pragma once

namespace cuda_emu {

// The schedule seed (CUDA_EMU_SEED; 0 when unset): 0 runs threads and blocks in order,
// 1 reversed, any other value in an order shuffled by that seed.
unsigned long long schedule_seed();

// From now on every launch of the kernel with this name fails as a launch with too many
// resources does (cudaErrorLaunchOutOfResources, through cudaGetLastError). nullptr: none.
void fail_launches_of(const char* kernel_name);

// Forgets which kernels were loaded: the next launch of each is its first, as in a new process.
void forget_loaded_kernels();

}  // namespace cuda_emu
