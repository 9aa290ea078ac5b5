// The learned-heads lesson: the repeated-run task, head scores on maps with known answers,
// interventions (zero ablation, activation patching), K/V-cache generation against the parallel
// forward, and training in slices.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "attn/error.hpp"
#include "learn/layers.hpp"
#include "lessons/recall.hpp"
#include "lessons/learned_heads/captions.hpp"
#include "lessons/learned_heads/extrapolation.hpp"
#include "lessons/learned_heads/format.hpp"
#include "lessons/learned_heads/interventions.hpp"
#include "support/support.hpp"

using namespace attn;
using namespace attn::lessons;
using learn::DecoderConfig;
using learn::DecoderPositions;
using attn_test::same_bits;

namespace {

// vocab 8, context 16, d_model 8, 2 heads, 2 layers.
DecoderConfig small_model(DecoderPositions pos, int mlp = 0, bool ln = false) {
  return attn_test::decoder_config(8, 16, 8, 2, 2, mlp, pos, ln);
}

// vocab 8, context 16, prefix 0..3, runs of 3..6.
InductionTask small_task() { return InductionTask{8, 16, 0, 3, 3, 6}; }

// small_task() learned by small_model(pos) in batches of 4 for `steps` steps.
HeadsTrainingConfig small_training(DecoderPositions pos, int steps) {
  HeadsTrainingConfig cfg;
  cfg.task = small_task();
  cfg.model = small_model(pos);
  cfg.batch = 4;
  cfg.steps = steps;
  return cfg;
}

}  // namespace

TEST_CASE("learned heads: the task repeats the run and scores only the predictable positions", "[lesson][heads]") {
  Rng rng(3);
  const InductionTask task = small_task();
  const InductionBatch b = make_induction_batch(task, rng, 50);
  REQUIRE(b.layouts.size() == 50);
  int counted = 0;
  for (int s = 0; s < 50; ++s) {
    const InductionLayout& lay = b.layouts[static_cast<size_t>(s)];
    CHECK(lay.prefix >= task.prefix_min);
    CHECK(lay.prefix <= task.prefix_max);
    CHECK(lay.run >= task.run_min);
    CHECK(lay.run <= task.run_max);
    const int* tok = b.batch.tokens.data() + s * task.context;
    for (int k = 0; k < lay.run; ++k) CHECK(tok[lay.repeat_start() + k] == tok[lay.prefix + k]);
    for (int i = 0; i < task.context; ++i) {
      const int tg = b.batch.targets[static_cast<size_t>(s * task.context + i)];
      const bool predictable = i >= lay.repeat_start() && i < lay.repeat_start() + lay.run - 1;
      CHECK((tg != learn::kIgnoreIndex) == predictable);
      if (predictable) CHECK(tg == tok[i + 1]);
      counted += predictable;
    }
  }
  // l − 1 predictable positions per sequence
  int want = 0;
  for (const InductionLayout& lay : b.layouts) want += lay.run - 1;
  CHECK(counted == want);
}

TEST_CASE("learned heads: scores on constructed maps with known answers", "[lesson][heads]") {
  const int T = 10;
  const InductionLayout lay{2, 3};  // run at 2..4, repeat at 5..7
  std::vector<double> prev(T * T, 0.0), induct(T * T, 0.0), first(T * T, 0.0);
  prev[0] = 1.0;
  for (int i = 1; i < T; ++i) prev[i * T + i - 1] = 1.0;
  for (int i = 0; i < T; ++i) first[i * T] = 1.0;
  for (int i = 0; i < T; ++i) induct[i * T + i] = 1.0;
  for (int i = 5; i < 8; ++i) {
    induct[i * T + i] = 0.0;
    induct[i * T + (i - 3 + 1)] = 1.0;  // the token after the earlier copy
  }
  const HeadScores p = head_scores(prev.data(), T, lay);
  CHECK(p.previous_token == 1.0);
  CHECK(p.diagonal == Approx(0.1));  // only row 0 attends to itself
  CHECK(p.induction == 0.0);
  const HeadScores f = head_scores(first.data(), T, lay);
  CHECK(f.first_token == 1.0);
  CHECK(f.previous_token == Approx(1.0 / 9));  // row 1's previous key is key 0
  const HeadScores ind = head_scores(induct.data(), T, lay);
  CHECK(ind.induction == 1.0);
  CHECK(ind.diagonal == Approx(7.0 / 10));
  CHECK_THROWS_AS(head_scores(prev.data(), T, InductionLayout{6, 3}), Error);
}

