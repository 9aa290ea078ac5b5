// web/platform/gl.hpp — OpenGL declarations for the app's own GL code.
// Browser: WebGL2 through emscripten's GLES 3.0 headers. Native: desktop GL 3.3 core,
// called directly (libGL from glvnd exports every core entry point).
#pragma once

#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#ifndef GL_GLEXT_PROTOTYPES
#define GL_GLEXT_PROTOTYPES 1
#endif
#include <GL/glcorearb.h>
#endif
