// tests/kernels/main.cpp — Catch2 main for the fast-kernel tests, native and under node.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