TEST_CASE("learned heads: zero-ablating a head equals zeroing its columns of out_proj.weight", "[lesson][heads]") {
  const DecoderConfig c = small_model(DecoderPositions::learned, 6);
  const learn::ParamLayout layout = learn::decoder_layout(c);
  const std::vector<double> params = learn::init_params(layout, 9);
  Rng rng(4);
  const InductionBatch b = make_induction_batch(small_task(), rng, 4);
  for (int l = 0; l < c.layers; ++l)
    for (int h = 0; h < c.heads; ++h) {
      learn::HeadIntervention iv;
      iv.mode.assign(static_cast<size_t>(c.layers * c.heads), learn::HeadIntervention::keep);
      iv.mode[static_cast<size_t>(l * c.heads + h)] = learn::HeadIntervention::zero;
      learn::DecoderActivations a1, a2;
      learn::decoder_forward(c, layout, params.data(), b.batch, a1, &iv);
      std::vector<double> p2 = params;
      const learn::ParamInfo& w = layout.at(static_cast<size_t>(layout.find("layers." + std::to_string(l) + ".attn.out_proj.weight")));
      const int dk = c.d_model / c.heads;
      for (int o = 0; o < c.d_model; ++o)
        for (int k = h * dk; k < (h + 1) * dk; ++k) p2[w.offset + static_cast<size_t>(o * c.d_model + k)] = 0.0;
      learn::decoder_forward(c, layout, p2.data(), b.batch, a2);
      double diff = 0.0;
      for (size_t i = 0; i < a1.logits.size(); ++i) diff = std::max(diff, std::fabs(a1.logits[i] - a2.logits[i]));
      INFO("layer " << l << " head " << h);
      CHECK(diff == 0.0);
    }
}

TEST_CASE("learned heads: patching every head restores the clean run and patching none leaves the corrupted one", "[lesson][heads]") {
  const DecoderConfig c = small_model(DecoderPositions::rope, 5, true);
  const learn::ParamLayout layout = learn::decoder_layout(c);
  const std::vector<double> params = learn::init_params(layout, 10);
  Rng rng(5);
  const InductionBatch clean = make_induction_batch(small_task(), rng, 4);
  const InductionBatch corrupt = corrupt_first_copy(clean, c.vocab, rng);
  for (size_t s = 0; s < clean.layouts.size(); ++s)
    for (int k = 0; k < clean.layouts[s].run; ++k) {
      const size_t at = s * 16 + static_cast<size_t>(clean.layouts[s].prefix + k);
      CHECK(corrupt.batch.tokens[at] != clean.batch.tokens[at]);
    }
  learn::DecoderActivations ca, xa, all_a, none_a;
  learn::decoder_forward(c, layout, params.data(), clean.batch, ca);
  learn::decoder_forward(c, layout, params.data(), corrupt.batch, xa);
  learn::HeadIntervention all, none;
  all.mode.assign(4, learn::HeadIntervention::patch);
  all.source = &ca;
  none.mode.assign(4, learn::HeadIntervention::keep);
  learn::decoder_forward(c, layout, params.data(), corrupt.batch, all_a, &all);
  learn::decoder_forward(c, layout, params.data(), corrupt.batch, none_a, &none);
  CHECK(none_a.logits == xa.logits);
  // Every position whose own token is unchanged (all but the corrupted first copy) gets the clean logits.
  for (size_t s = 0; s < clean.layouts.size(); ++s)
    for (int i = 0; i < 16; ++i) {
      const InductionLayout& lay = clean.layouts[s];
      if (i >= lay.prefix && i < lay.repeat_start()) continue;
      for (int v = 0; v < c.vocab; ++v) {
        const size_t at = (s * 16 + static_cast<size_t>(i)) * c.vocab + v;
        CHECK(all_a.logits[at] == ca.logits[at]);
      }
    }
  const PatchingStudy st = patch_each_head(c, layout, params, clean, corrupt);
  REQUIRE(st.recovered.size() == 4);
  for (double r : st.recovered) CHECK(std::isfinite(r));
}

TEST_CASE("learned heads: generation with a K/V cache reproduces the parallel forward for every position signal", "[lesson][heads]") {
  for (DecoderPositions pos : {DecoderPositions::learned, DecoderPositions::sinusoidal, DecoderPositions::rope,
                               DecoderPositions::none}) {
    for (int variant = 0; variant < 2; ++variant) {
      const DecoderConfig c = small_model(pos, variant ? 6 : 0, variant == 1);
      const learn::ParamLayout layout = learn::decoder_layout(c);
      const std::vector<double> params = learn::init_params(layout, 11 + variant);
      Rng rng(6);
      const InductionBatch b = make_induction_batch(small_task(), rng, 1);
      learn::DecoderActivations a;
      learn::decoder_forward(c, layout, params.data(), b.batch, a);
      const std::vector<double> inc = decoder_incremental_logits(c, layout, params, b.batch.tokens);
      CHECK(inc.size() == 16u * 8u);
      double diff = 0.0;
      for (size_t i = 0; i < inc.size(); ++i) diff = std::max(diff, std::fabs(inc[i] - a.logits[i]));
      INFO("positions " << learn::decoder_positions_name(pos) << ", variant " << variant << ": max |diff| " << diff);
      CHECK(diff <= 1e-12);
    }
  }
}

