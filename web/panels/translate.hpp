// web/panels/translate.hpp — inputs and results of the "Translate" panel: setters in translate.cpp,
// state() and set() in translate_json.cpp, drawing in translate_draw.cpp.
//
// Two GRU translators of the mini-language (core/lessons/translate/): a fixed summary and
// additive attention, trained together. Same one-way flow as learned_heads.hpp: inputs change only
// through the setters below, which validate through the core and keep the last good inputs and
// results on attn::Error. Training runs in slices from tick_translate() before anything is drawn;
// the evaluation (greedy decoding of the test set) and the alignment run when a run stops (pause,
// reset, checkpoint: at once; a run's end: one test sentence per unit in the frames after its
// last step, with the training's budget), never while drawing.
#pragma once

#include "lessons/check.hpp"
#include "lessons/translate/translate.hpp"
#include "panels/trained_run.hpp"

namespace app {

/// seed, steps (1..5000) and Adam's learning rate ((0, 1]) from RunInputs, then the width and the views.
struct TranslateInput : RunInputs {
  TranslateInput() : RunInputs{17, 1000, 5e-3} {}
  int hidden = 32;    ///< H (= E = A): 8, 16, 32 or 64; the shipped checkpoint is H 32
  /// Both models' encoder, "bidirectional" (Bahdanau's; the shipped checkpoint's) or "forward".
  std::string encoder = "bidirectional";
  std::string sentence = "the black cat";  ///< the alignment's sentence (English, the grammar's words)
  int beam_width = 4;   ///< beam search's width k, 1..16
  double alpha = 0.6;   ///< GNMT length-penalty exponent, 0..2
  int row = 0;          ///< the alignment row traced below the heatmap (clamped to its rows)
  bool same_run(const TranslateInput& o) const {
    return same_run_inputs(o) && hidden == o.hidden && encoder == o.encoder;
  }
  bool operator==(const TranslateInput& o) const {
    return same_run(o) && sentence == o.sentence && beam_width == o.beam_width && alpha == o.alpha && row == o.row;
  }
};

/// The core's configuration for the inputs (data and the rest at their defaults).
attn::lessons::TranslateConfig translate_config(const TranslateInput& in);

/// Both models scored on the test set at one step.
struct TranslateScores {
  int step = 0;
  attn::lessons::TranslateEval none, additive;
  std::string caption;  ///< what the numbers show, worded from them
  /// The attention model's alignment against the grammar's word alignment, on the test set.
  attn::lessons::AlignmentAgreement agreement;
  std::string agreement_caption;
  /// Exact match with each test sentence's most-read source word removed from the attention.
  attn::lessons::MostReadRemoval removal;
  // The table as drawn (a heatmap, so the text mirror carries it): rows the buckets then "all",
  // columns summary exact, summary tokens, attention exact, attention tokens (fractions).
  attn::Matrix table;
  std::vector<std::string> table_rows, table_cols;
};

/// The attention model's alignment of input.sentence at one step, as drawn.
struct TranslateAlignmentView {
  int step = 0;
  attn::lessons::TranslateAlignment result;
  attn::Matrix weights;  ///< rows: target words then EOS, columns: source words
  std::vector<double> row_sums;
  std::string greedy;    ///< the greedy translation's words
  std::string caption;   ///< what the measured rows show
  std::vector<attn::Check> checks;  ///< rows sum to 1; padded positions get 0
  /// Each source word removed from the attention, the lesson's weights forced (3 words), measured.
  attn::lessons::AttentionInterventions interventions;
  std::string intervention_caption;
  std::vector<attn::Check> intervention_checks;  ///< the intervention path without one is the model's

