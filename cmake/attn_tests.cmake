# Test registration shared by the test folders of tests/ (attn, lessons, json, kernels, learn, reference).
#
# attn_register_catch_tests(TARGET PREFIX)
#   catch_discover_tests: after each build the binary lists its TEST_CASEs, one CTest test each,
#   names prefixed PREFIX. In the web build the wasm binary runs under node (the target's
#   CROSSCOMPILING_EMULATOR, honoured by Catch2's CatchAddTests.cmake), names prefixed
#   "wasm: PREFIX". Each test is one process either way; measured on the web build (2 cores,
#   loaded): ctest --preset web -j2 -E e2e 212.8 s with the names read from the sources at
#   configure time, 131.2 s discovered; discovery adds about 2 s per test binary to its link.
#   Test names may not contain ';' (CMake would split them into two tests).
# attn_register_case_tests(PREFIX FILES...)
#   one test per JSON case file through `attn run FILE` (tests/run_cases.mjs), natively
#   against the attn tool and in the web build against `node attn.js` ("wasm: " prefix).

if(EMSCRIPTEN AND NODE_JS_EXECUTABLE)
  set(ATTN_NODE "${NODE_JS_EXECUTABLE}")
else()
  find_program(ATTN_NODE NAMES node nodejs NO_CMAKE_FIND_ROOT_PATH)
endif()
if(NOT ATTN_NODE)
  message(FATAL_ERROR "node not found: the case-file tests (tests/run_cases.mjs) and the wasm tests need it")
endif()
set(ATTN_NODE_RUN "${ATTN_NODE}" --no-experimental-fetch)
string(REPLACE ";" " " _attn_node_run "${ATTN_NODE_RUN}")
# Catch.cmake from Debian's catch2 package (/usr/lib/cmake/Catch2), also under emscripten.
find_package(Catch2 ${ATTN_CATCH2_VERSION} REQUIRED NO_CMAKE_FIND_ROOT_PATH)
list(APPEND CMAKE_MODULE_PATH "${Catch2_DIR}")
include(Catch)
# catch_discover_tests hands TEST_PREFIX to its script as `cmake -D TEST_PREFIX=...`, and cmake
# (3.25) drops a trailing space there: "kernels: " became "kernels:". The prefixes below end in
# "<sp>" instead, which this wrapper of Catch2's script turns back into a space.
set(_attn_catch_add_tests "${CMAKE_BINARY_DIR}/attn_catch_add_tests.cmake")
file(WRITE "${_attn_catch_add_tests}"
  "# written by cmake/attn_tests.cmake\n"
  "string(REPLACE \"<sp>\" \" \" TEST_PREFIX \"\${TEST_PREFIX}\")\n"
  "include(\"${_CATCH_DISCOVER_TESTS_SCRIPT}\")\n")
set(_CATCH_DISCOVER_TESTS_SCRIPT "${_attn_catch_add_tests}")
if(EMSCRIPTEN)
  set(ATTN_CLI_COMMAND "${_attn_node_run} $<TARGET_FILE:attn>")
  set(ATTN_WASM_PREFIX "wasm: ")
else()
  set(ATTN_CLI_COMMAND "$<TARGET_FILE:attn>")
  set(ATTN_WASM_PREFIX "")
endif()
# The tests' own code (assertions, fixtures, loops over cases) is compiled at -O1 with line
# tables only: that halves its compile time, while the core they call keeps its own -O level
# and arithmetic flags. A Debug build (the asan preset) keeps its -O0 -g.
if(CMAKE_BUILD_TYPE STREQUAL "Debug")
  set(ATTN_TEST_CODE_FLAGS "")
elseif(EMSCRIPTEN)
  set(ATTN_TEST_CODE_FLAGS -O1)
else()
  set(ATTN_TEST_CODE_FLAGS -O1 -g1)
endif()
set(ATTN_RUN_CASES "${CMAKE_CURRENT_LIST_DIR}/../tests/run_cases.mjs")

function(attn_register_catch_tests target prefix)
  # Same arithmetic rules as the core: some tests compare bits across platforms.
  target_compile_options(${target} PRIVATE -ffp-contract=off ${ATTN_TEST_CODE_FLAGS})
  # tests/support/support.hpp (#include "support/support.hpp") reads fixtures from the source
  # tree (under node through NODERAWFS).
  target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}/tests")
  target_compile_definitions(${target} PRIVATE ATTN_TESTS_DIR="${PROJECT_SOURCE_DIR}/tests")
  string(REGEX REPLACE " $" "<sp>" _prefix "${prefix}")
  if(NOT EMSCRIPTEN)
    # -w NoTests: a name that matches no TEST_CASE fails instead of passing with nothing run.
    catch_discover_tests(${target} TEST_PREFIX "${_prefix}" EXTRA_ARGS -w NoTests)
    return()
  endif()
  # Real file system (fixtures), growing heap, exit code of main() reaches the shell. -O1 at the
  # link skips binaryen's whole-module optimisation (about 40 s of CPU per test binary); the
  # objects keep their -O levels, so the numbers are the same.
  target_link_options(${target} PRIVATE -sNODERAWFS=1 -sALLOW_MEMORY_GROWTH=1 -sEXIT_RUNTIME=1 -O1)
  set_property(TARGET ${target} PROPERTY CROSSCOMPILING_EMULATOR ${ATTN_NODE_RUN})
  string(REGEX REPLACE " $" "<sp>" _prefix "wasm: ${prefix}")
  catch_discover_tests(${target} TEST_PREFIX "${_prefix}" EXTRA_ARGS -w NoTests --use-colour no)
endfunction()

function(attn_register_case_tests prefix)
  foreach(_case IN LISTS ARGN)
    get_filename_component(_case_name "${_case}" NAME_WE)
    add_test(NAME "${ATTN_WASM_PREFIX}${prefix}${_case_name}"
             COMMAND ${ATTN_NODE} ${ATTN_RUN_CASES} --attn "${ATTN_CLI_COMMAND}" ${_case})
  endforeach()
endfunction()
