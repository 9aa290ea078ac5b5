// lessons/language_model/ship.hpp — the default language model's run, from the corpus to the three
// files committed under checkpoints/: the model (safetensors, transformers' GPT-2 names, F16, the
// vocabulary map in __metadata__), its config.json and its card (card.hpp) as JSON.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "lessons/language_model/card.hpp"
#include "lessons/language_model/corpus.hpp"
#include "lessons/language_model/trainer.hpp"

namespace attn::lessons {

/// The shipped run: lm_model_config(vocab), batch 8 of 128 tokens, 2000 steps, learning rate 3e-3
/// after 100 warmup steps decaying to 3e-4, clip 1, seed 1611.
LmTrainingConfig lm_default_training(int vocab);

/// The files of a trained model.
struct LmShipped {
  std::string safetensors;  ///< F16, transformers' GPT2LMHeadModel names without lm_head.weight (tied)
  std::string config;       ///< config.json: transformers_config, plus bos/eos_token_id = the local id of "<|endoftext|>"
  LmCard card;
  std::string card_json;    ///< lm_card_json(card), indented
};

/// Writes the trainer's parameters as the shipped files and measures the card on what was written:
/// the file is read back (learn::read_gpt2_family in float64, so the F16-rounded weights) and every
/// figure of the card is computed from those. __metadata__ holds {"format": "pt", "vocab_map":
/// "gpt2", "gpt2_ids": [...] (learn/vocab_map.hpp), "corpus": corpus_name}. `first_steps_fnv1a` /
/// `first_losses` are the run's state after kLmReproducedSteps steps; `seconds` its wall time.
/// Throws the writer's and reader's errors (attn::Error).
LmShipped ship_lm(const LmTrainer& trainer, const LmCorpus& corpus, const std::string& corpus_name,
                  const std::string& first_steps_fnv1a, const std::vector<double>& first_losses, double seconds);

/// The model in a shipped file, as the page and the tests read it: read_gpt2_family<double> with
/// its config.json, and the vocabulary map of its __metadata__ (read_vocab_map, required).
struct LmShippedModel {
  learn::DecoderConfig cfg;
  learn::ParamLayout layout;
  std::vector<double> params;
  learn::VocabMap vocab;
};
/// Throws read_gpt2_family's errors, read_vocab_map's, and Error(missing_field) for a file without
/// a vocabulary map.
LmShippedModel read_shipped_lm(const std::string& safetensors, const std::string& config_json);

}  // namespace attn::lessons
