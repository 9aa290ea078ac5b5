#include "learn/params.hpp"

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
