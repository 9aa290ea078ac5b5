// learn/params.hpp — named parameters laid out as PyTorch's state_dict.
//
// A model's parameters live in one contiguous double buffer; a ParamLayout names each tensor
// (e.g. "layers.0.attn.in_proj_weight"), gives its torch shape (rows × cols for a weight, which
// torch stores out × in; a 1-D bias has is_vector = true and rows = 1) and its offset. Gradients,
// and Adam's moments, use the same layout, so an optimiser walks one flat buffer in a fixed order
// (deterministic on every platform).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attn/types.hpp"

namespace attn::learn {

/// PyTorch 1.13's default initialisation law of a tensor (each module's reset_parameters()).
struct InitLaw {
  enum Kind { normal, uniform, ones, zeros } kind = zeros;
  double bound = 0.0;  ///< uniform: U(−bound, bound)
  static InitLaw standard_normal() { return {normal, 0.0}; }  ///< nn.Embedding: N(0, 1)
  static InitLaw symmetric(double b) { return {uniform, b}; }  ///< U(−b, b)
  static InitLaw one() { return {ones, 0.0}; }                  ///< nn.LayerNorm weight
  static InitLaw zero() { return {zeros, 0.0}; }                ///< nn.LayerNorm bias
};

/// One tensor of a state_dict: name, torch shape and where it sits in the flat buffer.
struct ParamInfo {
  std::string name;
  Index rows = 0;          ///< 1 for a vector
  Index cols = 0;          ///< length for a vector
  bool is_vector = false;  ///< 1-D tensor in torch (a bias, a LayerNorm weight)
  std::size_t offset = 0;  ///< first element in the flat buffer (row-major)
  InitLaw init;            ///< the law init_params() draws it from
  std::size_t size() const { return static_cast<std::size_t>(rows * cols); }
};

/// Ordered list of the tensors of a model; the order is the model's state_dict order.
class ParamLayout {
 public:
  /// Appends a rows×cols matrix and returns its index.
  std::size_t add_matrix(const std::string& name, Index rows, Index cols, InitLaw init);
  /// Appends a vector of length n (torch 1-D tensor) and returns its index.
  std::size_t add_vector(const std::string& name, Index n, InitLaw init);
  const std::vector<ParamInfo>& params() const { return params_; }
  std::size_t total() const { return total_; }
  /// Index of `name`, or -1 if the layout has no such tensor.
  long find(const std::string& name) const;
  const ParamInfo& at(std::size_t i) const { return params_[i]; }

 private:
  std::vector<ParamInfo> params_;
  std::size_t total_ = 0;
};

/// Pointer to the tensor `name` inside a flat buffer laid out by `layout` (parameters, gradients).
/// Throws Error(invalid_field) when the layout has no such tensor.
double* tensor_in(const ParamLayout& layout, double* base, const std::string& name);
const double* tensor_in(const ParamLayout& layout, const double* base, const std::string& name);
/// The same over a float32 buffer (a full-size model held in float).
float* tensor_in(const ParamLayout& layout, float* base, const std::string& name);
const float* tensor_in(const ParamLayout& layout, const float* base, const std::string& name);

/// Throws Error(invalid_field) "model.FIELD must be between LO and HI, got V" unless lo <= v <= hi.
void require_model_range(const char* field, int v, int lo, int hi);

/// Parameters drawn from each tensor's law with the core's seeded sampler (attn::Rng on
/// std::mt19937_64), tensor after tensor in layout order, row by row: the same seed gives the same
/// bits natively and in wasm. The laws are PyTorch's; the numbers are not torch.manual_seed's.
std::vector<double> init_params(const ParamLayout& layout, std::uint64_t seed);

}  // namespace attn::learn
