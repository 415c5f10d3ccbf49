# The two libraries a machine without root may lack (a cluster after `module load gcc cmake`):
# CLI11 for every program, Catch2 for the tests. The caller tries find_package first; where that
# finds nothing, lenet_fetch(<name>) builds the pinned release below as part of this project, its
# archive checked against the pinned SHA256, and says so in one line (docs/cluster.md,
# "Without root").
#
# The pins are GitHub's archives of the release tags. How their hashes were checked (2026-11-26):
# - CLI11 2.4.1: conan-center-index's recipe pins this SHA256 for the archive, and
#   `git archive --prefix=CLI11-2.4.1/ v2.4.1 | gzip -n` of CLI11's repository gives the same
#   bytes. Debian 13's cli11_2.4.1+ds.orig.tar.xz is a repack of that tree without its CI files,
#   book/ and meson.build; every file it has is identical.
# - Catch2 3.7.1: Debian 13's catch2_3.7.1.orig.tar.gz is this very archive (same SHA256), and
#   Spack's and Chimera Linux's Catch2 recipes pin the same SHA256.
#
# Offline, hand CMake a copy instead of the download:
#   -DLENET_CLI11_URL=/path/CLI11-2.4.1.tar.gz     the same archive (its hash is still checked)
#   -DFETCHCONTENT_SOURCE_DIR_CLI11=/path/CLI11-2.4.1   an unpacked source tree (CMake's own
#                                                  variable: no hash to check, your copy is trusted)
# and likewise LENET_CATCH2_URL, FETCHCONTENT_SOURCE_DIR_CATCH2.
include(FetchContent)
if(POLICY CMP0135)
  cmake_policy(SET CMP0135 NEW)  # files unpacked are dated now: a new archive rebuilds them
endif()

set(LENET_CLI11_VERSION 2.4.1)
set(LENET_CLI11_SHA256 73b7ec52261ce8fe980a29df6b4ceb66243bb0b779451dbd3d014cfec9fdbb58)
set(LENET_CLI11_URL
  "https://github.com/CLIUtils/CLI11/archive/refs/tags/v${LENET_CLI11_VERSION}.tar.gz"
  CACHE STRING "Where to get CLI11's archive where find_package finds no CLI11 (URL or file)")

set(LENET_CATCH2_VERSION 3.7.1)
set(LENET_CATCH2_SHA256 c991b247a1a0d7bb9c39aa35faf0fe9e19764213f28ffba3109388e62ee0269c)
set(LENET_CATCH2_URL
  "https://github.com/catchorg/Catch2/archive/refs/tags/v${LENET_CATCH2_VERSION}.tar.gz"
  CACHE STRING "Where to get Catch2's archive where find_package finds no Catch2 (URL or file)")

# lenet_fetch(<name>): builds <name> (CLI11 or Catch2) from the pinned release, and sets
# <name>_VERSION as find_package would. A wrong archive stops the configure with CMake's
# "SHA256 hash of ... does not match expected value".
function(lenet_fetch name)
  string(TOUPPER ${name} key)
  set(version ${LENET_${key}_VERSION})
  set(source_dir "${FETCHCONTENT_SOURCE_DIR_${key}}")
  if(source_dir)
    set(from "from ${source_dir} (FETCHCONTENT_SOURCE_DIR_${key}: not hash-checked)")
  elseif(LENET_${key}_URL MATCHES "^[a-z]+://")
    set(from "fetched from ${LENET_${key}_URL} (offline: -DLENET_${key}_URL=<the archive>, "
      "docs/cluster.md)")
  else()
    set(from "from ${LENET_${key}_URL}")
  endif()
  message(STATUS "lenet: ${name} not found: using ${name} ${version} " ${from})
  FetchContent_Declare(${name}
    URL "${LENET_${key}_URL}"
    URL_HASH SHA256=${LENET_${key}_SHA256})
  FetchContent_MakeAvailable(${name})
  set(${name}_VERSION ${version} PARENT_SCOPE)
  if(name STREQUAL "Catch2")
    # include(Catch) finds catch_discover_tests in the source tree's extras/.
    FetchContent_GetProperties(${name} SOURCE_DIR catch2_source)
    set(CMAKE_MODULE_PATH ${CMAKE_MODULE_PATH} "${catch2_source}/extras" PARENT_SCOPE)
  endif()
endfunction()
