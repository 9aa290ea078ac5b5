// tests/support/catch_main.cpp — Catch2 v2 main of every test executable (native and em++ under
// node), compiled once into attn_catch_main.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
