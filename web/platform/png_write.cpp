#include "platform/png_write.hpp"

// Debian's libstb-dev ships the single-file library; this TU holds its implementation.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

namespace app {

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

}  // namespace app
