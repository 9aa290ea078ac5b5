// tests/core/catch_main.cpp — Catch2 v2 main for the core tests (native and em++ under node).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
