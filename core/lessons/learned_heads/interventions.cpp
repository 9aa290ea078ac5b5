#include "lessons/learned_heads/interventions.hpp"

#include <algorithm>

namespace attn::lessons {
namespace {
namespace decode_parts {
// compare_decoding in parts, in its order: the study runs one part per unit, so that no unit is
// much longer than one evaluation of the held-out batch.

// The teacher-forced forward of the display sequence (its logits kept for the edits) against the
// K/V-cached pass.
void teacher(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout, const std::vector<double>& params,
             const InductionBatch& heldout, DecodeComparison& d, std::vector<double>& teacher_logits) {
  const int T = heldout.batch.t;
  d.tokens.assign(heldout.batch.tokens.begin(), heldout.batch.tokens.begin() + T);
  const learn::CacheCheck c = learn::decoder_cache_check(cfg, layout, params, d.tokens, &teacher_logits);
  d.teacher_forced_positions = c.positions;
  d.max_logit_diff = c.max_diff;
}

// Generation's dependency, and the display sequence's greedy continuation.
void dependency(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout, const std::vector<double>& params,
                const InductionBatch& heldout, DecodeComparison& d) {
  static_cast<learn::GenerationDependency&>(d) =
      learn::decoder_generation_dependency(cfg, layout, params, d.tokens[0], static_cast<int>(d.tokens.size()));
  const InductionLayout& lay = heldout.layouts[0];
  d.prompt.assign(d.tokens.begin(), d.tokens.begin() + lay.repeat_start() + 1);
  d.expected.assign(d.tokens.begin() + lay.repeat_start() + 1, d.tokens.begin() + lay.repeat_start() + lay.run);
  const std::vector<int> out =
      learn::decoder_greedy(cfg, layout, params, d.prompt, static_cast<int>(d.expected.size()));
  d.generated.assign(out.begin() + static_cast<long>(d.prompt.size()), out.end());
  for (size_t i = 0; i < d.generated.size() && i < d.expected.size(); ++i) d.correct += d.generated[i] == d.expected[i];
}

// The greedy continuation of held-out sequences [b0, b1).
void batch(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout, const std::vector<double>& params,
           const InductionBatch& heldout, int b0, int b1, DecodeComparison& d) {
  const int T = heldout.batch.t;
  for (int b = b0; b < b1; ++b) {
    const InductionLayout& L = heldout.layouts[static_cast<size_t>(b)];
    const int* tok = heldout.batch.tokens.data() + static_cast<size_t>(b) * T;
    const std::vector<int> prompt(tok, tok + L.repeat_start() + 1);
    const std::vector<int> expected(tok + L.repeat_start() + 1, tok + L.repeat_start() + L.run);
    const std::vector<int> gen = learn::decoder_greedy(cfg, layout, params, prompt, static_cast<int>(expected.size()));
    int right = 0;
    for (size_t i = 0; i < expected.size() && prompt.size() + i < gen.size(); ++i) right += gen[prompt.size() + i] == expected[i];
    d.batch_correct += right;
    d.batch_expected += static_cast<int>(expected.size());
    d.batch_complete += right == static_cast<int>(expected.size());
    ++d.batch_sequences;
  }
}

// Shifted targets: position i is trained on token i + 1. Edit every token after position c
// (the targets of positions c.. and beyond) and compare the logits of positions 0..c.
void edits(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout, const std::vector<double>& params,
           const std::vector<double>& teacher_logits, DecodeComparison& d) {
  const learn::FutureEditCheck f = learn::decoder_future_edit_check(cfg, layout, params, d.tokens, teacher_logits);
  d.future_edit_max_diff = f.future_max_diff;
  d.target_edit_max_diff = f.target_max_diff;
  d.future_edits = f.edits;
}
}  // namespace decode_parts
}  // namespace

HeadsInterventionStudy::HeadsInterventionStudy(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                                               const std::vector<double>& params, const InductionBatch& clean,
                                               const InductionBatch& corrupt, Parts parts)
    : cfg_(cfg), layout_(layout), params_(params), clean_(clean), corrupt_(corrupt) {
  const int heads = cfg.layers * cfg.heads;
  plan_.push_back({Unit::clean, 0});
  if (parts.ablation)
    for (int id = 0; id < heads; ++id) {
      plan_.push_back({Unit::ablate_zero, id});
      plan_.push_back({Unit::ablate_mean, id});
    }
  if (parts.patching) {
    plan_.push_back({Unit::corrupt, 0});
    for (int id = 0; id < heads; ++id) plan_.push_back({Unit::patch, id});
  }
  if (parts.decoding) {  // compare_decoding's parts; greedy continuations a few sequences per unit
    plan_.push_back({Unit::decode_teacher, 0});
    plan_.push_back({Unit::decode_dependency, 0});
    for (int b = 0; b < clean.batch.batch; b += kDecodeSequencesPerUnit) plan_.push_back({Unit::decode_batch, b});
    plan_.push_back({Unit::decode_edits, 0});
  }
}

const char* HeadsInterventionStudy::phase() const {
  if (done()) return "done";
  switch (plan_[static_cast<size_t>(unit_)].first) {
    case Unit::clean:
    case Unit::ablate_zero:
    case Unit::ablate_mean: return "ablation";
    case Unit::corrupt:
    case Unit::patch: return "patching";
    default: break;
  }
  return "decoding";
}

int HeadsInterventionStudy::advance(int max_units) {
  int ran = 0;
  using Iv = learn::HeadIntervention;
  for (; ran < max_units && !done(); ++ran, ++unit_) {
    const auto [kind, id] = plan_[static_cast<size_t>(unit_)];
    if (kind == Unit::clean) {  // its head outputs give the means and the patches
      ablation_.base = evaluate(cfg_, layout_, params_, clean_, nullptr, &clean_acts_);
      patching_.clean_loss = ablation_.base.loss;
      ablation_.head_means = learn::decoder_head_output_means(cfg_, clean_acts_);
    } else if (kind == Unit::ablate_zero || kind == Unit::ablate_mean) {  // one head alone
      const bool zero = kind == Unit::ablate_zero;
      const Iv iv = learn::decoder_one_head_intervention(cfg_, id, zero ? Iv::zero : Iv::mean_of_batch, ablation_.head_means);
      (zero ? ablation_.zero : ablation_.mean).push_back(evaluate(cfg_, layout_, params_, clean_, &iv, &scratch_));
    } else if (kind == Unit::corrupt) {
      patching_.corrupt_loss = evaluate(cfg_, layout_, params_, corrupt_, nullptr, &scratch_).loss;
    } else if (kind == Unit::patch) {  // the corrupted run with one head patched from the clean run
      const Iv iv = learn::decoder_one_head_intervention(cfg_, id, Iv::patch, {}, &clean_acts_);
      const double lp = evaluate(cfg_, layout_, params_, corrupt_, &iv, &scratch_).loss;
      patching_.patched_loss.push_back(lp);
      patching_.recovered.push_back(learn::patching_recovered(patching_.clean_loss, patching_.corrupt_loss, lp));
    } else if (kind == Unit::decode_teacher) {
      decode_parts::teacher(cfg_, layout_, params_, clean_, decoding_, teacher_logits_);
    } else if (kind == Unit::decode_dependency) {
      decode_parts::dependency(cfg_, layout_, params_, clean_, decoding_);
    } else if (kind == Unit::decode_batch) {
      decode_parts::batch(cfg_, layout_, params_, clean_, id, std::min(id + kDecodeSequencesPerUnit, clean_.batch.batch),
                          decoding_);
    } else {
      decode_parts::edits(cfg_, layout_, params_, teacher_logits_, decoding_);
    }
  }
  return ran;
}

AblationStudy ablate_each_head(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                               const std::vector<double>& params, const InductionBatch& batch) {
  HeadsInterventionStudy st(cfg, layout, params, batch, batch, {true, false, false});
  st.advance(st.units_total());
  return st.ablation();
}

PatchingStudy patch_each_head(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                              const std::vector<double>& params, const InductionBatch& clean,
                              const InductionBatch& corrupt) {
  HeadsInterventionStudy st(cfg, layout, params, clean, corrupt, {false, true, false});
  st.advance(st.units_total());
  return st.patching();
}

DecodeComparison compare_decoding(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                                  const std::vector<double>& params, const InductionBatch& heldout) {
  DecodeComparison d;
  std::vector<double> teacher_logits;
  decode_parts::teacher(cfg, layout, params, heldout, d, teacher_logits);
  decode_parts::dependency(cfg, layout, params, heldout, d);
  decode_parts::batch(cfg, layout, params, heldout, 0, heldout.batch.batch, d);
  decode_parts::edits(cfg, layout, params, teacher_logits, d);
  return d;
}

}  // namespace attn::lessons
