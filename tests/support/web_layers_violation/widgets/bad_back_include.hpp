// A deliberate layering violation (a widget including a panel's state) for the negative control
// of tests/support/check_web_layers.cmake. Never compiled.
#pragma once
#include "panels/translate.hpp"
