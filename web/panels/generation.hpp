// web/panels/generation.hpp — the page's data generation, which every setter bumps.
#pragma once

#include <cstdint>

namespace app {

/// The page's data generation: how many successful recomputes the panels have made, in this
/// process (which holds one page). Heatmaps take it as their data version (a texture is uploaded
/// again when it moves) and App::needs_frame draws when it moved since the last frame. A setter
/// bumps it with changed(), so that it needs no state but its panel's own.
inline std::uint64_t& generation_counter() {
  static std::uint64_t generation = 1;
  return generation;
}
inline std::uint64_t generation() { return generation_counter(); }
/// Count one successful recompute (see generation()).
inline void changed() { ++generation_counter(); }

}  // namespace app
