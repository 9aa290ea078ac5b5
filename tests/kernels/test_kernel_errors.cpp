// tests/kernels/test_kernel_errors.cpp — the fast kernels fail like attention() does: the same
// stable error codes, asserted exactly, for both kernels and both element types.
#include "support/support.hpp"

#include <attn/attention.hpp>
#include <json/kernel_json.hpp>

using namespace attn_test;
namespace kn = attn::kernels;
using attn::ErrorCode;

namespace {

template <class T>
kn::RowMatrix<T> cast(const Matrix& m) {
  return m.cast<T>();
}

template <class T>
void check_error_paths() {
  using M = kn::RowMatrix<T>;
  attn::Rng rng(1);
  const M q = cast<T>(uniform(rng, 4, 3)), k = cast<T>(uniform(rng, 5, 3)), v = cast<T>(uniform(rng, 5, 2));
  for (int tiled = 0; tiled < 2; ++tiled) {
    INFO((tiled ? "tiled" : "dense") << " kernel, " << sizeof(T) * 8 << "-bit");
    auto run = [&](const M& a, const M& b, const M& c, const MaskSpec& s = {}, const kn::KernelOptions& o = {}) {
      return tiled ? kn::tiled_attention<T>(a, b, c, s, o) : kn::dense_attention<T>(a, b, c, s, o);
    };
    // Shapes.
    CHECK_ATTN_ERROR(run(M(0, 3), k, v), ErrorCode::empty_sequence);
    CHECK_ATTN_ERROR(run(q, M(5, 0), v), ErrorCode::empty_sequence);
    CHECK_ATTN_ERROR(run(cast<T>(uniform(rng, 4, 2)), k, v), ErrorCode::shape_mismatch);
    CHECK_ATTN_ERROR(run(q, k, cast<T>(uniform(rng, 6, 2))), ErrorCode::shape_mismatch);
    CHECK_ATTN_ERROR(run(q, k, M(5, kn::kMaxKernelWidth + 1)), ErrorCode::too_large);
    // Non-finite input, named.
    M bad = q;
    bad(2, 1) = std::numeric_limits<T>::quiet_NaN();
    CHECK_ATTN_ERROR(run(bad, k, v), ErrorCode::non_finite);
    M bad_v = v;
    bad_v(4, 0) = std::numeric_limits<T>::infinity();
    CHECK_ATTN_ERROR(run(q, k, bad_v), ErrorCode::non_finite);
    // A score that overflows (finite inputs, infinite q·k·scale) in an allowed pair.
    M big_q = q, big_k = k;
    big_q.row(1).setConstant(std::numeric_limits<T>::max() / 4);
    big_k.row(3).setConstant(std::numeric_limits<T>::max() / 4);
    CHECK_ATTN_ERROR(run(big_q, big_k, v), ErrorCode::non_finite);
    // ... but not when that pair is masked out.
    MaskSpec pad;
    pad.key_valid = std::vector<bool>{true, true, true, false, true};
    big_q.row(1).setConstant(1);
    big_q(1, 0) = std::numeric_limits<T>::max() / 4;
    CHECK_NOTHROW(run(big_q, big_k, v, pad));
    // Masks.
    MaskSpec causal;
    causal.causal = attn::Causal::square;
    CHECK_ATTN_ERROR(run(q, k, v, causal), ErrorCode::causal_alignment_required);
    MaskSpec kv;
    kv.key_valid = std::vector<bool>{true, true};
    CHECK_ATTN_ERROR(run(q, k, v, kv), ErrorCode::shape_mismatch);
    MaskSpec al;
    al.allowed = BoolMatrix::Constant(4, 4, true);
    CHECK_ATTN_ERROR(run(q, k, v, al), ErrorCode::shape_mismatch);
    MaskSpec w;
    w.half_width = -1;
    CHECK_ATTN_ERROR(run(q, k, v, w), ErrorCode::invalid_mask);
    // Scale.
    kn::KernelOptions o;
    o.scale = 0.0;
    CHECK_ATTN_ERROR(run(q, k, v, {}, o), ErrorCode::invalid_scale);
    o.scale = std::numeric_limits<double>::infinity();
    CHECK_ATTN_ERROR(run(q, k, v, {}, o), ErrorCode::invalid_scale);
    // Tile sizes.
    kn::KernelOptions t;
    t.tile_q = -1;
    CHECK_ATTN_ERROR(run(q, k, v, {}, t), ErrorCode::invalid_field);
    t.tile_q = 1;
    t.tile_k = kn::kMaxTile + 1;
    CHECK_ATTN_ERROR(run(q, k, v, {}, t), ErrorCode::invalid_field);
    // The allowed-matrix overloads check the matrix shape.
    const BoolMatrix wrong = BoolMatrix::Constant(5, 4, true);
    CHECK_ATTN_ERROR(tiled ? kn::tiled_attention_with_allowed<T>(q, k, v, wrong)
                             : kn::dense_attention_with_allowed<T>(q, k, v, wrong),
                       ErrorCode::shape_mismatch);
  }
}

}  // namespace