TEST_CASE("learned heads: training in slices gives the same bits as in one go", "[lesson][heads]") {
  const HeadsTrainingConfig cfg = small_training(DecoderPositions::learned, 12);
  HeadsTrainer one(cfg), sliced(cfg);
  CHECK(one.advance(100) == 12);
  CHECK(one.done());
  CHECK(sliced.advance(5) == 5);
  CHECK(sliced.advance(1) == 1);
  CHECK(sliced.advance(6) == 6);
  CHECK(sliced.advance(6) == 0);
  CHECK(one.params() == sliced.params());
  CHECK(one.losses() == sliced.losses());
  HeadsTrainingConfig bad = cfg;
  bad.task.context = 8;  // prefix_max + 2 run_max = 15 does not fit
  CHECK_THROWS_AS(HeadsTrainer(bad), Error);
}

TEST_CASE("learned heads: a run moved through its state bytes continues with the same bits", "[lesson][heads]") {
  // What a Web Worker does with a run: restore it from bytes, advance, hand the bytes back.
  const HeadsTrainingConfig cfg = small_training(DecoderPositions::learned, 12);
  HeadsTrainer one(cfg), moved(cfg);
  one.advance(12);
  // Step 0 (no Adam moments yet), then mid-run twice, through encoded bytes each time.
  for (int k : {0, 5, 4}) {
    moved.advance(k);
    moved = attn_test::through_bytes(moved);
  }
  CHECK(moved.step() == 9);
  moved.advance(12);
  CHECK(moved.done());
  CHECK(same_bits(one.params(), moved.params()));
  CHECK(same_bits(one.losses(), moved.losses()));
  CHECK(same_bits(one.other_losses(), moved.other_losses()));
  CHECK(same_bits(one.initial_params(), moved.initial_params()));

  // load_state in place: the page's trainer takes the Worker's state.
  learn::Checkpoint c;
  HeadsTrainer page = attn_test::taken_over<HeadsTrainer>(cfg, 7, &c);
  page.advance(12);
  CHECK(same_bits(one.params(), page.params()));

  // Refused with what is wrong, the trainer unchanged.
  attn_test::check_refuses_other_run<HeadsTrainer>(cfg, c);
  learn::Checkpoint short_losses = c;
  short_losses.arrays[4].second.pop_back();  // losses
  CHECK_THROWS_WITH(HeadsTrainer::from_state(short_losses), Catch::Contains("one loss per step"));
  learn::Checkpoint no_moments = c;
  no_moments.arrays[2].second.clear();  // adam_m
  CHECK_THROWS_WITH(HeadsTrainer::from_state(no_moments), Catch::Contains("Adam's moments"));
  learn::Checkpoint bad_rng = c;
  bad_rng.meta["data_rng"] = "not a generator";
  CHECK_THROWS_WITH(HeadsTrainer::from_state(bad_rng), Catch::Contains("random generator"));
  learn::Checkpoint run_record = heads_run_checkpoint(record_heads_run(cfg));
  CHECK_THROWS_WITH(HeadsTrainer::from_state(run_record), Catch::Contains("not the state"));

  // A model read from a file with a longer context than the task's keeps it through the state.
  DecoderConfig file = cfg.model;
  file.vocab = cfg.task.vocab;
  file.context = cfg.task.context + 8;
  const std::vector<double> start = learn::init_params(learn::decoder_layout(file), 99);
  HeadsTrainer a(cfg, file, start), b(cfg, file, start);
  a.advance(12);
  b.advance(3);
  HeadsTrainer c2 = HeadsTrainer::from_state(b.state_checkpoint());
  CHECK(c2.model().context == file.context);
  c2.advance(12);
  CHECK(same_bits(a.params(), c2.params()));
  CHECK(same_bits(a.initial_params(), c2.initial_params()));
}

TEST_CASE("learned heads: a snapshot and the decoding comparison on held-out data", "[lesson][heads]") {
  const DecoderConfig c = small_model(DecoderPositions::rope, 4, true);
  const learn::ParamLayout layout = learn::decoder_layout(c);
  const std::vector<double> params = learn::init_params(layout, 12);
  const InductionBatch held = heldout_batch(small_task(), 7, 8);
  const HeadsSnapshot snap = take_snapshot(c, layout, params, 0, held);
  REQUIRE(snap.maps.size() == 4);
  for (const std::vector<double>& m : snap.maps) {
    REQUIRE(m.size() == 256);
    for (int i = 0; i < 16; ++i) {
      double sum = 0.0;
      for (int j = 0; j < 16; ++j) {
        if (j > i) CHECK(m[static_cast<size_t>(i * 16 + j)] == 0.0);  // causal: no future key
        sum += m[static_cast<size_t>(i * 16 + j)];
      }
      CHECK(sum == Approx(1.0).margin(1e-12));
    }
  }
  CHECK(snap.scores.size() == 4);
  CHECK(snap.eval.counted > 0);
  const DecodeComparison d = compare_decoding(c, layout, params, held);
  CHECK(d.max_logit_diff <= 1e-12);
  CHECK(d.teacher_forced_positions == 16);
  // Forcing the token fed at each generation step moves that step (an untrained model's logits
  // depend on every input token) and never an earlier one, to the bit.
  CHECK(d.generation.size() == 16);
  CHECK(d.generation[0] == d.tokens[0]);
  CHECK(d.dependent_steps == 15);
  CHECK(d.sequential_steps == 16);
  CHECK(d.forced_earlier_max_diff == 0.0);
  CHECK(d.forced_step_min_diff > 0.0);
  CHECK(d.forced_at == 8);
  CHECK(d.later_steps == 7);
  CHECK(d.later_moved == 7);
  // The free generation is greedy: each fed token is the previous step's argmax.
  const std::vector<double> lg = decoder_incremental_logits(c, layout, params, d.generation);
  for (int j = 1; j < 16; ++j) {
    const double* row = lg.data() + static_cast<size_t>(j - 1) * 8;
    CHECK(row[d.generation[static_cast<size_t>(j)]] == *std::max_element(row, row + 8));
  }
  CHECK(d.generated.size() == d.expected.size());
  CHECK(d.prompt.size() == static_cast<size_t>(held.layouts[0].repeat_start() + 1));
  // Editing the tokens after position c (the targets of positions c..) leaves positions 0..c alone
  // to the bit; position c + 1 reads an edited token, so its logits move.
  CHECK(d.batch_sequences == held.batch.batch);
  int expected_total = 0;
  for (const InductionLayout& L : held.layouts) expected_total += L.run - 1;
  CHECK(d.batch_expected == expected_total);
  CHECK(d.batch_correct <= d.batch_expected);
  CHECK(d.future_edits == 15);
  CHECK(d.future_edit_max_diff == 0.0);
  CHECK(d.target_edit_max_diff > 1e-6);
}

