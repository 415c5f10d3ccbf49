# lenet-mpi-smpi: lenet-mpi built against SimGrid's SMPI, to run under smpirun on a simulated
# cluster (docs/scaling.md, experiments/scale_sim.sh). The same sources as lenet-mpi and the
# shared code, compiled a second time with SMPI's mpi.h and LENET_SMPI defined (the simulated
# clock in common/timer.hpp, the compute hooks in backend_mpi/smpi_hooks.cpp), with the same
# compiler, standard and flags, so the per-sample arithmetic is the same machine code. smpirun
# loads the program as a shared object (what smpicxx would build, less its -std=gnu++11).
set(LENET_SMPI AUTO CACHE STRING "Build lenet-mpi-smpi for SimGrid's simulator (AUTO, ON, OFF)")
set_property(CACHE LENET_SMPI PROPERTY STRINGS AUTO ON OFF)

set(_smpi_found OFF)
set(_smpi_why "SimGrid's SMPI (smpi/smpi.h, libsimgrid, smpirun) not found (Debian: apt-get install libsimgrid-dev)")
if(LENET_SANITIZE OR LENET_FUZZ)
  # smpirun's loader is not instrumented: an ASan-built shared object cannot run in it.
  set(_smpi_why "not with LENET_SANITIZE/LENET_FUZZ (smpirun cannot load instrumented code)")
elseif(NOT LENET_SMPI STREQUAL "OFF")
  find_path(SIMGRID_SMPI_INCLUDE smpi/smpi.h)
  find_library(SIMGRID_LIBRARY simgrid)
  find_program(SIMGRID_SMPIRUN smpirun)
  find_package(OpenMP COMPONENTS CXX)
  if(SIMGRID_SMPI_INCLUDE AND SIMGRID_LIBRARY AND SIMGRID_SMPIRUN AND OpenMP_CXX_FOUND
     AND TARGET lenet_threads)
    set(_smpi_found ON)
  endif()
endif()
lenet_option(LENET_SMPI backend "${_smpi_found}" "${_smpi_why}")
if(NOT LENET_SMPI_ENABLED)
  return()
endif()

# The sources of lenet_common, lenet_cpu and lenet_threads (common/cpu/) as those targets list
# them, and lenet_mpi's.
set(_smpi_sources "")
foreach(_target lenet_common lenet_cpu lenet_threads)
  get_target_property(_sources ${_target} SOURCES)
  get_target_property(_folder ${_target} SOURCE_DIR)
  list(TRANSFORM _sources PREPEND ${_folder}/)
  list(APPEND _smpi_sources ${_sources})
endforeach()
include(${PROJECT_SOURCE_DIR}/backend_mpi/sources.cmake)
list(TRANSFORM LENET_MPI_SOURCES PREPEND ${PROJECT_SOURCE_DIR}/backend_mpi/)
add_library(lenet-mpi-smpi SHARED ${_smpi_sources} ${LENET_MPI_SOURCES}
  backend_mpi/main.cpp
  backend_mpi/smpi_hooks.cpp
)
# SMPI's mpi.h before any other MPI's; smpirun dlopen()s the file by its plain name.
target_include_directories(lenet-mpi-smpi BEFORE PRIVATE ${SIMGRID_SMPI_INCLUDE}/smpi
  ${SIMGRID_SMPI_INCLUDE} ${PROJECT_SOURCE_DIR}/common)
set(_smpi_build_text "${LENET_BUILD_TEXT}, SMPI")
target_compile_definitions(lenet-mpi-smpi PRIVATE LENET_SMPI
  LENET_VERSION="${PROJECT_VERSION}" LENET_BUILD="${_smpi_build_text}")
target_link_libraries(lenet-mpi-smpi PRIVATE ${SIMGRID_LIBRARY} ZLIB::ZLIB CLI11::CLI11
  OpenMP::OpenMP_CXX)
set_target_properties(lenet-mpi-smpi PROPERTIES PREFIX "" SUFFIX ""
  LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/backend_mpi)
