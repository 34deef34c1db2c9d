#include <mmp/maps/training/settings_selection.hpp>

#include <mmp/core/error.hpp>

#include <chrono>
#include <cmath>
#include <limits>

namespace mmp {
bool settingApplies(const PipelineSettings& s, const std::string& key) {
  const bool learch = s.learner.hypothesis == CostHypothesis::Learch;
  const bool network = s.learner.hypothesis == CostHypothesis::Network;
  if (key.rfind("learner.learch.", 0) == 0) return learch;
  if (key.rfind("learner.network.", 0) == 0) return network;
  if (key == "learner.costs" || key == "learner.calibrate_bias") return !learch && !network;
  if (key == "learner.lambda" || key == "learner.passes") {
    return learch ? s.learner.learch.from_linear : network ? s.learner.network.from_linear : true;
  }
  return true;
}

namespace {

// Refuses a search space that names a key twice, an unknown key or an unusable value; returns each
// key's first value, where the search starts.
std::map<std::string, std::string> checkedStartValues(const PipelineSettings& settings, const SelectionSpace& space) {
  if (space.keys.empty()) throw InvalidArgument("select: the search space names no key");
  if (space.sweeps < 1) throw InvalidArgument("select: sweeps must be >= 1");
  std::map<std::string, std::string> current;
  for (const SelectionKey& key : space.keys) {
    if (current.count(key.name) != 0) throw InvalidArgument("select: " + key.name + " is given twice");
    if (key.values.empty()) throw InvalidArgument("select: " + key.name + ": list at least one value");
    const SettingKey* k = findSettingKey(key.name);
    if (k == nullptr || !k->selectable) {
      std::string known;
      for (const SettingKey& s : settingKeys()) known += s.selectable ? (known.empty() ? "" : ", ") + s.key : "";
      throw InvalidArgument("select: unknown key '" + key.name + "'; the search space may name " + known);
    }
    for (const std::string& value : key.values) {
      PipelineSettings check = settings;
      try {
        applySetting(check, key.name, value);
      } catch (const InvalidArgument& e) {
        throw InvalidArgument(std::string("select: ") + e.what());
      }
    }
    current[key.name] = key.values.front();
  }
  return current;
}

// Validates one candidate by area (its number counts from 1 for the progress callback) and times it.
SelectionCandidate scoreCandidate(const PipelineSettings& candidate_settings, const std::map<std::string, std::string>& values,
                                  int number, const SelectionProgress& progress) {
  SelectionCandidate c;
  c.values = values;
  const auto start = std::chrono::steady_clock::now();
  FoldProgress fold_progress;
  if (progress) {
    fold_progress = [&](int, const std::string& area, const std::string& stage, long done, long total,
                        const std::string&) { progress(number, values, area, stage, done, total); };
  }
  try {
    const ValidationReport validation = validateByArea(candidate_settings, fold_progress);
    for (const ValidationFold& fold : validation.folds) {
      c.area_cost_ratio[fold.area] = fold.report.summary(Method::Learned).cost_ratio_mean;
    }
    const MethodSummary m = validation.pooled.summary(Method::Learned);
    c.cost_ratio_mean = m.cost_ratio_mean;
    c.feasible_share = m.feasible_share;
    c.mhd_mean_px = m.mhd_mean_px;
  } catch (const ValidationFailure& e) {
    // A candidate that cannot be trained (e.g. costs that overflow) is out of the running; the
    // search goes on with the others.
    c.failure = e.what();
    c.cost_ratio_mean = c.mhd_mean_px = std::numeric_limits<double>::infinity();
    c.feasible_share = 0.0;
  }
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace

SelectionResult selectSettings(const PipelineSettings& settings, const SelectionSpace& space,
                               const SelectionProgress& progress) {
  std::map<std::string, std::string> current = checkedStartValues(settings, space);
  validationFold(settings, 0);  // refuses unusable settings before any training

  SelectionResult result;
  const auto settingsFor = [&](const std::map<std::string, std::string>& values) {
    PipelineSettings s = settings;
    for (const SelectionKey& key : space.keys) applySetting(s, key.name, values.at(key.name));
    validate(s);
    return s;
  };
  // The index of the candidate with these values, scoring it first if it is new.
  const auto score = [&](const std::map<std::string, std::string>& values) {
    for (std::size_t i = 0; i < result.candidates.size(); ++i) {
      if (result.candidates[i].values == values) return i;
    }
    const PipelineSettings candidate_settings = settingsFor(values);
    const int number = static_cast<int>(result.candidates.size()) + 1;
    result.candidates.push_back(scoreCandidate(candidate_settings, values, number, progress));
    return result.candidates.size() - 1;
  };

  result.chosen = score(current);
  for (int sweep = 0; sweep < space.sweeps; ++sweep) {
    for (const SelectionKey& key : space.keys) {
      if (!settingApplies(settingsFor(current), key.name)) continue;  // its values would all train the same model
      for (const std::string& value : key.values) {
        std::map<std::string, std::string> values = current;
        values[key.name] = value;
        const std::size_t i = score(values);
        if (result.candidates[i].cost_ratio_mean < result.candidates[result.chosen].cost_ratio_mean) result.chosen = i;
      }
      current = result.candidates[result.chosen].values;
    }
  }
  if (!std::isfinite(result.candidates[result.chosen].cost_ratio_mean)) {
    throw InvalidArgument("select: no candidate could be trained; the first: " + result.candidates.front().failure);
  }
  result.settings = settingsFor(current);
  return result;
}

}  // namespace mmp
