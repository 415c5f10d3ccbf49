# The course lab kit's own tests (labkit/tests/test_labkit.py, label labkit; included by
# tests/CMakeLists.txt where this folder exists: a starter, lab.sh start, has the kit but not
# its tests, which hold correct submissions). With no build, the manifests, handouts, starters
# and refusals; then, per lab, submissions the test writes (correct ones written otherwise,
# tampered tests, serial or scalar, hangs and deadlocks), and the platforms' outputs. The
# gradings share one build cache, one at a time.
# Each lab's own checks carry their labels where they are registered (labN for a student's
# `ctest -L labN`, labN-CHECK for each ctest check of labkit/labs/labN.json): tests/unit/,
# tests/cuda_emu/.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  set(_labkit ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_labkit.py)
  add_test(NAME "labkit: manifests, handouts, starters without answers, refusals"
    COMMAND ${_labkit} kit)
  set(_labkit_tests "labkit: manifests, handouts, starters without answers, refusals")
  foreach(n 1 2 3 4 5)
    add_test(NAME "labkit: lab ${n} graded, sealed and bounded" COMMAND ${_labkit} lab ${n})
    list(APPEND _labkit_tests "labkit: lab ${n} graded, sealed and bounded")
  endforeach()
  add_test(NAME "labkit: Gradescope, PrairieLearn and GitHub Classroom results"
    COMMAND ${_labkit} platforms)
  list(APPEND _labkit_tests "labkit: Gradescope, PrairieLearn and GitHub Classroom results")
  # The kit's containment and abuse flags, attacked (test_abuse.py): four quick checks without
  # a build (label labkit-kit), and lab 1's attacks graded: in the sandbox, and without it or
  # a cgroup (its starter and reference built unsandboxed, as the platforms test's are).
  set(_abuse ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_abuse.py)
  set(_abuse_quick
    "tool|labkit: abuse: the sandbox tool launched where it was found"
    "contain|labkit: abuse: runs contained, a daemon's processes, files and keys removed"
    "flags|labkit: abuse: flags on small attacks, none on honest programs"
    "exposed|labkit: abuse: no sandbox and open solutions or submissions: refused")
  foreach(pair ${_abuse_quick})
    string(REPLACE "|" ";" pair "${pair}")
    list(GET pair 0 what)
    list(GET pair 1 name)
    add_test(NAME "${name}" COMMAND ${_abuse} ${what})
    list(APPEND _labkit_tests "${name}")
    list(APPEND _abuse_kit "${name}")
  endforeach()
  add_test(NAME "labkit: abuse: lab 1's attacks flagged, nothing left" COMMAND ${_abuse} lab 1)
  add_test(NAME "labkit: abuse: lab 1's attacks flagged without a sandbox"
    COMMAND ${_abuse} lab 1 plain)
  list(APPEND _labkit_tests "labkit: abuse: lab 1's attacks flagged, nothing left"
    "labkit: abuse: lab 1's attacks flagged without a sandbox")
  # The README's test command's share of the gradings: one attack a lab, correctness only (a
  # minute with the lab cache warm, the labs' first builds cold).
  add_test(NAME "labkit: one attack a lab graded" COMMAND ${_labkit} quick)
  # COST: the gradings, one at a time, are the suite's longest chain (about 20 minutes on 2
  # cores): they start first, and the other tests fill the other core beside them.
  set_tests_properties(${_labkit_tests} "labkit: one attack a lab graded" PROPERTIES
    LABELS labkit SKIP_RETURN_CODE 77 RESOURCE_LOCK lab-cache TIMEOUT 1800 COST 1000)
  # What the README's test command runs of the kit (the label labkit is --all's): its checks
  # without a build (also what the Debian 13 root runs, tests/portability/debian13.sh), and the
  # quick gradings.
  set_tests_properties("labkit: manifests, handouts, starters without answers, refusals"
    ${_abuse_kit} PROPERTIES LABELS labkit-kit)
  set_tests_properties("labkit: one attack a lab graded" PROPERTIES LABELS labkit-quick)
endif()
# lab.sh class (labkit/tests/test_class.py): the layouts of collected submissions, a killed run
# resumed (a stand-in grader), the ranking of similar pairs and what students see, without a
# grading (20 s); then a class of five lab 1 submissions
# graded for correctness, killed and resumed, with its gradebook, flags and similar pairs (9
# minutes on the 2-core machine at load 15, 2026-12-02).
if(Python3_FOUND)
  set(_class ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_class.py)
  add_test(NAME "labkit: class layouts, resume, similar pairs ranked, flags held" COMMAND ${_class} layouts)
  add_test(NAME "labkit: a class of lab 1 graded, killed, resumed" COMMAND ${_class} lab1)
  set_tests_properties("labkit: class layouts, resume, similar pairs ranked, flags held"
    "labkit: a class of lab 1 graded, killed, resumed" PROPERTIES LABELS labkit
    SKIP_RETURN_CODE 77 TIMEOUT 3600)
  set_property(TEST "labkit: class layouts, resume, similar pairs ranked, flags held" PROPERTY
    LABELS labkit-kit)
  set_tests_properties("labkit: a class of lab 1 graded, killed, resumed" PROPERTIES
    RESOURCE_LOCK lab-cache COST 500)
endif()
