// attn/masks.hpp — allowed masks (true = this query MAY attend to this key).
//
// Convention: every mask here is an *allowed* mask, Tq×Tk, row = query, column
// = key. PyTorch's nn.MultiheadAttention attn_mask/key_padding_mask use the
// opposite meaning (true = blocked); convert with logical NOT.
//
// Parts are combined with AND. Causal masks with Tq != Tk have two meanings,
// and the core refuses to guess:
//   top_left     — query i sees keys j <= i              (PyTorch is_causal / torch.tril)
//   bottom_right — query i sees keys j <= i + (Tk − Tq)  (FlashAttention >= 2.1; decoding
//                  with a K/V cache, where the queries are the last Tq positions)
// Plain `causal` (Causal::square) requires Tq == Tk, where both agree.
#pragma once

#include <optional>
#include <vector>

#include "attn/types.hpp"

namespace attn {

enum class Causal { none, square, top_left, bottom_right };

/// Every part optional; an empty spec allows every pair.
struct MaskSpec {
  Causal causal = Causal::none;
  std::optional<std::vector<bool>> key_valid;  ///< one flag per key (Tk): false = padding
  std::optional<BoolMatrix> allowed;           ///< explicit Tq×Tk allowed matrix
  /// Local window of symmetric half-width w: allowed iff |i − j| <= w (w >= 0; JSON mask.half_width,
  /// also accepted as mask.window). Not the cost model's causal window (CostInput::causal_width).
  std::optional<long long> half_width;

  bool empty() const { return causal == Causal::none && !key_valid && !allowed && !half_width; }
};

/// Causal allowed mask, Tq×Tk.
/// Throws Error(causal_alignment_required) for Causal::square with Tq != Tk.
BoolMatrix causal_mask(Index tq, Index tk, Causal kind);

/// Key-padding allowed mask, Tq×Tk: column j allowed iff key_valid[j].
/// Throws Error(shape_mismatch) if key_valid.size() != Tk.
BoolMatrix key_padding_mask(Index tq, const std::vector<bool>& key_valid);

/// Local window allowed mask of symmetric half-width w, Tq×Tk: (i, j) allowed iff |i − j| <= w
/// (2w + 1 keys per query away from the edges). Throws Error(invalid_mask) for w < 0.
BoolMatrix half_width_mask(Index tq, Index tk, long long w);

/// AND of every part of `spec`, Tq×Tk (all true when the spec is empty).
/// Throws Error(shape_mismatch) when a part's size differs from Tq×Tk,
/// Error(causal_alignment_required), Error(invalid_mask).
BoolMatrix build_allowed(const MaskSpec& spec, Index tq, Index tk);

}  // namespace attn
