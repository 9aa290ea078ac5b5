#include "attn/masks.hpp"

#include <string>

#include "attn/error.hpp"

namespace attn {

BoolMatrix causal_mask(Index tq, Index tk, Causal kind) {
  BoolMatrix m = BoolMatrix::Constant(tq, tk, true);
  if (kind == Causal::none) return m;
  if (kind == Causal::square && tq != tk) {
    throw Error(ErrorCode::causal_alignment_required,
                "causal mask with Tq=" + std::to_string(tq) + " != Tk=" + std::to_string(tk) +
                    " is ambiguous: say \"top_left\" (PyTorch is_causal: query i sees keys 0..i) or "
                    "\"bottom_right\" (FlashAttention: query i sees keys 0..i+Tk-Tq)");
  }
  // Offset of the diagonal: 0 for top_left/square, Tk − Tq for bottom_right.
  const Index offset = (kind == Causal::bottom_right) ? tk - tq : 0;
  for (Index i = 0; i < tq; ++i)
    for (Index j = 0; j < tk; ++j) m(i, j) = j <= i + offset;
  return m;
}

BoolMatrix key_padding_mask(Index tq, const std::vector<bool>& key_valid) {
  const Index tk = static_cast<Index>(key_valid.size());
  BoolMatrix m(tq, tk);
  for (Index i = 0; i < tq; ++i)
    for (Index j = 0; j < tk; ++j) m(i, j) = key_valid[static_cast<size_t>(j)];
  return m;
}

BoolMatrix half_width_mask(Index tq, Index tk, long long w) {
  if (w < 0) throw Error(ErrorCode::invalid_mask, "window must be >= 0, got " + std::to_string(w));
  BoolMatrix m(tq, tk);
  for (Index i = 0; i < tq; ++i)
    for (Index j = 0; j < tk; ++j) m(i, j) = (i > j ? i - j : j - i) <= w;
  return m;
}

BoolMatrix build_allowed(const MaskSpec& spec, Index tq, Index tk) {
  BoolMatrix m = causal_mask(tq, tk, spec.causal);
  if (spec.key_valid) {
    if (static_cast<Index>(spec.key_valid->size()) != tk)
      throw Error(ErrorCode::shape_mismatch,
                  "mask.key_valid has " + std::to_string(spec.key_valid->size()) +
                      " flags but there are Tk=" + std::to_string(tk) + " keys");
    m = m.array() && key_padding_mask(tq, *spec.key_valid).array();
  }
  if (spec.allowed) {
    if (spec.allowed->rows() != tq || spec.allowed->cols() != tk)
      throw Error(ErrorCode::shape_mismatch,
                  "mask.allowed is " + std::to_string(spec.allowed->rows()) + "x" +
                      std::to_string(spec.allowed->cols()) + " but attention is Tq x Tk = " +
                      std::to_string(tq) + "x" + std::to_string(tk));
    m = m.array() && spec.allowed->array();
  }
  if (spec.half_width) m = m.array() && half_width_mask(tq, tk, *spec.half_width).array();
  return m;
}

}  // namespace attn
