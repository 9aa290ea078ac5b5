// A deliberate layering violation (the math including an experiment) for the negative control
// of tests/support/check_layers.cmake. Never compiled.
#pragma once
#include "lessons/check.hpp"