TEST_CASE("learned heads: accuracy by position - learned rows past the training length get no gradient", "[lesson][heads]") {
  HeadsTrainingConfig cfg = small_training(DecoderPositions::learned, 6);
  cfg.task.context = 24;
  cfg.train_length = 16;
  HeadsTrainer tr(cfg);
  // A uniform guess over the vocabulary: log V nats (V = 8 here: 3 ln 2 = 2.0794415416798357).
  CHECK(tr.model().vocab == 8);
  CHECK(std::fabs(tr.uniform_loss() - 2.0794415416798357) < 1e-15);
  tr.advance(6);
  // pos.weight rows 16..23 were never used in training: still exactly their initial values
  const learn::ParamInfo& pos = tr.layout().at(static_cast<size_t>(tr.layout().find("pos.weight")));
  for (size_t i = 0; i < pos.size(); ++i) {
    const bool beyond = i / static_cast<size_t>(pos.cols) >= 16;
    if (beyond) CHECK(tr.params()[pos.offset + i] == tr.initial_params()[pos.offset + i]);
  }
  const PositionAccuracy acc = accuracy_by_position(tr.model(), tr.layout(), tr.params(), cfg.task, 16, 24, 3, 16);
  int counted = 0;
  for (size_t p = 0; p < acc.counted.size(); ++p) {
    counted += acc.counted[p];
    CHECK(acc.correct[p] <= acc.counted[p]);
  }
  CHECK(counted > 0);
  CHECK_THROWS_AS(accuracy_by_position(tr.model(), tr.layout(), tr.params(), cfg.task, 16, 40, 3), Error);
  learn::DecoderConfig rope = tr.model();
  rope.positions = DecoderPositions::rope;
  const learn::ParamLayout rl = learn::decoder_layout(rope);
  const PositionAccuracy far = accuracy_by_position(rope, rl, learn::init_params(rl, 1), cfg.task, 16, 40, 3, 8);
  CHECK(far.counted.size() == 40);  // beyond the context: RoPE has no table to run out of
}

TEST_CASE("learned heads: a checkpoint without a score recomputes it from the replayed run or refuses naming it", "[lesson][heads][checkpoint]") {
  const HeadsTrainingConfig cfg = small_training(DecoderPositions::learned, 120);
  const HeadsRun run = record_heads_run(cfg);
  const learn::Checkpoint full = heads_run_checkpoint(run);
  REQUIRE(full.meta["scores"] == Json(head_score_names()));
  const size_t k = head_score_table().size();
  // An older checkpoint: the list lacks "diagonal" (the table's third score) and so do the arrays.
  learn::Checkpoint older = full;
  Json names = Json::array();
  for (const std::string& n : head_score_names())
    if (n != "diagonal") names.push_back(n);
  older.meta["scores"] = names;
  for (auto& [name, values] : older.arrays)
    if (name == "snapshot_scores") {
      std::vector<double> kept;
      for (size_t i = 0; i < values.size(); ++i)
        if (i % k != 2) kept.push_back(values[i]);
      values = kept;
    }
  const HeadsRun back = heads_run_from_checkpoint(older);
  REQUIRE(back.snapshots.size() == run.snapshots.size());
  for (size_t i = 0; i < run.snapshots.size(); ++i)
    for (size_t h = 0; h < run.snapshots[i].scores.size(); ++h) {
      CHECK(back.snapshots[i].scores[h].diagonal == run.snapshots[i].scores[h].diagonal);  // recomputed
      CHECK(back.snapshots[i].scores[h].induction == run.snapshots[i].scores[h].induction);  // as stored
    }
  // A run the replay does not reproduce (parameters changed, their hash with them) is refused.
  learn::Checkpoint other = older;
  other.arrays[0].second[3] += 1e-9;
  other.meta["params_fnv1a"] = learn::params_fnv1a(other.arrays[0].second);
  CHECK_THROWS_WITH(heads_run_from_checkpoint(other), Catch::Contains("'diagonal' is not recorded"));
  // No list in the meta (a checkpoint written before the list): read as the four scores of that
  // time, in that order, only when the arrays hold exactly four per head and snapshot.
  const std::vector<std::string> first_four{"previous_token", "induction", "diagonal", "first_token"};
  learn::Checkpoint unlisted = full;
  unlisted.meta.erase("scores");
  for (auto& [name, values] : unlisted.arrays)
    if (name == "snapshot_scores") {
      std::vector<double> four;
      for (size_t at = 0; at < values.size(); at += k)
        for (const std::string& n : first_four) {
          const std::vector<std::string> all = head_score_names();
          four.push_back(values[at + static_cast<size_t>(std::find(all.begin(), all.end(), n) - all.begin())]);
        }
      values = four;
    }
  CHECK(heads_run_from_checkpoint(unlisted).snapshots.back().scores.back().first_token ==
        run.snapshots.back().scores.back().first_token);
  for (auto& [name, values] : unlisted.arrays)
    if (name == "snapshot_scores") values.pop_back();
  CHECK_THROWS_WITH(heads_run_from_checkpoint(unlisted), Catch::Contains("no score list"));
}

