#include <mmp/maps/pipeline_settings.hpp>

#include <mmp/core/error.hpp>

#include <cmath>

namespace mmp {
namespace {

const LabelClass* findClass(const std::vector<LabelClass>& classes, const std::string& key) {
  for (const LabelClass& c : classes) {
    if (c.name == key || std::to_string(c.index) == key) return &c;
  }
  return nullptr;
}

}  // namespace

Behaviour Behaviour::make(const std::string& name, const std::vector<LabelClass>& classes,
                          const std::vector<std::pair<std::string, double>>& costs, const std::string& preferred) {
  Behaviour b;
  b.name = name;
  const std::string what = "behaviour '" + name + "'";
  for (const auto& [key, cost] : costs) {
    const LabelClass* c = findClass(classes, key);
    if (c == nullptr) throw InvalidArgument(what + ": unknown class '" + key + "'");
    if (!(cost > 0.0)) throw InvalidArgument(what + ": class '" + c->name + "': expected a cost > 0 or inf (impassable)");
    double& slot = b.cost_by_index[static_cast<std::size_t>(c->index)];
    if (!std::isnan(slot)) throw InvalidArgument(what + ": class '" + c->name + "' is given a cost twice");
    slot = cost;
  }
  for (const LabelClass& c : classes) {
    if (std::isnan(b.cost_by_index[static_cast<std::size_t>(c.index)])) {
      throw InvalidArgument(what + ": class '" + c.name + "' has no cost; give every declared class one (inf = impassable)");
    }
  }
  const LabelClass* p = findClass(classes, preferred);
  if (p == nullptr) throw InvalidArgument(what + ": unknown preferred class '" + preferred + "'");
  if (!std::isfinite(b.cost_by_index[static_cast<std::size_t>(p->index)])) {
    throw InvalidArgument(what + ": the preferred class '" + p->name + "' is impassable under this behaviour's costs");
  }
  b.preferred = p->index;
  b.preferred_name = p->name;
  return b;
}

RegionSpec RegionSpec::scene(std::uint64_t seed) {
  RegionSpec r;
  r.synthetic = SyntheticSceneParams{};
  r.synthetic->seed = seed;
  r.name = r.where = "synthetic-" + std::to_string(seed);
  return r;
}

CostLearnerSettings::CostLearnerSettings() {
  online.lambda = 1e-4;
  online.stop.max_iterations = 20;
  online.averaging = Averaging::LateWeighted;
  online.shuffle = true;
  batch.lambda = 1e-4;
  batch.steps = StepSchedule::constant(10.0);
  batch.stop.max_iterations = 100;
  batch.averaging = Averaging::LateWeighted;
  batch.threads = 0;
}

}  // namespace mmp