  // Decoding the sentence with the attention model, as drawn.
  struct GreedyRow {
    std::string word, reads;  ///< the chosen word; the source word with the step's largest weight
    double probability = 0.0, read_weight = 0.0;
  };
  std::vector<GreedyRow> greedy_rows;
  struct ForcedRow {
    std::string reference, argmax;  ///< the word fed next / the model's most likely word here
    double p_reference = 0.0;       ///< the model's probability of the reference word
  };
  std::vector<ForcedRow> forced_rows;
  std::string summary_greedy;  ///< the fixed-summary model's greedy translation
  struct BeamRow {
    std::string words;
    bool ended = false;
    int length = 0;  ///< |Y|: emitted tokens, EOS included
    double log_prob = 0.0, penalty = 0.0, score = 0.0;
  };
  std::vector<BeamRow> beam_rows;
  int beam_best = 0;
  attn::lessons::BeamPrefixCheck beam_prefix;  ///< the search left the distributions alone, measured
  std::vector<attn::Check> beam_checks;
};

/// The H control's precomputed figures (checkpoints/translate_widths.json, embedded in the build):
/// each width of the default run trained from its seed natively, as Train does here.
struct TranslateWidths {
  std::vector<attn::lessons::TranslateWidthResult> rows;
  std::string error;    ///< why the embedded table could not be read (then rows is empty)
  std::string caption;  ///< what the table measured (the default encoder's rows), worded from its numbers
  std::string encoders_caption;  ///< the two encoders at H 32, worded from the table
  // As drawn (a heatmap, so the text mirror carries it): rows "bidirectional H 8".., columns exact
  // match per bucket, fixed summary then attention.
  attn::Matrix table;
  std::vector<std::string> table_rows, table_cols;
};

/// A finished run's parameters against the precomputed run of the same configuration (the
/// table's, which at H 32 is the shipped checkpoint): FNV-1a of each model's float64 bits.
struct TranslateReproduction {
  bool compared = false;  ///< false: no precomputed run has this configuration
  bool same = false;
  int hidden = 0;
  std::string none_fnv1a, additive_fnv1a, want_none_fnv1a, want_additive_fnv1a;
  std::string sentence;  ///< what the comparison found, worded from it (empty when not compared)
};

/// The shipped pair (checkpoints/translate.ckpt, `attn checkpoint translate`), fetched through the
/// panel table (TrainedRun) when the panel is first shown with the default inputs at step 0.
inline constexpr const char* kTranslateCheckpointUrl = "checkpoints/translate.ckpt";

/// A seq2seq model the user brought (learn/model_file.hpp), with the lesson's vocabularies: it takes
/// the place of the pair's model of its kind (attention or fixed summary), which trains and is
/// measured from its weights; the other model stays the lab's.
using TranslateLoaded = BroughtModel<attn::learn::Seq2SeqConfig>;

/// A seq2seq model the user brought whose vocabularies are not the lesson's: the panel shows it in
/// place of the pair and runs on it, tokens as numbers, the analyses that need no words
/// (lessons::token_analysis); lessons::lesson_word_analyses lists those that do not run. It
/// cannot train (the lesson's pairs are the data); the lab's pair waits behind it.
struct TranslateTokens {
  attn::lessons::TranslateModel model;
  std::vector<int> source, target;  ///< last good (target empty: the greedy output is analysed)
  attn::lessons::TokenAnalysis analysis;
  std::string caption;  ///< worded from the analysis (lessons::token_caption)
  // The alignment as drawn (attention models): rows the analysed target's ids then EOS, columns
  // the source positions "position:id".
  attn::Matrix weights;
  std::vector<double> row_sums;
  std::vector<std::string> rows, cols;
  std::vector<attn::Check> checks;  ///< rows sum to 1, PAD gets 0, the intervention path, beam prefixes
  // The draw function's own widgets: the ids being typed (re-read when the inputs change).
  char source_buf[512] = {}, target_buf[512] = {};
  std::string source_shown, target_shown;
};

struct TranslateState {
  TranslateInput input;  ///< last good
  std::shared_ptr<attn::lessons::TranslateTrainer> trainer;  ///< the run (step 0 after a reset)
  TrainedRun run;  ///< running, runs, the checkpoint's fetch, steps/s (panels/trained_run.hpp)
  std::shared_ptr<const TranslateLoaded> loaded;  ///< a model from a file, or null
  std::optional<TranslateTokens> tokens;  ///< a model from a file over other vocabularies, shown instead of the pair

  std::optional<TranslateScores> scores;
  /// The test-set scores of a model too big for one frame, measured one sentence per unit across
  /// frames (null otherwise, and once they are in `scores`); the step they measure.
  std::shared_ptr<attn::lessons::TranslateScoresStudy> scores_study;
  int scores_study_step = 0;
  std::optional<TranslateAlignmentView> alignment;
  TranslateWidths widths;
  TranslateReproduction reproduction;
  attn::Matrix lesson_weights;  ///< the lesson's constructed "le chat noir" matrix
  std::vector<std::string> lesson_rows, lesson_cols;
  std::vector<double> lesson_row_sums;

