# cmake/deps.cmake — third-party GUI dependencies, taken from the setup cache.
#
# Included once, by the top-level CMakeLists.txt, when the GUI app is built. Nothing here is
# committed third-party code: scripts/setup.sh fetches it into
#   ${ATTN_CACHE_DIR}/<name>-<version>       (default ~/.cache/attention-lab, or $XDG_CACHE_HOME)
# and this file finds it there by the same convention. Versions: cmake/versions.env (read by
# cmake/thirdparty.cmake and by scripts/setup.sh).
#
# Defines
#   ATTN_CACHE_DIR             cache root (set in cmake/thirdparty.cmake; -DATTN_CACHE_DIR=... or env ATTN_CACHE_DIR)
#   ATTN_IMGUI_DIR             Dear ImGui sources (Debian source package imgui)
#   ATTN_SDL2_WASM_PREFIX      SDL2 built for wasm (web builds only)
#   ATTN_IMGUI_DRAW_CPP        imgui_draw.cpp with its word wrap kept out of numbers (see below)
#   attn_sdl2   INTERFACE target: SDL2 (native: Debian's libsdl2-dev; web: the cache's wasm build)
#   attn_imgui  STATIC target: ImGui core + SDL2 and OpenGL3 backends, linked to attn_sdl2 and GL
#               (native: desktop GL 3.3 core through ImGui's own loader, "#version 330 core";
#                web: WebGL2 = GLES 3.0, IMGUI_IMPL_OPENGL_ES3 defined, "#version 300 es")
include_guard(GLOBAL)

foreach(_v ATTN_IMGUI_VERSION ATTN_SDL2_VERSION)
  if(NOT ${_v})
    message(FATAL_ERROR "${_v} unset: cmake/thirdparty.cmake reads it from cmake/versions.env")
  endif()
endforeach()

# ATTN_CACHE_DIR: set by cmake/thirdparty.cmake (the core's tests read the cache too).

function(_attn_require_dep what stamp)
  if(NOT EXISTS "${stamp}")
    message(FATAL_ERROR
      "Attention Lab: ${what} not found (looked for ${stamp}).\n"
      "Run scripts/setup.sh to fetch and build the GUI dependencies into ${ATTN_CACHE_DIR}, "
      "or point -DATTN_CACHE_DIR=... at an existing cache.")
  endif()
endfunction()

set(ATTN_IMGUI_DIR "${ATTN_CACHE_DIR}/imgui-${ATTN_IMGUI_VERSION}" CACHE INTERNAL "Dear ImGui sources")
_attn_require_dep("Dear ImGui ${ATTN_IMGUI_VERSION} sources" "${ATTN_IMGUI_DIR}/.attn-ok")

# ------------------------------------------------------------------ SDL2
if(NOT TARGET attn_sdl2)
  add_library(attn_sdl2 INTERFACE)
  if(EMSCRIPTEN)
    # scripts/setup.sh builds it for size (MinSizeRel, SDL_LEAN_AND_MEAN) under this name.
    set(ATTN_SDL2_WASM_PREFIX "${ATTN_CACHE_DIR}/sdl2-wasm-${ATTN_SDL2_VERSION}-lean" CACHE INTERNAL "SDL2 wasm build")
    _attn_require_dep("SDL2 ${ATTN_SDL2_VERSION} wasm build" "${ATTN_SDL2_WASM_PREFIX}/.attn-ok")
    # include/SDL2 holds SDL2's headers and the build's generated SDL_config.h. It must come
    # before emscripten's sysroot, whose include/SDL holds SDL 1 headers: -isystem on the
    # command line is searched before the sysroot dirs emcc adds. Never /usr/include here.
    target_include_directories(attn_sdl2 SYSTEM BEFORE INTERFACE "${ATTN_SDL2_WASM_PREFIX}/include/SDL2")
    target_link_libraries(attn_sdl2 INTERFACE "${ATTN_SDL2_WASM_PREFIX}/lib/libSDL2.a")
    # USE_SDL=0: don't pull emscripten's JS implementation of SDL 1 (the default, USE_SDL=1).
    target_link_options(attn_sdl2 INTERFACE "-sUSE_SDL=0")
  else()
    find_package(SDL2 REQUIRED CONFIG)        # Debian's libsdl2-dev
    target_link_libraries(attn_sdl2 INTERFACE SDL2::SDL2)
    if(TARGET SDL2::SDL2main)
      target_link_libraries(attn_sdl2 INTERFACE SDL2::SDL2main)
    endif()
  endif()
endif()

