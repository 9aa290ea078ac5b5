// tests/support/catch_main.cpp — Catch2 v2 main of every test executable (native and em++ under
// node), compiled once into attn_catch_main.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <json/ops.hpp>

// The tests have a file system: the ops that read files are in the table, as in the attn tool.
namespace {
[[maybe_unused]] const bool file_ops_registered = (attn::register_file_ops(), true);
}  // namespace
