# Deliberate bugs that the emulated tests must catch (tests/cuda_emu/cuda_emu.cmake builds a
# lenet-cuda-emu with each and expects its training check to fail). Each is a text in one file
# and what replaces it; translate.cmake stops if the text is no longer there.

# A missing __syncthreads: in the fused kernel the dW2, db2 sums read a1 while other warps
# overwrite a1 with d1. Only a schedule in which one warp runs ahead shows it.
set(MUTANT_no_a1_barrier_FILE fused/kernels.cu)
set(MUTANT_no_a1_barrier_VERSION fused)
set(MUTANT_no_a1_barrier_FROM
  "  __syncthreads();  // the sums above read a1: all of them end before a1 becomes d1")
set(MUTANT_no_a1_barrier_TO "")

# An off-by-one in the batch: the W3, b3 gradient leaves out the batch's last sample, which in
# a last batch of one sample is the whole batch.
set(MUTANT_last_sample_FILE v2/f.cu)
set(MUTANT_last_sample_VERSION v2)
set(MUTANT_last_sample_FROM "for (int s = lane; s < b.count; s += 32)")
set(MUTANT_last_sample_TO "for (int s = lane; s < b.count - 1; s += 32)")
