# The docs test (label docs): README.md, docs/ and .ci/run name only files, flags, CTest tests,
# labels and CSV columns that exist, their results tables and the figures their prose quotes
# (csv-quote comments) are the committed CSVs' as they are, and the generated sections of
# README.md and docs/ are what reports/tables.py renders from docs/data/ (tests/docs/docs_test.py
# says the rules). It reads the flags from the built executables' --help and the tests from
# `ctest -N` of this build, and first checks a copy of the docs with a planted wrong figure,
# wrong quoted figure, missing path and missing flag, a hand-edited generated figure and a data
# row without its date and machine, demanding exactly those failures.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  set(_docs_test "docs: README and docs/ name only files, flags, tests and CSV columns that exist")
  add_test(NAME "${_docs_test}"
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/docs_test.py --self-test
            --build ${PROJECT_BINARY_DIR} --ctest ${CMAKE_CTEST_COMMAND}
            --root ${PROJECT_SOURCE_DIR})
  set_tests_properties("${_docs_test}" PROPERTIES LABELS "docs" TIMEOUT 300)
endif()

# Every timing figure of the README is one of docs/results.md's (label docs, and scripts).
add_test(NAME "docs: every timing figure of the README is in docs/results.md"
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/figures.sh ${PROJECT_SOURCE_DIR}/README.md
          ${PROJECT_SOURCE_DIR}/docs/results.md)
set_tests_properties("docs: every timing figure of the README is in docs/results.md" PROPERTIES
  LABELS "scripts;docs")

# docs/colab.ipynb without a GPU (tests/docs/notebook_test.py, label notebook): Run
# all stopping at the first cell, then every cell headless with the Colab-only parts stubbed (the
# steps before the tests pass, each GPU step fails with its line), then the cells' promises
# against the notebook's own build (its self-test plants a wrong test count, test name and
# target). notebook-run/ keeps that build (lenet-serial, lenet-cuda, lenet_cuda_tests for sm_75)
# between runs: the first run builds them (about 17 minutes on the loaded 2-core machine), a later
# one 2 to 4 minutes. Not labelled docs, which stays quick. SKIPPED without nbclient,
# ipykernel, pandas or Fashion-MNIST.
if(Python3_Interpreter_FOUND AND TARGET lenet_cuda)
  set(_notebook_test "docs: colab.ipynb without a GPU: the steps before the tests pass, each GPU step fails with its line")
  add_test(NAME "${_notebook_test}"
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/notebook_test.py --self-test
            --work ${PROJECT_BINARY_DIR}/notebook-run --ctest ${CMAKE_CTEST_COMMAND}
            --root ${PROJECT_SOURCE_DIR} --limit 2300)
  set_tests_properties("${_notebook_test}" PROPERTIES LABELS "notebook" TIMEOUT 2400
    SKIP_RETURN_CODE 77)
endif()

# The docs' running prose is plain: sentence lengths, asides and dated measurements within
# tests/docs/prose.py's limits on the pages it checks; it first demands that planted faults fail.
if(Python3_Interpreter_FOUND)
  add_test(NAME "docs: prose within the limits of sentence length, asides and dates"
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/prose.py --self-test
            --root ${PROJECT_SOURCE_DIR})
  set_tests_properties("docs: prose within the limits of sentence length, asides and dates"
    PROPERTIES LABELS "docs" TIMEOUT 120)
endif()

# compare.sh --record (python3 -m reports record) on a copy of the docs: verified runs become
# dated rows of docs/data/epoch_times.csv and the generated tables follow; a failed one is refused.
if(Python3_Interpreter_FOUND AND TARGET lenet-openmp)
  add_test(NAME "docs: compare.sh --record adds verified runs to docs/data and the tables"
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/record.sh ${PROJECT_SOURCE_DIR} ${LENET_SERIAL_EXE}
            ${LENET_OPENMP_EXE} ${LENET_TEST_DATA})
  set_tests_properties("docs: compare.sh --record adds verified runs to docs/data and the tables"
    PROPERTIES LABELS "docs;scripts" TIMEOUT 300)
endif()
