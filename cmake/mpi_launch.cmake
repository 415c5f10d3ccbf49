# How this build starts MPI ranks, known in one place. FindMPI gives the launcher
# (MPIEXEC_EXECUTABLE, MPIEXEC_NUMPROC_FLAG, MPIEXEC_PREFLAGS, MPIEXEC_POSTFLAGS); its family
# decides the flags that only that family takes: Open MPI's mpirun (--oversubscribe, --bind-to,
# -q, --mca) or the Hydra mpiexec of MPICH and its descendants (Intel MPI, MVAPICH), which
# oversubscribes by default and spells binding -bind-to. Written to BUILD/mpi_launch.env, which
# run_scripts/mpi_launch.sh reads: every test, script and lab starts its ranks through that.

# _lenet_mpi_family(<var> <text>): openmpi, mpich or other, from a launcher's --version or the
# library's version string.
function(_lenet_mpi_family var text)
  if(text MATCHES "Open MPI|OpenRTE|open-mpi")
    set(${var} openmpi PARENT_SCOPE)
  elseif(text MATCHES "HYDRA|MPICH|MVAPICH|Intel\\(R\\) MPI")
    set(${var} mpich PARENT_SCOPE)
  else()
    set(${var} other PARENT_SCOPE)
  endif()
endfunction()

if(NOT MPIEXEC_EXECUTABLE)
  message(FATAL_ERROR "lenet: MPI found but no launcher (mpiexec or mpirun): set -DMPIEXEC_EXECUTABLE=PATH")
endif()
# _lenet_launcher(): LENET_MPI_FAMILY and LENET_MPI_LAUNCHER_MAJOR of MPIEXEC_EXECUTABLE, from
# its --version (Open MPI 5's mpirun, PRRTE, lost 4.1's -q).
macro(_lenet_launcher)
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _launcher_text
    ERROR_VARIABLE _launcher_text TIMEOUT 20)
  _lenet_mpi_family(LENET_MPI_FAMILY "${_launcher_text}")
  string(REGEX MATCH "[0-9]+\\.[0-9]+" _launcher_version "${_launcher_text}")
  string(REGEX REPLACE "\\..*" "" LENET_MPI_LAUNCHER_MAJOR "${_launcher_version}")
endmacro()
_lenet_launcher()
_lenet_mpi_family(_library_family "${MPI_CXX_LIBRARY_VERSION_STRING}")
# The library's name and version, the first line of its version string.
string(REGEX REPLACE "[,\n].*" "" _library "${MPI_CXX_LIBRARY_VERSION_STRING}")
string(REGEX REPLACE "[ \t]+" " " _library "${_library}")

# One family's launcher starts another's programs as unrelated one-rank jobs. Debian puts both
# families' launchers in /usr/bin, and FindMPI takes the default mpiexec: where you named no
# launcher, the library's own beside it is taken (said in one line); else the build is refused.
if(NOT LENET_MPI_FAMILY STREQUAL "other" AND NOT _library_family STREQUAL "other"
   AND NOT LENET_MPI_FAMILY STREQUAL _library_family)
  get_filename_component(_dir ${MPIEXEC_EXECUTABLE} DIRECTORY)
  find_program(_match NAMES mpiexec.${_library_family} mpiexec.hydra HINTS ${_dir} NO_CACHE)
  if(_match AND NOT LENET_MPIEXEC_GIVEN)
    message(STATUS "lenet: ${MPIEXEC_EXECUTABLE} is the other MPI family's launcher: "
      "using ${_match}, the launcher of the library lenet-mpi links")
    set(MPIEXEC_EXECUTABLE ${_match} CACHE FILEPATH "Executable for running MPI programs." FORCE)
    _lenet_launcher()
  endif()
endif()
if(NOT LENET_MPI_FAMILY STREQUAL "other" AND NOT _library_family STREQUAL "other"
   AND NOT LENET_MPI_FAMILY STREQUAL _library_family)
  if(NOT _match)
    set(_match "its own mpiexec")
  endif()
  set(_openmpi "Open MPI")
  set(_mpich "MPICH")
  message(FATAL_ERROR "lenet: MPIEXEC_EXECUTABLE ${MPIEXEC_EXECUTABLE} is ${_${LENET_MPI_FAMILY}}'s "
    "launcher but lenet-mpi links ${_library} (${MPI_CXX_COMPILER}): its ranks would start as "
    "unrelated single-rank jobs. Configure a new build directory with -DMPIEXEC_EXECUTABLE=${_match}")
endif()

set(_openmpi "Open MPI's mpirun")
set(_mpich "Hydra's mpiexec (MPICH family)")
set(_other "an unknown launcher, given FindMPI's flags only")
message(STATUS "lenet: MPI ranks start with ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} P "
  "(${_${LENET_MPI_FAMILY}}); library: ${_library}")

# bash arrays of FindMPI's lists, each element in single quotes.
function(_lenet_bash_array var)
  set(_quoted "")
  foreach(item IN LISTS ARGN)
    string(APPEND _quoted " '${item}'")
  endforeach()
  set(${var} "(${_quoted} )" PARENT_SCOPE)
endfunction()
_lenet_bash_array(_pre ${MPIEXEC_PREFLAGS})
_lenet_bash_array(_post ${MPIEXEC_POSTFLAGS})
file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/mpi_launch.env @ONLY CONTENT
"# How this build starts MPI ranks (cmake/mpi_launch.cmake); read by run_scripts/mpi_launch.sh.
mpi_family=@LENET_MPI_FAMILY@
mpi_launcher_major='@LENET_MPI_LAUNCHER_MAJOR@'
mpiexec='@MPIEXEC_EXECUTABLE@'
mpiexec_numproc_flag='@MPIEXEC_NUMPROC_FLAG@'
mpiexec_preflags=@_pre@
mpiexec_postflags=@_post@
")

# The tests' prefix for starting ranks: ${LENET_MPI_LAUNCH} [OPTIONS] -n P PROGRAM ARGS...
# --yield: the tests check bits, not speed; a rank waiting for another gives up its core, so that
# a machine busy with other work does not slow every message to a time slice.
set(LENET_MPI_LAUNCH bash ${PROJECT_SOURCE_DIR}/run_scripts/mpi_launch.sh ${PROJECT_BINARY_DIR}
    --yield)
