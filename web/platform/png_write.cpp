#include "platform/png_write.hpp"

#ifndef __EMSCRIPTEN__
// Debian's libstb-dev ships the single-file library; this TU holds its implementation.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
#endif

namespace app {

#ifdef __EMSCRIPTEN__
// The page is linked with -sFILESYSTEM=0 (web/CMakeLists.txt): there is no path to write to.
// Its PNG buttons read the canvas in JavaScript; --screenshot is a desktop option.
bool write_png_rgba(const char* path, int, int, const unsigned char*, bool, std::string* error) {
  if (error) *error = std::string("cannot write PNG to ") + path + ": the browser build has no file system";
  return false;
}
#else
bool write_png_rgba(const char* path, int w, int h, const unsigned char* rgba, bool bottom_up, std::string* error) {
  if (w <= 0 || h <= 0 || !rgba) {
    if (error) *error = "nothing to write (empty framebuffer)";
    return false;
  }
  stbi_flip_vertically_on_write(bottom_up ? 1 : 0);
  if (!stbi_write_png(path, w, h, 4, rgba, w * 4)) {
    if (error) *error = std::string("cannot write PNG to ") + path;
    return false;
  }
  return true;
}
#endif

}  // namespace app
