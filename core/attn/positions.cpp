#include "attn/positions.hpp"

#include <string>

#include "attn/detmath.hpp"
#include "attn/error.hpp"
#include "attn/linalg.hpp"

namespace attn {

const char* position_kind_name(PositionKind k) {
  switch (k) {
    case PositionKind::sinusoidal: return "sinusoidal";
    case PositionKind::rope: return "rope";
    default: return "none";
  }
}

Matrix sinusoidal_positions(Index t, Index d_model) {
  if (t <= 0 || d_model <= 0)
    throw Error(ErrorCode::empty_sequence, "sinusoidal positions need T >= 1 and d_model >= 1, got T=" +
                                               std::to_string(t) + ", d_model=" + std::to_string(d_model));
  if (t > kMaxTokens || d_model > kMaxWidth)
    throw Error(ErrorCode::too_large, "sinusoidal positions limited to T <= " +
                                          std::to_string(kMaxTokens) + ", d_model <= " +
                                          std::to_string(kMaxWidth));
  Matrix pe(t, d_model);
  for (Index c = 0; c < d_model; ++c) {
    const Index two_i = c - (c % 2);
    const double inv_freq = 1.0 / det::pow(10000.0, static_cast<double>(two_i) / d_model);
    for (Index pos = 0; pos < t; ++pos) {
      const double angle = static_cast<double>(pos) * inv_freq;
      pe(pos, c) = (c % 2 == 0) ? det::sin(angle) : det::cos(angle);
    }
  }
  return pe;
}

}  // namespace attn
