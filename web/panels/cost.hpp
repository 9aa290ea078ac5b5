// web/panels/cost.hpp — inputs and results of the Cost panel (the cost of dense attention); its draw function is in cost.cpp.
//
// Same one-way flow as app_state.hpp: every input change goes through a setter below, which
// recomputes through the core (attn::attention_cost, time_dense_vs_tiled,
// timed_attention_weights). On attn::Error the panel keeps its last good inputs and results and
// records the error to show. The timing runs only when asked (a button or set({cost:{run_timing}})),
// never per frame; the T×T weights are recomputed only when their T, d or seed change.
#pragma once

#include <cstdint>
#include <optional>

#include "lessons/cost.hpp"
#include "json/json_case.hpp"
#include "widgets/error_info.hpp"

namespace app {

struct AppState;
struct Ui;

struct CostState {
  attn::CostInput input;              ///< last good (defaults: CostInput)
  attn::CostResult result;

  attn::KernelTimingInput timing_input;  ///< T, d, dtype of the timing and of the weights map
  std::optional<attn::KernelTiming> timing;  ///< none until the first run
  int timing_runs = 0;

  int weights_t = 0, weights_d = 0;   ///< what `weights` was computed for (0: not yet)
  std::uint64_t weights_seed = 0;
  attn::Matrix weights;               ///< T×T weights of the timed Q, K (double, row = query)
  double weights_max = 0;             ///< largest weight
  double weights_top = 0;             ///< 99.9th percentile: the colour range's top (the few
                                      ///< largest weights would otherwise darken all the rest)
  std::uint64_t weights_version = 0;  ///< changes with `weights` (heatmap texture)
  int probe_row = 0, probe_col = 0;   ///< a cell whose weight state() reports (tests, readers)
  /// The panel was shown and its weights map waits for the next frame (state() reports pending: true).
  bool pending = false;
  std::optional<ErrorInfo> error;
};

/// Recompute the counts. Returns false (error recorded, last good kept) on bad input.
bool set_cost_input(AppState& s, const attn::CostInput& in);
/// Change the timing/weights inputs; recomputes the weights map (not the timing) when T, d or
/// the seed changed, and drops a timing of other inputs.
bool set_cost_timing_input(AppState& s, const attn::KernelTimingInput& in);
/// Time dense vs tiled at the current timing inputs (blocks for the runs).
bool run_cost_timing(AppState& s);
/// The panel is shown: its weights map is computed if missing (first show). `now`: at once
/// (set()); otherwise it is marked pending and computed by tick_cost before the next frame.
void show_cost_panel(AppState& s, bool now);
/// Compute a pending weights map (before a frame is drawn, never inside a draw call).
void tick_cost(AppState& s);
/// The inputs of the panel's state() (what set() takes back; what a link carries).
attn::Json cost_inputs_json(const AppState& s);
/// Cell whose exact weight state() reports (clamped into the matrix).
void set_cost_probe(AppState& s, int row, int col);

/// {"inputs":{...,"timing":{t,d,dtype,seed,warmups,repeats}}, "result":{counts (attn::to_json),
///  "timing": ..|null, "timing_runs", "weights":{t,d,seed,rows,cols,probe:{row,col,weight}},
///  "checks"}, "error"}
attn::Json cost_state_json(const AppState& s);
/// set({cost: {t, d_model, heads, kv_groups, layers, context, cache_dtype, window,
///  timing_t, timing_d, timing_dtype, seed, repeats, run_timing: true, probe: [row, col]}}).
/// Returns false when a setter refused (the error is in CostState::error); a malformed patch
/// throws attn::Error(invalid_field).
bool apply_cost_json(AppState& s, const attn::Json& patch);

/// The cost of dense attention: FLOPs, stored bytes, K/V cache, sliding window; dense vs tiled timing; the T×T map.
void draw_cost_panel(AppState& s, Ui& ui);

struct PanelDef;
/// This panel's entry in the panel table (panels/registry.hpp); its number is its place there.
const PanelDef& cost_panel();

}  // namespace app