// --- the shipped checkpoint ---------------------------------------------------------------------

namespace {

HeadsRun shipped_run() {
  return heads_run_from_checkpoint(attn_test::read_checkpoint("../checkpoints/learned_heads.ckpt"));
}

}  // namespace

TEST_CASE("learned heads: a checkpoint keeps every bit and refuses damaged files", "[lesson][heads][checkpoint]") {
  learn::Checkpoint c;
  c.meta = Json{{"what", "test"}};
  c.add("a", {1.0, -0.0, 5e-324, std::nextafter(1.0, 2.0), 1e308});
  c.add("empty", {});
  const std::string bytes = learn::encode_checkpoint(c);
  // 8 magic + 4 version + 4 header length + header + 5 doubles + checksum
  const learn::Checkpoint back = attn_test::decode_bytes(bytes);
  CHECK(back.meta == c.meta);
  CHECK(same_bits(back.array("a"), c.array("a")));
  CHECK(back.array("empty").empty());
  CHECK(std::signbit(back.array("a")[1]));
  CHECK_THROWS_WITH(back.array("b"), Catch::Contains("no array named 'b'"));

  auto refused = [](std::string b, const char* what) {
    try {
      attn_test::decode_bytes(b);
      FAIL("accepted a damaged checkpoint: " << what);
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::invalid_field);
      return std::string(e.what());
    }
    return std::string();
  };
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x10;
  CHECK_THAT(refused(flipped, "a flipped bit"), Catch::Contains("checksum mismatch"));
  CHECK_THAT(refused(bytes.substr(0, bytes.size() - 9), "truncated"), Catch::Contains("checksum mismatch"));
  std::string magic = bytes;
  magic[0] = 'X';
  CHECK_THAT(refused(magic, "magic"), Catch::Contains("not a checkpoint"));
  CHECK_THAT(refused("short", "short"), Catch::Contains("too short"));
  learn::Checkpoint twice;
  twice.add("a", {1});
  twice.add("a", {2});
  CHECK_THROWS_WITH(learn::encode_checkpoint(twice), Catch::Contains("appears twice"));
}

TEST_CASE("learned heads: a run record survives its checkpoint and a restored trainer refuses to continue", "[lesson][heads][checkpoint]") {
  const HeadsTrainingConfig cfg = small_training(DecoderPositions::rope, 120);
  const HeadsRun run = record_heads_run(cfg);
  REQUIRE(run.snapshots.size() == 3);  // steps 0, 100 and 120
  CHECK(run.snapshots[1].step == 100);
  const std::string bytes = learn::encode_checkpoint(heads_run_checkpoint(run));
  const HeadsRun back = heads_run_from_checkpoint(attn_test::decode_bytes(bytes));
  CHECK(heads_config_json(back.config) == heads_config_json(cfg));
  CHECK(same_bits(back.params, run.params));
  CHECK(same_bits(back.losses, run.losses));
  REQUIRE(back.snapshots.size() == run.snapshots.size());
  for (size_t i = 0; i < run.snapshots.size(); ++i) {
    CHECK(back.snapshots[i].eval.accuracy == run.snapshots[i].eval.accuracy);
    CHECK(back.snapshots[i].scores.back().induction == run.snapshots[i].scores.back().induction);
    CHECK(back.snapshots[i].maps.empty());
  }
  HeadsTrainer restored(back);
  CHECK(restored.done());
  CHECK(restored.advance(10) == 0);
  CHECK(same_bits(restored.initial_params(), HeadsTrainer(cfg).params()));  // step 0 comes from the seed

  HeadsRun unfinished = back;
  unfinished.step = 60;
  CHECK_THROWS_WITH(HeadsTrainer(unfinished), Catch::Contains("must be finished"));
  learn::Checkpoint tampered = heads_run_checkpoint(run);
  tampered.arrays[0].second[3] += 1e-9;
  CHECK_THROWS_WITH(heads_run_from_checkpoint(tampered), Catch::Contains("hash differs"));
}

