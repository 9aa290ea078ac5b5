# The core's layers (docs/ARCHITECTURE.md) as a test: each folder includes only the layers below it.
#
#   cmake -D CORE_DIR=<core> -P tests/support/check_layers.cmake
#
#   attn/     the math: Eigen and the standard library only
#   learn/    learning: attn/ (and nlohmann-json for the checkpoint header)
#   lessons/  the experiments: attn/, learn/
#   json/     the JSON contract: anything in core/
# and nothing in core/ includes a drawing or platform header (SDL, ImGui, GL, emscripten).
# Fails (exit status 1) listing every include that crosses a layer upward. The test registers a
# second run over tests/support/layers_violation/, which must fail.
if(NOT CORE_DIR)
  message(FATAL_ERROR "check_layers.cmake: pass -D CORE_DIR=<core folder>")
endif()
set(_forbidden_attn "lessons/|learn/|json/|cli/")
set(_forbidden_learn "lessons/|json/|cli/")
set(_forbidden_lessons "json/|cli/")
set(_platform "SDL|imgui|GL/|GLES|emscripten")
set(_violations "")
foreach(layer attn learn lessons json cli)
  file(GLOB_RECURSE _files "${CORE_DIR}/${layer}/*.hpp" "${CORE_DIR}/${layer}/*.cpp")
  foreach(_file IN LISTS _files)
    file(STRINGS "${_file}" _includes REGEX "^[ \t]*#[ \t]*include")
    foreach(_line IN LISTS _includes)
      if(DEFINED _forbidden_${layer} AND _line MATCHES "[\"<](${_forbidden_${layer}})")
        list(APPEND _violations "${_file}: ${layer}/ may not include a higher layer: ${_line}")
      endif()
      if(_line MATCHES "[\"<](${_platform})")
        list(APPEND _violations "${_file}: the core may not include drawing or platform headers: ${_line}")
      endif()
    endforeach()
  endforeach()
endforeach()
list(LENGTH _violations _n)
if(_n GREATER 0)
  list(JOIN _violations "\n" _text)
  message(FATAL_ERROR "${_n} include(s) cross the core's layers:\n${_text}")
endif()
message(STATUS "core layers: no include crosses a layer upward (${CORE_DIR})")