TEST_CASE("fast kernels report the reference error codes in float64") { check_error_paths<double>(); }

TEST_CASE("fast kernels report the reference error codes in float32") { check_error_paths<float>(); }

TEST_CASE("empty rows - error names the row and zero policy gives zero rows in both kernels") {
  IsaGuard guard;
  attn::Rng rng(21);
  const Matrix q = uniform(rng, 6, 3), k = uniform(rng, 8, 3), v = uniform(rng, 8, 2);
  BoolMatrix allowed = BoolMatrix::Constant(6, 8, true);
  allowed.row(4).setConstant(false);
  allowed.row(1).setConstant(false);
  attn::AttentionOptions zero;
  zero.empty_rows = attn::EmptyRows::zero;
  const attn::AttentionResult ref = attn::attention_with_allowed(q, k, v, allowed, zero);
  for (kn::Isa isa : kn::available_isas()) {
    REQUIRE(kn::set_isa(isa));
    for (Index tile : {1, 2, 3, 7, 16, 64, 128}) {
      INFO("tile " << tile << ", isa " << isa_label(isa));
      kn::KernelOptions o;
      o.tile_q = o.tile_k = tile;
      // Default policy: error, naming the first empty row (1).
      try {
        (void)kn::tiled_attention_with_allowed<double>(q, k, v, allowed, o);
        FAIL("no error for an empty row");
      } catch (const attn::Error& e) {
        CHECK(e.code() == ErrorCode::no_allowed_key);
        CHECK(std::string(e.what()).find("query row 1 ") != std::string::npos);
      }
      CHECK_ATTN_ERROR(kn::dense_attention_with_allowed<double>(q, k, v, allowed, o), ErrorCode::no_allowed_key);
      o.empty_rows = attn::EmptyRows::zero;
      o.keep_stats = true;
      const kn::KernelResult<double> t = kn::tiled_attention_with_allowed<double>(q, k, v, allowed, o);
      CHECK(t.empty_row == ref.empty_row);
      CHECK(t.output.row(4).isZero(0.0));
      CHECK(t.output.row(1).isZero(0.0));
      CHECK(std::isinf(t.row_max[4]));
      CHECK(t.row_sum[4] == 0.0);
      CHECK(max_diff(t.output, ref.output, 1e-12) <= 1e-12);
      const kn::KernelResult<float> f = kn::tiled_attention_with_allowed<float>(q.cast<float>(), k.cast<float>(),
                                                                                v.cast<float>(), allowed, o);
      CHECK(f.empty_row == ref.empty_row);
      CHECK(f.output.row(1).isZero(0.0f));
      o.keep_weights = true;
      const kn::KernelResult<double> d = kn::dense_attention_with_allowed<double>(q, k, v, allowed, o);
      CHECK(d.empty_row == ref.empty_row);
      CHECK(d.weights.row(4).isZero(0.0));
      CHECK(max_diff(d.output, ref.output, 1e-12) <= 1e-12);
    }
  }
}

TEST_CASE("non-finite error beats the empty-row error as in the reference") {
  // Row 0 is empty and row 3 has an overflowing score: attention() reports non_finite first.
  attn::Rng rng(8);
  Matrix q = uniform(rng, 4, 2), k = uniform(rng, 3, 2);
  const Matrix v = uniform(rng, 3, 2);
  q.row(3).setConstant(1e200);
  k.row(2).setConstant(1e200);
  BoolMatrix allowed = BoolMatrix::Constant(4, 3, true);
  allowed.row(0).setConstant(false);
  CHECK_ATTN_ERROR(attn::attention_with_allowed(q, k, v, allowed), ErrorCode::non_finite);
  for (Index tile : {1, 2, 3}) {
    kn::KernelOptions o;
    o.tile_q = o.tile_k = tile;
    CHECK_ATTN_ERROR(kn::tiled_attention_with_allowed<double>(q, k, v, allowed, o), ErrorCode::non_finite);
    CHECK_ATTN_ERROR(kn::dense_attention_with_allowed<double>(q, k, v, allowed, o), ErrorCode::non_finite);
  }
}

TEST_CASE("dense fast path refuses more pairs than its limit") {
  // Checked before any allocation: a 2^15 x 2^14 problem would need 2^29 scores.
  const Matrix q = Matrix::Zero(1 << 15, 1), k = Matrix::Zero(1 << 14, 1), v = Matrix::Zero(1 << 14, 1);
  CHECK_ATTN_ERROR(kn::dense_attention<double>(q, k, v), ErrorCode::too_large);
}
