// web/error_info.hpp — an error as the page shows it (shared by app_state.hpp and lesson_state.hpp).
#pragma once

#include <string>

namespace app {

/// An error as the page shows it: the core's stable code and its message.
struct ErrorInfo {
  std::string code;
  std::string message;
};

}  // namespace app
