// lessons/translate/translate.hpp — the Translate lesson: two GRU translators of a mini-language,
// a fixed summary against Bahdanau attention (the lesson's description: task.hpp). One header for
// a caller that uses most of the lesson (its panel, the JSON ops, the tool); a caller that needs one
// part includes that part's header.
#pragma once

#include "lessons/translate/captions.hpp"
#include "lessons/translate/data.hpp"
#include "lessons/translate/decode.hpp"
#include "lessons/translate/eval.hpp"
#include "lessons/translate/format.hpp"
#include "lessons/translate/interventions.hpp"
#include "lessons/translate/scores_study.hpp"
#include "lessons/translate/task.hpp"
#include "lessons/translate/token_analysis.hpp"
#include "lessons/translate/trainer.hpp"
#include "lessons/translate/widths.hpp"
