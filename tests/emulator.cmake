# lenet_program(<var> <target>): the file a test runs to start the program <target> itself (the
# scripts, popen() in test_openmp.cpp). Natively it is the program. In a cross build
# (cmake/toolchains/) it is a two-line script that runs the program under the emulator, as CTest
# already does for the Catch2 executables, so that no test needs to know about emulation.
function(lenet_program var target)
  if(NOT CMAKE_CROSSCOMPILING OR NOT CMAKE_CROSSCOMPILING_EMULATOR)
    set(${var} $<TARGET_FILE:${target}> PARENT_SCOPE)
    return()
  endif()
  string(REPLACE ";" " " emulator "${CMAKE_CROSSCOMPILING_EMULATOR}")
  set(script ${CMAKE_CURRENT_BINARY_DIR}/emulated/${target})
  file(GENERATE OUTPUT ${script}
    CONTENT "#!/bin/sh\nexec ${emulator} $<TARGET_FILE:${target}> \"$@\"\n"
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ
                     WORLD_EXECUTE)
  set(${var} ${script} PARENT_SCOPE)
endfunction()
