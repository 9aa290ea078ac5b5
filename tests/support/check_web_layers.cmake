# The web wing's layers (docs/ARCHITECTURE.md) as a test: each folder includes only the layers
# below it and the core.
#
#   cmake -D WEB_DIR=<web> -P tests/support/check_web_layers.cmake
#
# Lowest first:
#   platform/  SDL2, GL, the browser: the core only (and ImGui's backends)
#   widgets/   heatmaps, plots, style, the text mirror's record: platform/
#   panels/    one module per panel and their shared base: widgets/, platform/
#   page/      page tools and the fit report, drawn or measured in every frame: panels/ and below
#   app/       the App, AppState, main() and the C functions the page calls: everything
# worker/ and compute/ are separate wasm modules: the core only; any layer may include worker/
# (the page runs the Worker's runner itself where there is no Worker).
#
# Besides the order:
# - Only platform/ holds EM_ASM, EM_JS, emscripten_* calls and <emscripten*.h> (the separate wasm
#   modules worker/ and compute/ are the exception: they are their own programs). The page's C
#   exports use ATTN_EXPORT (platform/emscripten_shim.hpp), so they need no exception.
# - widgets/ see no lesson result but attn::Check (lessons/check.hpp), the value check lines draw.
# - A panel file includes, of panels/, only its own header (panels/<name>.hpp for <name>.cpp and
#   <name>_<part>.cpp) and the panels' shared base (_panel_base): no panel reads another's header.
# - app/app_state.hpp (every panel's state together) only in the files of _app_state_users: the
#   panels whose functions still take the whole AppState, and the table that switches panels.
#   The list only shrinks; a panel that takes its own state is reached through the registry.
# Fails (exit status 1) listing every include or call that crosses a layer. The test registers a
# second run over tests/support/web_layers_violation/, which must fail.
if(NOT WEB_DIR)
  message(FATAL_ERROR "check_web_layers.cmake: pass -D WEB_DIR=<web folder>")
endif()
set(_rank_worker 0)
set(_rank_compute 0)
set(_rank_platform 1)
set(_rank_widgets 2)
set(_rank_panels 3)
set(_rank_page 4)
set(_rank_app 5)
set(_layers platform widgets panels page app worker compute)
# The panels' shared base: what every panel may include of panels/.
set(_panel_base ui.hpp generation.hpp registry.hpp patch.hpp trained_run.hpp lesson_model.hpp lesson_ui.hpp recall.hpp
    train_worker.hpp lm_link.hpp)
# Panels' files that still include app/app_state.hpp (their functions take AppState&).
set(_app_state_users
    registry.cpp recall.cpp model_files.cpp trained_run.cpp
    random_heads.cpp scaling.cpp additive.cpp
    script.cpp cost.cpp learned_heads.cpp learned_heads_json.cpp learned_heads_draw.cpp translate.cpp
    translate_json.cpp translate_draw.cpp language_model.cpp)
set(_core "attn|learn|lessons|json|cli")
set(_browser_calls "EM_ASM|EM_JS|emscripten_[a-z_]+[ \t]*\\(|#[ \t]*include[ \t]*<emscripten")
set(_violations "")
foreach(layer IN LISTS _layers)
  file(GLOB_RECURSE _files "${WEB_DIR}/${layer}/*.hpp" "${WEB_DIR}/${layer}/*.cpp")
  foreach(_file IN LISTS _files)
    get_filename_component(_name "${_file}" NAME)
    get_filename_component(_stem "${_file}" NAME_WE)
    file(STRINGS "${_file}" _includes REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
    foreach(_line IN LISTS _includes)
      if(NOT _line MATCHES "[\"<]([a-z_]+)/([^\">]+)[\">]")
        continue()  # a library header or a generated one ("attn_shaders.hpp")
      endif()
      set(_to "${CMAKE_MATCH_1}")
      set(_to_file "${CMAKE_MATCH_2}")
      if(layer STREQUAL "worker" OR layer STREQUAL "compute")
        if(NOT _to MATCHES "^(${_core})$" AND NOT _to STREQUAL layer)
          list(APPEND _violations "${_file}: ${layer}/ is a separate wasm module: the core only: ${_line}")
        endif()
        continue()
      endif()
      if(NOT DEFINED _rank_${_to})
        continue()  # the core, or a library
      endif()
      if(_to STREQUAL "app" AND _to_file STREQUAL "app_state.hpp" AND layer STREQUAL "panels")
        list(FIND _app_state_users "${_name}" _listed)
        if(_listed LESS 0)
          list(APPEND _violations "${_file}: a panel takes its own state, not AppState: ${_line}")
        endif()
        continue()
      endif()
      if(_rank_${_to} GREATER _rank_${layer})
        list(APPEND _violations "${_file}: ${layer}/ may not include a higher layer: ${_line}")
      elseif(layer STREQUAL "panels" AND _to STREQUAL "panels")
        list(FIND _panel_base "${_to_file}" _base)
        get_filename_component(_to_stem "${_to_file}" NAME_WE)
        if(_base LESS 0 AND NOT _stem STREQUAL _to_stem AND NOT _stem MATCHES "^${_to_stem}_")
          list(APPEND _violations "${_file}: a panel reads no other panel's header: ${_line}")
        endif()
      endif()
    endforeach()
    if(layer STREQUAL "widgets")
      foreach(_line IN LISTS _includes)
        if(_line MATCHES "[\"<]lessons/" AND NOT _line MATCHES "[\"<]lessons/check\\.hpp[\">]")
          list(APPEND _violations "${_file}: widgets/ see no lesson result (only attn::Check): ${_line}")
        endif()
      endforeach()
    endif()
    if(NOT _rank_${layer} EQUAL 0 AND NOT layer STREQUAL "platform")
      file(READ "${_file}" _text)
      string(REGEX MATCHALL "${_browser_calls}" _calls "${_text}")
      list(LENGTH _calls _k)
      if(_k GREATER 0)
        list(GET _calls 0 _first)
        list(APPEND _violations "${_file}: only platform/ calls the browser: ${_k} call(s), the first ${_first}")
      endif()
    endif()
  endforeach()
endforeach()
list(LENGTH _violations _n)
if(_n GREATER 0)
  list(JOIN _violations "\n" _text)
  message(FATAL_ERROR "${_n} include(s) or call(s) cross the web's layers:\n${_text}")
endif()
message(STATUS "web layers: no include crosses a layer upward (${WEB_DIR})")
