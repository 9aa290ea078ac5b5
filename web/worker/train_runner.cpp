#include "worker/train_runner.hpp"

#include <chrono>

#include "attn/error.hpp"
#include "learn/checkpoint.hpp"
#include "lessons/learned_heads.hpp"

namespace app {

namespace {
double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

TrainRunner::TrainRunner() = default;
TrainRunner::~TrainRunner() = default;

void TrainRunner::begin(const std::uint8_t* data, std::size_t size) {
  heads_.reset();
  const attn::learn::Checkpoint c = attn::learn::decode_checkpoint(data, size);
  heads_ = std::make_unique<attn::lessons::HeadsTrainer>(attn::lessons::HeadsTrainer::from_state(c));
}

std::string TrainRunner::slice(double budget_seconds, int sync_every) {
  if (!heads_) throw attn::Error(attn::ErrorCode::invalid_field, "the training worker has no run");
  attn::lessons::HeadsTrainer& t = *heads_;
  const double t0 = now_seconds();
  while (!t.done()) {
    t.advance(1);
    if (sync_every > 0 && t.step() % sync_every == 0) break;
    if (now_seconds() - t0 >= budget_seconds) break;
  }
  return attn::learn::encode_checkpoint(t.state_checkpoint());
}

bool TrainRunner::done() const { return heads_ && heads_->done(); }
int TrainRunner::step() const { return heads_ ? heads_->step() : 0; }

}  // namespace app
