// tests/lesson/main.cpp — Catch2 main for the issue-4 core tests (the lesson's claims as experiments).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
