// learn/linear_f32_impl.hpp — the float32 linear layer's loops, included by layers_f32.cpp
// (SSE2 natively, simd128 in wasm) and linear_f32_avx2.cpp (-mavx2, picked at run time on x86-64).
// Define ATTN_LINEAR_F32_NS before including: the namespace of this copy.
//
// out[N×OC] = inp[N×IC]·weightᵀ + bias, weight OC×IC (torch's layout). A tile of kTile outputs has
// its weight rows transposed into wt (IC×kTile), then kRows input rows at a time run across it:
// for each k, every row's kTile sums take one product each. Each output is its bias (or 0) plus
// the products in ascending k, one rounding per multiply and per add (contraction off; the vector
// extensions' operations are lane-wise IEEE operations, never fused): the same
// bits at every register width and on every platform; only how many independent sums run at
// once changes.
#include <algorithm>
#include <vector>

namespace attn::learn::ATTN_LINEAR_F32_NS {

constexpr int kTile = 16, kRows = 4;

// kLanes floats as one value (GCC and clang vector extensions): lane-wise IEEE operations, so each
// lane is one output's own sum. Eight with AVX2 (one register), four otherwise (SSE2, wasm
// simd128). Loads and stores through memcpy (no alignment assumed).
#if defined(__AVX2__)
constexpr int kLanes = 8;
#else
constexpr int kLanes = 4;
#endif
typedef float FV __attribute__((vector_size(kLanes * 4)));
constexpr int kVecs = kTile / kLanes;  ///< vectors per tile of outputs

inline FV loadv(const float* p) {
  FV v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}

inline void linear(float* out, const float* inp, const float* weight, const float* bias, int n, int ic, int oc) {
  thread_local std::vector<float> wt_buf;
  wt_buf.resize(static_cast<size_t>(ic) * kTile);
  float* wt = wt_buf.data();
  for (int o0 = 0; o0 < oc; o0 += kTile) {
    const int no = std::min(kTile, oc - o0);
    for (int j = 0; j < kTile; ++j) {  // row j of the tile, read along k (contiguous), written down a column
      const float* w = weight + static_cast<long>(o0 + j) * ic;
      for (int k = 0; k < ic; ++k) wt[static_cast<size_t>(k) * kTile + j] = j < no ? w[k] : 0.0f;
    }
    float bb[kTile];
    for (int j = 0; j < kTile; ++j) bb[j] = bias && j < no ? bias[o0 + j] : 0.0f;
    FV b[kVecs];
    for (int v = 0; v < kVecs; ++v) b[v] = loadv(bb + v * kLanes);
    float res[kTile];
    int r = 0;
    for (; r + kRows <= n; r += kRows) {
      FV acc[kRows][kVecs];
      for (int i = 0; i < kRows; ++i)
        for (int v = 0; v < kVecs; ++v) acc[i][v] = b[v];
      const float* x = inp + static_cast<long>(r) * ic;
      for (int k = 0; k < ic; ++k) {
        FV w[kVecs];
        for (int v = 0; v < kVecs; ++v) w[v] = loadv(wt + static_cast<size_t>(k) * kTile + v * kLanes);
        for (int i = 0; i < kRows; ++i) {
          const float xk = x[static_cast<long>(i) * ic + k];
          for (int v = 0; v < kVecs; ++v) acc[i][v] += w[v] * xk;  // a multiply, then an add: no contraction
        }
      }
      for (int i = 0; i < kRows; ++i) {
        __builtin_memcpy(res, acc[i], sizeof res);
        std::copy(res, res + no, out + static_cast<long>(r + i) * oc + o0);
      }
    }
    for (; r < n; ++r) {  // the last rows, one at a time: the same sums
      FV acc[kVecs];
      for (int v = 0; v < kVecs; ++v) acc[v] = b[v];
      const float* x = inp + static_cast<long>(r) * ic;
      for (int k = 0; k < ic; ++k)
        for (int v = 0; v < kVecs; ++v) acc[v] += loadv(wt + static_cast<size_t>(k) * kTile + v * kLanes) * x[k];
      __builtin_memcpy(res, acc, sizeof res);
      std::copy(res, res + no, out + static_cast<long>(r) * oc + o0);
    }
  }
}

}  // namespace attn::learn::ATTN_LINEAR_F32_NS
