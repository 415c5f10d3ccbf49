# The peers (peers/, docs/performance.md#peers), each about a second on the real digits.
# Registered whether or not the peer was built: SKIPPED (77) when it was not.
foreach(peer tinydnn:tiny-dnn dlib:dlib)
  string(REPLACE ":" ";" peer "${peer}")
  list(GET peer 0 exe)
  list(GET peer 1 name)
  add_test(NAME "peers: lenet-${exe} starts as the spec, learns, reports"
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/peers.sh ${PROJECT_BINARY_DIR}/peers/lenet-${exe}
            ${name} $<TARGET_FILE:lenet-serial> ${LENET_DATA_DIR}/digits 80)
  set_tests_properties("peers: lenet-${exe} starts as the spec, learns, reports" PROPERTIES
    LABELS "peers" SKIP_RETURN_CODE 77 TIMEOUT 60 ENVIRONMENT "OPENBLAS_NUM_THREADS=1")
endforeach()
