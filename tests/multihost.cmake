# lenet-mpi across several "hosts" on this one machine: Linux network namespaces joined by a
# bridge (or a user-space switch with latency), launched through Open MPI's rsh launcher
# (experiments/multihost.sh, docs/multihost.md); SKIPPED in a build with another MPI.
# Each test checks bit-identity with lenet-serial (--exact) and that nothing is left afterwards.
# They need root and network namespaces; elsewhere multihost.sh exits 77: SKIPPED.
set(_multihost bash ${CMAKE_CURRENT_SOURCE_DIR}/multihost_test.sh
  ${CMAKE_CURRENT_SOURCE_DIR}/../experiments/multihost.sh
  --build ${PROJECT_BINARY_DIR} --mpi $<TARGET_FILE:lenet-mpi> --serial $<TARGET_FILE:lenet-serial>)
# The 128 real images of the test vectors: a few seconds per run.
set(_multihost_run -- --data ${CMAKE_CURRENT_SOURCE_DIR}/vectors/data --batch 16 --epochs 2)

add_test(NAME "multihost: 2 hosts x 1 rank, bit-identical to serial"
  COMMAND ${_multihost} --hosts 2 ${_multihost_run})
add_test(NAME "multihost: 3 hosts shaped to 10mbit, bit-identical to serial"
  COMMAND ${_multihost} --hosts 3 --bandwidth 10mbit ${_multihost_run})

# The user-space switch of --latency: training over it, and its latency and bandwidth.
add_test(NAME "multihost: 4 hosts, 1ms and 10mbit user-space switch, bit-identical to serial"
  COMMAND ${_multihost} --hosts 4 --latency 1ms --bandwidth 10mbit ${_multihost_run})
add_test(NAME "multihost: the user-space switch gives the latency and bandwidth asked for"
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/multihost_wire_test.sh
    ${CMAKE_CURRENT_SOURCE_DIR}/multihost_test.sh ${CMAKE_CURRENT_SOURCE_DIR}/../experiments/multihost.sh
    ${PROJECT_BINARY_DIR} $<TARGET_FILE:lenet-mpi-pingpong>)

set_tests_properties(
  "multihost: 2 hosts x 1 rank, bit-identical to serial"
  "multihost: 3 hosts shaped to 10mbit, bit-identical to serial"
  "multihost: 4 hosts, 1ms and 10mbit user-space switch, bit-identical to serial"
  "multihost: the user-space switch gives the latency and bandwidth asked for"
  PROPERTIES LABELS "multihost" SKIP_RETURN_CODE 77 TIMEOUT 60)