# ------------------------------------------------------------------ ImGui
# ImGui 1.86 wraps text after '.', ',', ';', '!', '?' or '"' even inside a number ("3." at a line's
# end, "33e-16" on the next). ImFont::CalcWordWrapPositionA, the one function every wrapped text
# goes through (drawing and measuring), is changed in a copy of imgui_draw.cpp written here, the
# cache's file untouched: punctuation directly followed by a digit stays inside its word (3.33e-16,
# 1,024, 0.5,0.5), and every line end the wrap picks is reported to ImFontWrapHook (null unless the
# app sets it: web/page/fit_report.cpp flags a number cut at a line's end). Configuring stops if
# the upstream text no longer matches.
set(ATTN_IMGUI_DRAW_CPP "${CMAKE_BINARY_DIR}/imgui-patched/imgui_draw.cpp")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${ATTN_IMGUI_DIR}/imgui_draw.cpp")
file(READ "${ATTN_IMGUI_DIR}/imgui_draw.cpp" _attn_draw)
# (One call per edit, no lists: the C++ text holds semicolons; a function, not a macro, so its
# arguments are not parsed a second time.)
function(_attn_imgui_edit from to)
  string(FIND "${_attn_draw}" "${from}" _at)
  if(_at LESS 0)
    message(FATAL_ERROR "cmake/deps.cmake: ImGui's imgui_draw.cpp no longer contains the text its word-wrap change replaces:\n${from}")
  endif()
  string(REPLACE "${from}" "${to}" _edited "${_attn_draw}")
  set(_attn_draw "${_edited}" PARENT_SCOPE)
endfunction()
_attn_imgui_edit(
  [=[            inside_word = (c != '.' && c != ',' && c != ';' && c != '!' && c != '?' && c != '\"');]=]
  [=[            inside_word = (c != '.' && c != ',' && c != ';' && c != '!' && c != '?' && c != '\"') ||
                          (next_s < text_end && *next_s >= '0' && *next_s <= '9');  // Attention Lab: not inside a number]=])
_attn_imgui_edit(
  [=[const char* ImFont::CalcWordWrapPositionA(float scale, const char* text, const char* text_end, float wrap_width) const
{]=]
  [=[// Attention Lab: told each line end the word wrap picks (text, the line's end, the text's end).
void (*ImFontWrapHook)(const char* text, const char* line_end, const char* text_end) = NULL;

const char* ImFont::CalcWordWrapPositionA(float scale, const char* text, const char* text_end, float wrap_width) const
{]=])
_attn_imgui_edit(
  [=[
    return s;
}

ImVec2 ImFont::CalcTextSizeA(]=]
  [=[
    if (ImFontWrapHook)
        ImFontWrapHook(text, s, text_end);
    return s;
}

ImVec2 ImFont::CalcTextSizeA(]=])
file(WRITE "${ATTN_IMGUI_DRAW_CPP}.tmp" "${_attn_draw}")
configure_file("${ATTN_IMGUI_DRAW_CPP}.tmp" "${ATTN_IMGUI_DRAW_CPP}" COPYONLY)  # rebuilt only when it changes

if(NOT TARGET attn_imgui)
  add_library(attn_imgui STATIC
    "${ATTN_IMGUI_DIR}/imgui.cpp"
    "${ATTN_IMGUI_DRAW_CPP}"
    "${ATTN_IMGUI_DIR}/imgui_tables.cpp"
    "${ATTN_IMGUI_DIR}/imgui_widgets.cpp"
    "${ATTN_IMGUI_DIR}/backends/imgui_impl_sdl.cpp"        # 1.86 name (later: imgui_impl_sdl2)
    "${ATTN_IMGUI_DIR}/backends/imgui_impl_opengl3.cpp")
  target_include_directories(attn_imgui SYSTEM PUBLIC "${ATTN_IMGUI_DIR}" "${ATTN_IMGUI_DIR}/backends")
  target_compile_features(attn_imgui PUBLIC cxx_std_17)
  target_compile_definitions(attn_imgui PUBLIC IMGUI_DISABLE_OBSOLETE_FUNCTIONS)
  target_compile_options(attn_imgui PRIVATE -w)   # third-party code: its warnings are not ours
  # ImGui's item hooks, used by the app's item locator (web/platform/browser_glue.cpp) for
  # browser tests; ImGui calls them only while GImGui->TestEngineHookItems is set.
  target_compile_definitions(attn_imgui PRIVATE IMGUI_ENABLE_TEST_ENGINE)
  # 32-bit ImWchar: text fields keep characters beyond U+FFFF (emoji) instead of turning them
  # into U+FFFD on the first edit; the font still draws those as the replacement mark.
  target_compile_definitions(attn_imgui PUBLIC IMGUI_USE_WCHAR32)
  target_link_libraries(attn_imgui PUBLIC attn_sdl2)
  if(EMSCRIPTEN)
    # WebGL2 only: the backend then includes <GLES3/gl3.h> and defaults to "#version 300 es".
    # Without this define ImGui 1.86 picks GLES2/WebGL1 on emscripten.
    target_compile_definitions(attn_imgui PUBLIC IMGUI_IMPL_OPENGL_ES3)
    target_link_options(attn_imgui INTERFACE
      "-sUSE_WEBGL2=1" "-sMIN_WEBGL_VERSION=2" "-sMAX_WEBGL_VERSION=2")
  else()
    # The backend loads desktop GL 3.x entry points itself (imgui_impl_opengl3_loader.h,
    # dlopen of libGL.so.1). OpenGL::GL is linked so the app's own GL code can call GL
    # directly (GL_GLEXT_PROTOTYPES + <SDL_opengl.h>).
    set(OpenGL_GL_PREFERENCE GLVND)
    find_package(OpenGL REQUIRED COMPONENTS OpenGL)
    target_link_libraries(attn_imgui PUBLIC OpenGL::GL ${CMAKE_DL_LIBS})
  endif()
endif()
