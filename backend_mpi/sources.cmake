# lenet_mpi's sources, in one place for the two builds of them: lenet-mpi (CMakeLists.txt here)
# and lenet-mpi-smpi, the same code against SimGrid's SMPI (cmake/smpi.cmake).
set(LENET_MPI_SOURCES
  allreduce.cpp
  exact.cpp
  mpi_backend.cpp
  mpi_comm.cpp
  mpi_options.cpp
)
