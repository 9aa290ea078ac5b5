# cmake -DOUT=embed.js -DPARTS=a.js,b.js,... -DSHADER=shaders/heatmap.frag -P build_embed_js.cmake
#
# The site's one embed.js from its parts (web/page/embed/*.js, in the order given): the parts are
# concatenated as they are, without their //! header lines, and @VIRIDIS_COEFFICIENTS@ becomes the
# seven vec3 coefficients c0..c6 of viridis() in the heatmap shader, so the exports' colours and
# the screen's have one source; @SUNSET_STOPS@ likewise becomes the shader's sunset stops.
if(NOT OUT OR NOT PARTS OR NOT SHADER)
  message(FATAL_ERROR "build_embed_js.cmake needs OUT, PARTS and SHADER")
endif()

file(READ "${SHADER}" _frag)
set(_rows "")
foreach(_i RANGE 0 6)
  if(NOT _frag MATCHES "const vec3 c${_i} = vec3\\(([-0-9.eE+]+), ([-0-9.eE+]+), ([-0-9.eE+]+)\\);")
    message(FATAL_ERROR "${SHADER}: no 'const vec3 c${_i} = vec3(r, g, b);' in viridis()")
  endif()
  list(APPEND _rows "[${CMAKE_MATCH_1}, ${CMAKE_MATCH_2}, ${CMAKE_MATCH_3}]")
endforeach()
string(REPLACE ";" ",\n               " _coeffs "${_rows}")
set(_coeffs "[${_coeffs}]")
# @SUNSET_STOPS@: the 11 vec3(r, g, b) stops of SUNSET[] in the shader (8-bit integers).
if(NOT _frag MATCHES "const vec3 SUNSET\\[11\\] = vec3\\[11\\]\\(([^;]*)\\);")
  message(FATAL_ERROR "${SHADER}: no 'const vec3 SUNSET[11] = vec3[11](...);'")
endif()
set(_stops "${CMAKE_MATCH_1}")
string(REGEX REPLACE "[ \n]+" " " _stops "${_stops}")
string(REGEX REPLACE "vec3\\(([0-9]+), ([0-9]+), ([0-9]+)\\)" "[\\1, \\2, \\3]" _stops "${_stops}")
string(STRIP "${_stops}" _stops)
set(_stops "[${_stops}]")

string(REPLACE "," ";" PARTS "${PARTS}")
set(_js "")
foreach(_part IN LISTS PARTS)
  file(READ "${_part}" _text)
  # Drop the //! lines (the parts' own headers; not shipped).
  set(_text "\n${_text}")
  string(REGEX REPLACE "\n//![^\n]*" "" _text "${_text}")
  string(SUBSTRING "${_text}" 1 -1 _text)
  string(APPEND _js "${_text}")
endforeach()
string(FIND "${_js}" "@VIRIDIS_COEFFICIENTS@" _at)
if(_at EQUAL -1)
  message(FATAL_ERROR "embed.js parts: no @VIRIDIS_COEFFICIENTS@ to fill")
endif()
string(REPLACE "@VIRIDIS_COEFFICIENTS@" "${_coeffs}" _js "${_js}")
string(REPLACE "@SUNSET_STOPS@" "${_stops}" _js "${_js}")
file(WRITE "${OUT}.tmp" "${_js}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
