# Test registration shared by the test folders of tests/ (attn, lessons, json, kernels, learn, reference).
#
# attn_register_catch_tests(TARGET PREFIX)
#   native: catch_discover_tests (one CTest test per TEST_CASE, names prefixed PREFIX).
#   web   : the TEST_CASE names are read from the target's sources at configure time and each
#           runs under node as "wasm: PREFIX<name>". Names must avoid Catch's test-spec syntax
#           (, [ ] * \ and a leading ~); checked here. Sets ATTN_REGISTERED_COUNT in the caller's
#           scope. With -DATTN_WASM_CATCH_DISCOVERY=ON (being measured): catch_discover_tests
#           through node (the target's CROSSCOMPILING_EMULATOR, honoured by Catch2's
#           CatchAddTests.cmake) instead.
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
set(ATTN_RUN_CASES "${CMAKE_CURRENT_LIST_DIR}/../tests/run_cases.mjs")

function(attn_register_catch_tests target prefix)
  # Same arithmetic rules as the core: some tests compare bits across platforms.
  target_compile_options(${target} PRIVATE -ffp-contract=off)
  # tests/support/support.hpp (#include "support/support.hpp") reads fixtures from the source
  # tree (under node through NODERAWFS).
  target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}/tests")
  target_compile_definitions(${target} PRIVATE ATTN_TESTS_DIR="${PROJECT_SOURCE_DIR}/tests")
  # Test names may not contain ';' (CMake would split them into two tests).
  string(REGEX REPLACE " $" "<sp>" _prefix "${prefix}")
  if(NOT EMSCRIPTEN)
    # -w NoTests: a name that matches no TEST_CASE fails instead of passing with nothing run.
    catch_discover_tests(${target} TEST_PREFIX "${_prefix}" EXTRA_ARGS -w NoTests)
    return()
  endif()
  # Real file system (fixtures), growing heap, exit code of main() reaches the shell.
  target_link_options(${target} PRIVATE -sNODERAWFS=1 -sALLOW_MEMORY_GROWTH=1 -sEXIT_RUNTIME=1)
  if(ATTN_WASM_CATCH_DISCOVERY)
    set_property(TARGET ${target} PROPERTY CROSSCOMPILING_EMULATOR ${ATTN_NODE_RUN})
    string(REGEX REPLACE " $" "<sp>" _prefix "wasm: ${prefix}")
    catch_discover_tests(${target} TEST_PREFIX "${_prefix}" EXTRA_ARGS -w NoTests --use-colour no)
    return()
  endif()
  get_target_property(_sources ${target} SOURCES)
  get_target_property(_dir ${target} SOURCE_DIR)
  set(_count 0)
  foreach(_src IN LISTS _sources)
    if(NOT IS_ABSOLUTE "${_src}")
      set(_src "${_dir}/${_src}")
    endif()
    if(NOT _src MATCHES "\\.cpp$")
      continue()
    endif()
    file(STRINGS "${_src}" _lines REGEX "^[ \t]*TEST_CASE[ \t]*\\(")
    foreach(_line IN LISTS _lines)
      if(NOT _line MATCHES "TEST_CASE[ \t]*\\([ \t]*\"([^\"]+)\"")
        message(FATAL_ERROR "${_src}: cannot read the test name from: ${_line}")
      endif()
      set(_name "${CMAKE_MATCH_1}")
      if(_name MATCHES "[],*\\\\[]" OR _name MATCHES "^~")
        message(FATAL_ERROR "${_src}: test name '${_name}' uses Catch test-spec syntax")
      endif()
      math(EXPR _count "${_count} + 1")
      add_test(NAME "wasm: ${prefix}${_name}"
               COMMAND ${ATTN_NODE_RUN} $<TARGET_FILE:${target}> "${_name}" -w NoTests --use-colour no)
    endforeach()
  endforeach()
  set(ATTN_REGISTERED_COUNT ${_count} PARENT_SCOPE)
endfunction()

function(attn_register_case_tests prefix)
  foreach(_case IN LISTS ARGN)
    get_filename_component(_case_name "${_case}" NAME_WE)
    add_test(NAME "${ATTN_WASM_PREFIX}${prefix}${_case_name}"
             COMMAND ${ATTN_NODE} ${ATTN_RUN_CASES} --attn "${ATTN_CLI_COMMAND}" ${_case})
  endforeach()
endfunction()
