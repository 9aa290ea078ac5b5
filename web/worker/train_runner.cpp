#include "worker/train_runner.hpp"

#include <chrono>

#include "attn/error.hpp"
#include "learn/checkpoint.hpp"
#include "lessons/learned_heads/format.hpp"
#include "lessons/translate/translate.hpp"

namespace app {

namespace {
double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

TrainRunner::TrainRunner() = default;
TrainRunner::~TrainRunner() = default;

void TrainRunner::begin(const std::uint8_t* data, std::size_t size) {
  end();
  const attn::learn::Checkpoint c = attn::learn::decode_checkpoint(data, size);
  if (c.meta.is_object() && c.meta.value("task", "") == "translate")
    translate_ = std::make_unique<attn::lessons::TranslateTrainer>(attn::lessons::TranslateTrainer::from_state(c));
  else
    heads_ = std::make_unique<attn::lessons::HeadsTrainer>(attn::lessons::HeadsTrainer::from_state(c));
}

namespace {
// Parts (`part()` runs one) until the budget, the run's end or a step that is a multiple of
// sync_every.
template <typename Trainer, typename Part>
std::string run_slice(Trainer& t, double budget_seconds, int sync_every, Part&& part) {
  const double t0 = now_seconds();
  while (!t.done()) {
    part();
    if (sync_every > 0 && t.step() % sync_every == 0) break;
    if (now_seconds() - t0 >= budget_seconds) break;
  }
  return attn::learn::encode_checkpoint(t.state_checkpoint());
}
}  // namespace

std::string TrainRunner::slice(double budget_seconds, int sync_every) {
  if (heads_) return run_slice(*heads_, budget_seconds, sync_every, [&] { heads_->advance(1); });
  if (translate_) return run_slice(*translate_, budget_seconds, sync_every, [&] { translate_->advance_part(); });
  throw attn::Error(attn::ErrorCode::invalid_field, "the training worker has no run");
}

bool TrainRunner::done() const { return heads_ ? heads_->done() : translate_ && translate_->done(); }
int TrainRunner::step() const { return heads_ ? heads_->step() : translate_ ? translate_->step() : 0; }

void TrainRunner::end() {
  heads_.reset();
  translate_.reset();
}

}  // namespace app