TEST_CASE("learned heads: the shipped checkpoint is what training the default run from its seed gives", "[lesson][heads][checkpoint]") {
  const HeadsRun shipped = shipped_run();
  const HeadsTrainingConfig cfg;  // the panel's default inputs
  REQUIRE(heads_config_json(shipped.config) == heads_config_json(cfg));
  if (attn_test::kSanitized) {
    // Under the sanitizers (a slow build) the first 200 steps, loss for loss.
    HeadsTrainingConfig part = cfg;
    part.steps = 200;
    HeadsTrainer tr(part);
    tr.advance(200);
    CHECK(same_bits(tr.losses(), std::vector<double>(shipped.losses.begin(), shipped.losses.begin() + 200)));
    return;
  }
  const HeadsRun fresh = record_heads_run(cfg);
  CHECK(fresh.step == shipped.step);
  CHECK(same_bits(fresh.params, shipped.params));
  CHECK(same_bits(fresh.losses, shipped.losses));
  CHECK(same_bits(fresh.other_losses, shipped.other_losses));
  REQUIRE(fresh.snapshots.size() == shipped.snapshots.size());
  for (size_t i = 0; i < fresh.snapshots.size(); ++i) {
    CHECK(fresh.snapshots[i].step == shipped.snapshots[i].step);
    CHECK(fresh.snapshots[i].eval.loss == shipped.snapshots[i].eval.loss);
    for (size_t h = 0; h < fresh.snapshots[i].scores.size(); ++h)
      CHECK(fresh.snapshots[i].scores[h].induction == shipped.snapshots[i].scores[h].induction);
  }
}

TEST_CASE("learned heads: the shipped checkpoint reaches 90 percent on held-out layouts and has an induction head", "[lesson][heads][checkpoint]") {
  const HeadsRun shipped = shipped_run();
  const HeadsTrainer tr(shipped);
  // 512 held-out sequences from a stream the trainer never draws, random prefix and run lengths
  const InductionBatch heldout = heldout_batch(shipped.config.task, shipped.config.seed + 1000, 512);
  const HeadsSnapshot snap = take_snapshot(tr.model(), tr.layout(), tr.params(), tr.step(), heldout);
  INFO("held-out accuracy " << snap.eval.accuracy << " over " << snap.eval.counted << " predictable positions");
  CHECK(snap.eval.counted > 2000);
  CHECK(snap.eval.accuracy >= 0.9);
  double best = 0.0;
  for (const HeadScores& s : snap.scores) best = std::max(best, s.induction);
  INFO("best induction score " << best);
  CHECK(best >= 0.3);
  // and the untrained model is at chance: the accuracy is learned
  const HeadsSnapshot at0 = take_snapshot(tr.model(), tr.layout(), tr.initial_params(), 0, heldout);
  CHECK(at0.eval.accuracy < 0.2);
}

TEST_CASE("learned heads: the extrapolation study trains each position signal and tests past the training length", "[lesson][heads]") {
  ExtrapolationConfig cfg;
  cfg.task = InductionTask{8, 16, 0, 2, 2, 4};
  cfg.model = small_model(DecoderPositions::learned);
  cfg.train_length = 10;
  cfg.test_length = 24;
  cfg.steps = 30;
  cfg.batch = 4;
  cfg.sequences = 16;
  ExtrapolationStudy whole(cfg), sliced(cfg);
  while (!whole.done()) whole.advance(1000);
  while (!sliced.done()) sliced.advance(7);  // slices cross the boundary between models
  CHECK(whole.steps_done() == whole.steps_total());
  CHECK(whole.steps_total() == 90);
  REQUIRE(whole.results().size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    const ExtrapolationResult& a = whole.results()[i];
    const ExtrapolationResult& b = sliced.results()[i];
    CHECK(a.positions == cfg.signals[i]);
    CHECK(a.final_loss == b.final_loss);
    CHECK(a.accuracy.correct == b.accuracy.correct);
    // learned positions stop at the context; the others are tested up to test_length
    CHECK(a.accuracy.test_length == (a.positions == DecoderPositions::learned ? 16 : 24));
    int counted_beyond = 0;
    for (size_t p = 9; p < a.accuracy.counted.size(); ++p) counted_beyond += a.accuracy.counted[p];
    CHECK(counted_beyond > 0);
  }
  // the study trains exactly what HeadsTrainer trains with that configuration
  HeadsTrainingConfig one;
  one.task = cfg.task;
  one.model = cfg.model;
  one.model.positions = DecoderPositions::rope;
  one.batch = 4;
  one.adam.lr = cfg.lr;
  one.seed = cfg.seed;
  one.steps = 30;
  one.train_length = 10;
  HeadsTrainer tr(one);
  tr.advance(30);
  const PositionAccuracy direct =
      accuracy_by_position(tr.model(), tr.layout(), tr.params(), cfg.task, 10, 24, cfg.seed, 16);
  CHECK(direct.correct == whole.results()[2].accuracy.correct);

  ExtrapolationConfig bad = cfg;
  bad.train_length = 16;
  CHECK_THROWS_WITH(ExtrapolationStudy(bad), Catch::Contains("below the context"));
  bad = cfg;
  bad.train_length = 6;  // prefix_max + 2 run_max = 10 does not fit
  CHECK_THROWS_WITH(ExtrapolationStudy(bad), Catch::Contains("train_length must fit"));
  bad = cfg;
  bad.signals.clear();
  CHECK_THROWS_WITH(ExtrapolationStudy(bad), Catch::Contains("1 to 4 position signals"));
}

