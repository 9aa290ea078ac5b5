// tests/app/attn_test_imconfig.h — ImGui configuration of the headless test
// (IMGUI_USER_CONFIG): a failed IM_ASSERT throws, so the test reports which step and
// frame broke an ImGui rule (mismatched Begin/End, PushID/PopID, out-of-range ImVector
// access, ...) instead of aborting silently or, with NDEBUG, carrying on.
#pragma once

namespace attn_test {
[[noreturn]] void imgui_assert_failed(const char* expr, const char* file, int line);
}

#define IM_ASSERT(_EXPR) ((_EXPR) ? (void)0 : ::attn_test::imgui_assert_failed(#_EXPR, __FILE__, __LINE__))