  // Loss curves as drawn (means over `curve_stride` steps), validation points.
  std::vector<double> curve_x, curve_none, curve_additive;
  int curve_stride = 1;

  std::optional<ErrorInfo> error;

  // The draw function's own widgets: the sentence being typed (re-read from input.sentence when
  // that changes or an edit was refused) and the test-sentence number field.
  char sentence_buf[512] = {};
  std::string sentence_shown;
  int test_index = 1;
};

/// Step 0 of the default run (cannot fail).
void init_translate(AppState& s);
/// init_translate() unless done: the dataset and the trainer are built when the panel is first
/// shown (or first patched by set()), never at page start.
void ensure_translate(AppState& s);
/// Validate and take new inputs: a change of seed, steps, lr or H starts over at step 0; a new
/// sentence only recomputes the alignment. False (error recorded, last good state kept) on bad input.
bool set_translate_input(AppState& s, const TranslateInput& in);
/// The sentence becomes test pair `index` (1-based, in the test set's order: 1 is "the black cat").
/// False (error recorded, last good state kept) when there is no such pair.
bool pick_translate_test_sentence(AppState& s, int index);
/// One frame's slice: while running, parts of the run within `budget_seconds` (at least one;
/// run_slice): steps of both models, and a due validation loss one forward pass at a time
/// (TranslateTrainer::advance_part); after the last step, the test-set scores in slices of the same budget, then the
/// alignment (the run stays "training" until they are measured). True when anything changed.
bool tick_translate(AppState& s, double budget_seconds = kTrainSliceSeconds);
/// The run controls' actions: Train (a fresh run from step 0, running), Pause, Continue (where it
/// stopped; a finished or restored run stays as it is), Reset (step 0, not running), and dropping
/// a loaded model (back to the lab's own pair at step 0).
void translate_train(AppState& s);
void translate_pause(AppState& s);
void translate_continue(AppState& s);
void translate_reset(AppState& s);
void translate_unload_model(AppState& s);
/// The token model's inputs (only with one loaded): source ids (1..512, each below its source
/// vocabulary) and target ids ([] analyses the greedy output). False (error recorded, last good
/// inputs and results kept) when they are refused, or no such model is loaded.
bool set_translate_tokens(AppState& s, const std::vector<int>& source, const std::vector<int>& target);
/// The largest id and count a typed token list may hold (parse_token_ids, panels/patch.hpp).
inline constexpr int kTranslateMaxTypedId = 4095;
inline constexpr std::size_t kTranslateMaxTypedIds = 512;

/// True when the panel (or the Additive panel's trained view) should fetch the shipped pair now:
/// `shown`, never asked for, the default run at step 0 and not running.
bool translate_wants_checkpoint(const AppState& s, bool shown);

/// {"inputs", "status", "step", "total", "progress", "running", "source", "checkpoint", "losses"
///  {stride, none, additive, validation_steps, none_validation, additive_validation, last10},
///  "accuracy" {step, buckets: [{lo, hi, sentences, none{exact_match, token_accuracy, exact,
///  correct, tokens}, additive{...}}], overall, caption}, "alignment" {.., selected_row, trace},
///  "decoding", "lesson_alignment", "widths" {rows, caption}, "reproduction", "error"}; with a model
///  over other vocabularies also "tokens" {source, target, greedy, teacher_forced, alignment, beam,
///  removals, caption, checks, needs_lesson_words} (accuracy, agreement, alignment and decoding are
///  then null: they are the lab's pair, not shown).
attn::Json translate_state_json(const AppState& s);
/// The inputs alone (link parameters; a valid set() patch).
attn::Json translate_inputs_json(const TranslateInput& in);
/// set({translate: {seed, steps, lr, hidden, encoder, sentence, beam_width, alpha, row, train, pause, continue, reset,
/// model: null, tokens: {source: [ids], target: [ids]}}}). False
/// when a setter refused (error in the state); a malformed patch throws attn::Error(invalid_field).
bool apply_translate_json(AppState& s, const attn::Json& patch);

/// Two GRU translators, fixed summary vs attention: losses, accuracy by length, learned alignment.
void draw_translate_panel(AppState& s, Ui& ui);

struct PanelDef;
/// This panel's entry in the panel table (panels/registry.hpp); its number is its place there.
const PanelDef& translate_panel();

}  // namespace app