TEST_CASE("learned heads: the redundancy question is answered on the model as it stands", "[lesson][heads][checkpoint]") {
  const HeadsRun shipped = shipped_run();
  const HeadsTrainer trained(shipped);
  const InductionBatch held = heldout_batch(shipped.config.task, shipped.config.seed, kHeadsHeldout);
  RecallAttempt a;
  a.choice = 0;
  CHECK_THROWS_WITH(check_recall("learned_heads.redundancy", a), Catch::Contains("heads_model"));
  a.heads_model = &trained;
  a.heads_heldout = &held;
  // The answer, derived here from the ablations themselves: the best last-layer induction head
  // alone against the whole last layer.
  const AblationStudy st = ablate_each_head(trained.model(), trained.layout(), trained.params(), held);
  learn::DecoderActivations acts;
  evaluate(trained.model(), trained.layout(), trained.params(), held, nullptr, &acts);
  const std::vector<HeadScores> sc = batch_head_scores(trained.model(), acts, held.layouts);
  int best = 4;
  for (int i = 4; i < 8; ++i)
    if (sc[static_cast<size_t>(i)].induction > sc[static_cast<size_t>(best)].induction) best = i;
  learn::HeadIntervention all;
  all.mode.assign(8, learn::HeadIntervention::keep);
  for (int i = 4; i < 8; ++i) all.mode[static_cast<size_t>(i)] = learn::HeadIntervention::zero;
  const double drop_all = st.base.accuracy - evaluate(trained.model(), trained.layout(), trained.params(), held, &all).accuracy;
  const double drop1 = st.base.accuracy - st.zero[static_cast<size_t>(best)].accuracy;
  const int expected = drop_all < 0.05 ? 2 : (drop1 >= 0.5 * drop_all ? 0 : 1);
  INFO("drop alone " << drop1 << ", drop of the last layer " << drop_all);
  a.choice = expected;
  const RecallVerdict v = check_recall("learned_heads.redundancy", a);
  INFO(v.feedback);
  CHECK(v.pass);
  a.choice = (expected + 1) % 3;
  CHECK_FALSE(check_recall("learned_heads.redundancy", a).pass);
  // at step 0 nothing has been learned: removing heads changes little
  const HeadsTrainer fresh(shipped.config);
  a.heads_model = &fresh;
  a.choice = 2;
  CHECK(check_recall("learned_heads.redundancy", a).pass);
}

TEST_CASE("learned heads: the loss caption follows the other positions' curve", "[lesson][learned_heads]") {
  const double log_v = std::log(16.0);  // 2.77
  const std::string above = loss_curve_caption(log_v, {2.8, 4.0, 6.2}, 6, 6.36, 1800);
  CHECK(above.find("log V = 2.77") != std::string::npos);
  CHECK(above.find("ends at 6.2, above log V") != std::string::npos);
  CHECK(above.find("Held out at step 1800: 6.36.") != std::string::npos);
  CHECK(above.find("averaged over 6 steps") != std::string::npos);
  const std::string near = loss_curve_caption(log_v, {2.9, 2.8}, 1, 0.0, -1);
  CHECK(near.find("ends at 2.8, near log V") != std::string::npos);
  CHECK(near.find("Held out") == std::string::npos);
  CHECK(near.find("averaged") == std::string::npos);
  CHECK(loss_curve_caption(log_v, {1.5}, 1, 1.4, 100).find("below log V") != std::string::npos);
  CHECK(loss_curve_caption(log_v, {}, 1, 0.0, -1).find("ends at") == std::string::npos);
}

