// tests/learn/main.cpp — Catch2 main for the learning tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
