#include "learn/run_record.hpp"

#include "attn/error.hpp"

namespace attn::learn {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, msg); }

// A vector called "" is the run's only one: "params", else "<name><sep>params".
std::string params_array(const std::string& name, const char* sep) {
  return name.empty() ? "params" : name + sep + "params";
}
std::string params_hash_key(const std::string& name) { return (name.empty() ? "params" : name) + "_fnv1a"; }
std::string adam_prefix(const std::string& name) { return name.empty() ? "" : name + "_"; }

}  // namespace

const std::vector<double>& named_array(const std::vector<NamedArray>& arrays, const std::string& name,
                                       const char* whose) {
  for (const NamedArray& a : arrays)
    if (a.first == name) return a.second;
  bad(std::string(whose) + ": no array '" + name + "'");
}

Checkpoint run_record_checkpoint(const RunRecord& run) {
  Checkpoint c;
  c.meta = Json::object();
  c.meta["model"] = run.model;
  c.meta["task"] = run.task;
  c.meta["config"] = run.config;
  c.meta["step"] = run.step;
  for (const NamedArray& p : run.params) c.meta[params_hash_key(p.first)] = params_fnv1a(p.second);
  for (const NamedArray& p : run.params) c.add(params_array(p.first, "."), p.second);
  for (const NamedArray& a : run.curves) c.add(a.first, a.second);
  return c;
}

RunRecord run_record_from_checkpoint(const Checkpoint& ck, const RunRecordKind& kind) {
  const Json& m = ck.meta;
  if (!m.is_object() || m.value("model", "") != kind.model || m.value("task", "") != kind.task)
    bad("checkpoint: not " + kind.what + " (model " +
        (m.is_object() ? m.value("model", std::string("?")) : std::string("?")) + ", task " +
        (m.is_object() ? m.value("task", std::string("?")) : std::string("?")) + ")");
  if (!m.contains("config") || !m.contains("step") || !m["step"].is_number_integer())
    bad("checkpoint: the meta needs a config and a step");
  RunRecord r;
  r.model = kind.model;
  r.task = kind.task;
  r.config = m["config"];
  r.step = m["step"].get<int>();
  for (const std::string& name : kind.params) r.params.emplace_back(name, ck.array(params_array(name, ".")));
  for (const std::string& name : kind.curves) r.curves.emplace_back(name, ck.array(name));
  for (const NamedArray& p : r.params)
    if (m.value(params_hash_key(p.first), "") != params_fnv1a(p.second))
      bad("checkpoint: a parameter hash differs from the meta's (a damaged or edited file)");
  return r;
}

const AdamState& TrainerState::adam_state(const std::string& name) const {
  for (const auto& a : adam)
    if (a.first == name) return a.second;
  bad("trainer state: no Adam state of '" + name + "'");
}

Checkpoint trainer_state_checkpoint(const TrainerState& s) {
  Checkpoint c;
  c.meta = s.meta.is_object() ? s.meta : Json::object();
  c.meta["model"] = s.model;
  c.meta["task"] = s.task;
  c.meta["kind"] = "trainer_state";
  c.meta["config"] = s.config;
  c.meta["step"] = s.step;
  for (const auto& a : s.adam) c.meta[adam_prefix(a.first) + "adam_step"] = a.second.step;
  for (const NamedArray& p : s.params) c.add(params_array(p.first, "_"), p.second);
  for (const auto& a : s.adam) {
    c.add(adam_prefix(a.first) + "adam_m", a.second.m);
    c.add(adam_prefix(a.first) + "adam_v", a.second.v);
  }
  for (const NamedArray& a : s.arrays) c.add(a.first, a.second);
  return c;
}

namespace {
void require_state_meta(const Json& m, const TrainerStateKind& kind) {
  if (!m.is_object() || m.value("model", "") != kind.model || m.value("task", "") != kind.task ||
      m.value("kind", "") != "trainer_state")
    bad("trainer state: not " + kind.what);
  std::vector<std::string> integers{"step"};
  for (const std::string& p : kind.params) integers.push_back(adam_prefix(p) + "adam_step");
  integers.insert(integers.end(), kind.meta_integers.begin(), kind.meta_integers.end());
  for (const std::string& k : integers)
    if (!m.contains(k) || !m[k].is_number_integer()) bad("trainer state: '" + k + "' missing");
  std::vector<std::string> values{"config"};
  values.insert(values.end(), kind.meta_values.begin(), kind.meta_values.end());
  for (const std::string& k : values)
    if (!m.contains(k)) bad("trainer state: '" + k + "' missing");
  for (const std::string& k : kind.meta_strings)
    if (!m.contains(k) || !m[k].is_string()) bad("trainer state: '" + k + "' missing");
}

// Adam sizes its moments on its first step: none before it, one per parameter after.
AdamState read_adam(const Checkpoint& ck, const std::string& name, std::size_t n) {
  const std::string prefix = adam_prefix(name);
  AdamState a;
  a.m = ck.array(prefix + "adam_m");
  a.v = ck.array(prefix + "adam_v");
  a.step = ck.meta[prefix + "adam_step"].get<long>();
  const std::size_t moments = a.step == 0 ? 0 : n;
  if (a.step < 0 || a.m.size() != moments || a.v.size() != moments)
    bad("trainer state: " + prefix + "adam_m does not fit " + std::to_string(n) + " parameters at Adam step " +
        std::to_string(a.step));
  return a;
}
}  // namespace

TrainerState trainer_state_from_checkpoint(const Checkpoint& ck, const TrainerStateKind& kind) {
  const Json& m = ck.meta;
  require_state_meta(m, kind);
  TrainerState s;
  s.model = kind.model;
  s.task = kind.task;
  s.config = m["config"];
  s.step = m["step"].get<int>();
  for (const std::string& k : kind.meta_integers) s.meta[k] = m[k];
  for (const std::string& k : kind.meta_strings) s.meta[k] = m[k];
  for (const std::string& k : kind.meta_values) s.meta[k] = m[k];
  for (const std::string& name : kind.params) s.params.emplace_back(name, ck.array(params_array(name, "_")));
  for (const NamedArray& p : s.params) s.adam.emplace_back(p.first, read_adam(ck, p.first, p.second.size()));
  for (const std::string& name : kind.arrays) s.arrays.emplace_back(name, ck.array(name));
  return s;
}

Json adam_config_json(const AdamConfig& a) {
  Json j = Json::object();
  j["lr"] = a.lr;
  j["beta1"] = a.beta1;
  j["beta2"] = a.beta2;
  j["eps"] = a.eps;
  j["weight_decay"] = a.weight_decay;
  return j;
}

AdamConfig adam_config_from_json(const Json& a, const std::string& where) {
  AdamConfig c;
  const std::pair<const char*, double*> fields[] = {
      {"lr", &c.lr}, {"beta1", &c.beta1}, {"beta2", &c.beta2}, {"eps", &c.eps}, {"weight_decay", &c.weight_decay}};
  for (const auto& [key, field] : fields) {
    if (!a.is_object() || !a.contains(key) || !a[key].is_number()) bad(where + ": '" + key + "' missing");
    *field = a[key].get<double>();
  }
  return c;
}

void require_state_step(int step, int steps) {
  if (step < 0 || step > steps) bad("trainer state: step " + std::to_string(step) + " is outside 0.." + std::to_string(steps));
}

}  // namespace attn::learn
