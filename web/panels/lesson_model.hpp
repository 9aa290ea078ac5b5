// web/panels/lesson_model.hpp — the lesson script's own model, shared by the Masks, Soft to hard,
// Dropout and Lesson script panels and by the "check yourself" strips.
#pragma once

#include "lessons/torch_replica.hpp"

namespace app {

/// torch.manual_seed(17), nn.Embedding(6, 8) and three nn.Linear(8, 8) on "The cat sat on the
/// mat", replayed by the core (attn::lesson_replica). Computed once, on first use; never changes.
inline const attn::LessonReplica& lesson_model() {
  static const attn::LessonReplica model = attn::lesson_replica();
  return model;
}

}  // namespace app
