// web/widgets/error_info.hpp — an error as the page shows it (shared by the panels, web/panels/*.hpp).
#pragma once

#include <attn/error.hpp>

#include <exception>
#include <new>
#include <optional>
#include <string>
#include <utility>

namespace app {

/// An error as the page shows it: the core's stable code and its message.
struct ErrorInfo {
  std::string code;
  std::string message;
};

inline ErrorInfo to_info(const attn::Error& e) { return ErrorInfo{e.code_name(), e.what()}; }

/// Runs `compute`; on attn::Error stores it in `error` and returns false (the caller keeps its
/// last good result). A success leaves `error` as it was: slices, snapshots and evaluations must
/// not clear the message of a refused input. Anything else escaping the core is a bug, but the
/// page must not die of it.
template <typename F>
bool computed(std::optional<ErrorInfo>& error, F&& compute) {
  try {
    compute();
    return true;
  } catch (const attn::Error& e) {
    error = to_info(e);
  } catch (const std::bad_alloc&) {
    error = ErrorInfo{"too_large", "out of memory for this input"};
  } catch (const std::exception& e) {
    error = ErrorInfo{"internal", e.what()};
  }
  return false;
}

/// Like computed(), but a success clears `error`: for the input whose refusal it shows.
template <typename F>
bool guarded(std::optional<ErrorInfo>& error, F&& compute) {
  if (!computed(error, std::forward<F>(compute))) return false;
  error.reset();
  return true;
}

}  // namespace app
