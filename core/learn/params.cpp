#include "learn/params.hpp"

#include "attn/error.hpp"
#include "attn/random.hpp"

namespace attn::learn {

std::size_t ParamLayout::add_matrix(const std::string& name, Index rows, Index cols, InitLaw init) {
  params_.push_back(ParamInfo{name, rows, cols, false, total_, init});
  total_ += static_cast<std::size_t>(rows * cols);
  return params_.size() - 1;
}

std::size_t ParamLayout::add_vector(const std::string& name, Index n, InitLaw init) {
  params_.push_back(ParamInfo{name, 1, n, true, total_, init});
  total_ += static_cast<std::size_t>(n);
  return params_.size() - 1;
}

long ParamLayout::find(const std::string& name) const {
  for (std::size_t i = 0; i < params_.size(); ++i)
    if (params_[i].name == name) return static_cast<long>(i);
  return -1;
}

namespace {
std::size_t offset_of(const ParamLayout& layout, const std::string& name) {
  const long i = layout.find(name);
  if (i < 0) throw Error(ErrorCode::invalid_field, "the model has no parameter \"" + name + "\"");
  return layout.at(static_cast<std::size_t>(i)).offset;
}
}  // namespace

double* tensor_in(const ParamLayout& layout, double* base, const std::string& name) {
  return base + offset_of(layout, name);
}

const double* tensor_in(const ParamLayout& layout, const double* base, const std::string& name) {
  return base + offset_of(layout, name);
}
float* tensor_in(const ParamLayout& layout, float* base, const std::string& name) {
  return base + offset_of(layout, name);
}
const float* tensor_in(const ParamLayout& layout, const float* base, const std::string& name) {
  return base + offset_of(layout, name);
}

void require_model_range(const char* field, int v, int lo, int hi) {
  if (v < lo || v > hi)
    throw Error(ErrorCode::invalid_field, std::string("model.") + field + " must be between " + std::to_string(lo) +
                                              " and " + std::to_string(hi) + ", got " + std::to_string(v));
}

std::vector<double> init_params(const ParamLayout& layout, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<double> out(layout.total(), 0.0);
  for (const ParamInfo& p : layout.params()) {
    double* x = out.data() + p.offset;
    for (std::size_t i = 0; i < p.size(); ++i) {
      switch (p.init.kind) {
        case InitLaw::normal: x[i] = rng.normal(); break;
        case InitLaw::uniform: x[i] = rng.uniform(-p.init.bound, p.init.bound); break;
        case InitLaw::ones: x[i] = 1.0; break;
        case InitLaw::zeros: x[i] = 0.0; break;
      }
    }
  }
  return out;
}

}  // namespace attn::learn
