// web/worker/train_runner.hpp — what the training Worker runs: a trainer restored from its state
// bytes (the state_checkpoint of lessons::HeadsTrainer or TranslateTrainer), advanced in slices, its state handed back as
// bytes after each. The page's thread draws while the steps run here; the same code runs in the
// Worker's wasm (train_worker.cpp) and natively, where the headless test plays the Worker.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace attn::lessons {
class HeadsTrainer;
class TranslateTrainer;
}

namespace app {

class TrainRunner {
 public:
  /// No run yet: slice() throws until begin().
  TrainRunner();
  ~TrainRunner();  ///< defined where the trainers are complete types
  /// Takes over the run whose state is `size` bytes at `data` (learn::encode_checkpoint of a
  /// trainer's state_checkpoint: the Learned heads decoder or the Translate pair, told apart by
  /// its meta's "model"). Throws attn::Error naming what is wrong with them.
  void begin(const std::uint8_t* data, std::size_t size);
  /// Steps until `budget_seconds` have passed (at least one step; the pair: one part, a step or a
  /// validation pass), the run is done, or its step is a multiple of `sync_every` (> 0: the
  /// panel's snapshot steps, which it must see). Returns the
  /// state bytes after them. Throws attn::Error when no run was begun or a step threw.
  std::string slice(double budget_seconds, int sync_every);
  /// True when the run begun has taken its last step (false before begin()).
  bool done() const;
  /// The run's step (its trainer's step()); 0 before begin().
  int step() const;
  /// Forgets the run (its memory goes back): as before begin().
  void end();

 private:
  std::unique_ptr<attn::lessons::HeadsTrainer> heads_;
  std::unique_ptr<attn::lessons::TranslateTrainer> translate_;
};

}  // namespace app
