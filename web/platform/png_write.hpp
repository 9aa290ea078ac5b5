// web/platform/png_write.hpp — PNG screenshots of the desktop app (stb_image_write).
#pragma once

#include <string>

namespace app {

/// Write w×h RGBA8 pixels as a PNG. `bottom_up`: the first row in memory is the
/// bottom of the image (as glReadPixels returns it). False + `error` on failure.
bool write_png_rgba(const char* path, int w, int h, const unsigned char* rgba, bool bottom_up, std::string* error);

}  // namespace app
