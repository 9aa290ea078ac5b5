// learn/json_obj.hpp — a JSON object from (key, value) pairs, assembled out of line.
//
// nlohmann::json's object literal Json{{"k", v}, ...} builds each pair as a two-element array
// and converts it, all inlined at the call site; in wasm those literals were the largest code in
// the page. obj({{"k", v}, ...}) compiles to the values and one call.
#pragma once

#include <initializer_list>
#include <utility>

#include <nlohmann/json.hpp>

namespace attn {

/// The object {"k": v, ...} of `items`, in key order (nlohmann::json keeps objects sorted), equal
/// to Json{{"k", v}, ...}; a repeated key keeps its first value, as that literal does. Throws only
/// std::bad_alloc.
nlohmann::json obj(std::initializer_list<std::pair<const char*, nlohmann::json>> items);

}  // namespace attn
