# Header-only third-party libraries from Debian's packages.
#
# Under emscripten the toolchain confines find_package to its sysroot, and we
# must never put /usr/include itself on an emscripten include path (it would
# shadow the sysroot's libc headers). So for each library we expose just its
# own directory: Eigen's is /usr/include/eigen3 already; nlohmann and catch2
# sit directly in /usr/include, so we symlink them into a private folder.

find_package(Eigen3 3.4 REQUIRED NO_MODULE NO_CMAKE_FIND_ROOT_PATH)

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