TEST_CASE("learned heads: the interventions measured in slices are the ones measured at once", "[lesson][learned_heads]") {
  const HeadsRun shipped = shipped_run();
  const HeadsTrainer trained(shipped);
  const InductionBatch held = heldout_batch(shipped.config.task, shipped.config.seed, kHeadsHeldout);
  Rng rng(5);
  const InductionBatch corrupt = corrupt_first_copy(held, trained.model().vocab, rng);
  // Bitwise equality of two doubles (NaN payloads included).
  const auto same = [](double a, double b) { return same_bits(std::vector<double>{a}, std::vector<double>{b}); };
  const int heads = trained.model().layers * trained.model().heads;  // 2 × 4
  HeadsInterventionStudy sliced(trained.model(), trained.layout(), trained.params(), held, corrupt, {});
  // Decoding: teacher-forced and cached passes, dependency, 4 held-out sequences a unit, edits.
  const int decode_units = 3 + (held.batch.batch + 3) / 4;
  REQUIRE(held.batch.batch == 32);
  REQUIRE(sliced.units_total() == 3 * heads + 2 + decode_units);  // clean, 8 × 2 ablations, corrupted, 8 patches
  std::vector<std::string> phases;
  while (!sliced.done()) {
    phases.push_back(sliced.phase());
    REQUIRE(sliced.advance(1) == 1);
  }
  CHECK(sliced.advance(1) == 0);
  CHECK(std::string(sliced.phase()) == "done");
  CHECK(std::count(phases.begin(), phases.end(), "ablation") == 1 + 2 * heads);
  CHECK(std::count(phases.begin(), phases.end(), "patching") == 1 + heads);
  CHECK(std::count(phases.begin(), phases.end(), "decoding") == decode_units);
  CHECK(phases.back() == "decoding");

  // The functions run at once, and each head's figure worked out directly with evaluate().
  const AblationStudy ab = ablate_each_head(trained.model(), trained.layout(), trained.params(), held);
  const PatchingStudy pa = patch_each_head(trained.model(), trained.layout(), trained.params(), held, corrupt);
  const DecodeComparison de = compare_decoding(trained.model(), trained.layout(), trained.params(), held);
  REQUIRE(sliced.ablation().zero.size() == static_cast<size_t>(heads));
  REQUIRE(sliced.patching().patched_loss.size() == static_cast<size_t>(heads));
  CHECK(same(sliced.ablation().base.loss, ab.base.loss));
  learn::DecoderActivations clean;
  const InductionEval base = evaluate(trained.model(), trained.layout(), trained.params(), held, nullptr, &clean);
  CHECK(same(sliced.patching().clean_loss, base.loss));
  CHECK(same(sliced.patching().corrupt_loss, evaluate(trained.model(), trained.layout(), trained.params(), corrupt).loss));
  for (int id = 0; id < heads; ++id) {
    const size_t i = static_cast<size_t>(id);
    learn::HeadIntervention zero;
    zero.mode.assign(static_cast<size_t>(heads), learn::HeadIntervention::keep);
    zero.mode[i] = learn::HeadIntervention::zero;
    CHECK(same(sliced.ablation().zero[i].loss, evaluate(trained.model(), trained.layout(), trained.params(), held, &zero).loss));
    CHECK(same(sliced.ablation().zero[i].loss, ab.zero[i].loss));
    CHECK(same(sliced.ablation().mean[i].loss, ab.mean[i].loss));
    learn::HeadIntervention patch;
    patch.mode.assign(static_cast<size_t>(heads), learn::HeadIntervention::keep);
    patch.mode[i] = learn::HeadIntervention::patch;
    patch.source = &clean;
    CHECK(same(sliced.patching().patched_loss[i], evaluate(trained.model(), trained.layout(), trained.params(), corrupt, &patch).loss));
    CHECK(same(sliced.patching().recovered[i], pa.recovered[i]));
  }
  // Every field of the decoding comparison, measured in parts, is the one measured at once.
  const DecodeComparison& sd = sliced.decoding();
  CHECK(sd.tokens == de.tokens);
  CHECK(same(sd.max_logit_diff, de.max_logit_diff));
  CHECK(sd.teacher_forced_positions == de.teacher_forced_positions);
  CHECK(sd.generation == de.generation);
  CHECK(sd.dependent_steps == de.dependent_steps);
  CHECK(sd.sequential_steps == de.sequential_steps);
  CHECK(same(sd.forced_earlier_max_diff, de.forced_earlier_max_diff));
  CHECK(same(sd.forced_step_min_diff, de.forced_step_min_diff));
  CHECK(sd.forced_at == de.forced_at);
  CHECK(sd.later_steps == de.later_steps);
  CHECK(sd.later_moved == de.later_moved);
  CHECK(sd.prompt == de.prompt);
  CHECK(sd.generated == de.generated);
  CHECK(sd.expected == de.expected);
  CHECK(sd.correct == de.correct);
  CHECK(sd.batch_correct == de.batch_correct);
  CHECK(sd.batch_expected == de.batch_expected);
  CHECK(sd.batch_complete == de.batch_complete);
  CHECK(sd.batch_sequences == 32);
  CHECK(sd.batch_sequences == de.batch_sequences);
  CHECK(same(sd.future_edit_max_diff, de.future_edit_max_diff));
  CHECK(same(sd.target_edit_max_diff, de.target_edit_max_diff));
  CHECK(sd.future_edits == de.future_edits);
  CHECK(sd.future_edits == 31);

  // The study keeps its own copy of the parameters: a later change does not reach it.
  std::vector<double> params = trained.params();
  HeadsInterventionStudy copy(trained.model(), trained.layout(), params, held, corrupt, {true, false, false});
  std::fill(params.begin(), params.end(), 0.0);
  copy.advance(copy.units_total());
  CHECK(copy.units_total() == 1 + 2 * heads);
  CHECK(same(copy.ablation().base.loss, ab.base.loss));
}
