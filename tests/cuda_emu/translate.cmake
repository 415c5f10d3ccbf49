# Makes a CUDA source compilable by the host compiler against the emulation, changing only the
# launch syntax, which is not C++:
#   kernel<<<grid, block, shared, stream>>>(args)
#     -> ::cuda_emu::launch(kernel, "kernel", grid, block, shared, stream)(args)
# A #line directive keeps compiler messages and __FILE__ pointing at the original file.
#   cmake -DIN=backend_cuda/v1/c1.cu -DOUT=c1.cu.cpp [-DMUTANT=name] -P translate.cmake
# MUTANT applies one of mutants.cmake's deliberate bugs (the tests that must catch it).
file(READ "${IN}" text)
if(MUTANT)
  include(${CMAKE_CURRENT_LIST_DIR}/mutants.cmake)
  string(FIND "${text}" "${MUTANT_${MUTANT}_FROM}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "translate.cmake: mutant ${MUTANT}: its text is not in ${IN} any more: "
      "update tests/cuda_emu/mutants.cmake")
  endif()
  string(REPLACE "${MUTANT_${MUTANT}_FROM}" "${MUTANT_${MUTANT}_TO}" text "${text}")
endif()
string(REGEX REPLACE "([A-Za-z_][A-Za-z0-9_]*)<<<" "::cuda_emu::launch(\\1, \"\\1\", " text
  "${text}")
string(REPLACE ">>>" ")" text "${text}")
file(WRITE "${OUT}" "#line 1 \"${IN}\"\n${text}")
