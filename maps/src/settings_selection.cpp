#include <mmp/maps/settings_selection.hpp>

#include <mmp/core/error.hpp>

#include <chrono>
#include <cmath>
#include <limits>

namespace mmp {
namespace {

// `text` as a number in [low, high], or an error naming the key.
double numberIn(const std::string& key, const std::string& text, double low, double high) {
  std::size_t used = 0;
  double v = std::numeric_limits<double>::quiet_NaN();
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !(v >= low && v <= high)) {
    throw InvalidArgument("select: " + key + ": expected a number in [" + numberText(low) + ", " + numberText(high) +
                          "], got '" + text + "'");
  }
  return v;
}

long integerIn(const std::string& key, const std::string& text, long low, long high) {
  const double v = numberIn(key, text, static_cast<double>(low), static_cast<double>(high));
  if (v != std::floor(v)) throw InvalidArgument("select: " + key + ": expected a whole number, got '" + text + "'");
  return static_cast<long>(v);
}

std::string oneOf(const std::string& key, const std::string& text, const std::vector<std::string>& valid) {
  for (const std::string& v : valid) {
    if (v == text) return v;
  }
  std::string list;
  for (const std::string& v : valid) list += (list.empty() ? "" : ", ") + v;
  throw InvalidArgument("select: " + key + ": expected one of " + list + ", got '" + text + "'");
}

constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

const std::vector<std::pair<std::string, std::string>>& selectionKeys() {
  static const std::vector<std::pair<std::string, std::string>> keys = {
      {"learner.kind", "online, batch (linear in the features) or learch (boosted regression trees on the log-cost)"},
      {"learner.costs", "linear or exponential: cell costs w . f or exp(w . f)"},
      {"learner.lambda", "> 0: the regularisation of the online and the batch learner"},
      {"learner.passes", "1..100000: online epochs or batch iterations"},
      {"learner.calibrate_bias", "true or false: choose the bias for plain planning on the demonstrations"},
      {"loss.scale", "> 0: the margin asked of a path far from the demonstration"},
      {"loss.radius_px", "> 0: the distance (pixels) at which the loss reaches its scale"},
      {"features.bins", "0 or 2..64: soft bins per feature (0: the value and its complement)"},
      {"learch.start", "uniform, online or batch: LEARCH's first log-cost (that linear learner's, exponential costs)"},
      {"learch.rounds", "1..100000: trees LEARCH adds"},
      {"learch.step", "> 0: LEARCH's step, eta_t = step / sqrt(t)"},
      {"learch.depth", "1..16: the depth of LEARCH's trees"},
  };
  return keys;
}

void applySetting(PipelineSettings& s, const std::string& key, const std::string& value) {
  if (key == "learner.kind") {
    const std::string kind = oneOf(key, value, {"online", "batch", "learch"});
    s.learner.learch.enabled = kind == "learch";
    if (kind != "learch") s.learner.kind = parseLearnerKind(kind);
  } else if (key == "learner.costs") {
    s.learner.costs = parseCostForm(oneOf(key, value, {"linear", "exponential"}));
  } else if (key == "learner.lambda") {
    s.learner.online.lambda = s.learner.batch.lambda = numberIn(key, value, 1e-12, 1e6);
  } else if (key == "learner.passes") {
    s.learner.online.stop.max_iterations = s.learner.batch.stop.max_iterations = integerIn(key, value, 1, 100000);
  } else if (key == "learner.calibrate_bias") {
    s.learner.calibrate_bias = oneOf(key, value, {"true", "false"}) == "true";
  } else if (key == "loss.scale") {
    s.loss.scale = numberIn(key, value, 1e-9, kInfinity);
  } else if (key == "loss.radius_px") {
    s.loss.radius_px = numberIn(key, value, 1e-9, kInfinity);
  } else if (key == "features.bins") {
    const long bins = integerIn(key, value, 0, 64);
    if (bins == 1) throw InvalidArgument("select: features.bins: expected 0 or 2..64, got 1");
    s.features.bins = static_cast<int>(bins);
    s.features.complements = bins == 0;
  } else if (key == "learch.start") {
    const std::string start = oneOf(key, value, {"uniform", "online", "batch"});
    s.learner.learch.from_linear = start != "uniform";
    if (s.learner.learch.from_linear) s.learner.kind = parseLearnerKind(start);
  } else if (key == "learch.rounds") {
    s.learner.learch.rounds = static_cast<int>(integerIn(key, value, 1, 100000));
  } else if (key == "learch.step") {
    s.learner.learch.step = numberIn(key, value, std::numeric_limits<double>::min(), kInfinity);
  } else if (key == "learch.depth") {
    s.learner.learch.depth = static_cast<int>(integerIn(key, value, 1, 16));
  } else {
    std::string list;
    for (const auto& [name, what] : selectionKeys()) list += (list.empty() ? "" : ", ") + name;
    throw InvalidArgument("select: unknown key '" + key + "'; the search space may name " + list);
  }
}

bool settingApplies(const PipelineSettings& s, const std::string& key) {
  const LearchSettings& learch = s.learner.learch;
  if (key.rfind("learch.", 0) == 0) return learch.enabled;
  if (key == "learner.costs" || key == "learner.calibrate_bias") return !learch.enabled;
  if (key == "learner.lambda" || key == "learner.passes") return !learch.enabled || learch.from_linear;
  return true;
}

SelectionResult selectSettings(const PipelineSettings& settings, const SelectionSpace& space,
                               const SelectionProgress& progress) {
  if (space.keys.empty()) throw InvalidArgument("select: the search space names no key");
  if (space.sweeps < 1) throw InvalidArgument("select: sweeps must be >= 1");
  std::map<std::string, std::string> current;
  for (const SelectionKey& key : space.keys) {
    if (current.count(key.name) != 0) throw InvalidArgument("select: " + key.name + " is given twice");
    if (key.values.empty()) throw InvalidArgument("select: " + key.name + ": list at least one value");
    for (const std::string& value : key.values) {
      PipelineSettings check = settings;
      applySetting(check, key.name, value);
    }
    current[key.name] = key.values.front();
  }
  const std::vector<std::string> areas = trainingAreas(settings);
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
    SelectionCandidate c;
    c.values = values;
    const auto start = std::chrono::steady_clock::now();
    std::vector<PlanScore> pooled;
    std::size_t a = 0;  // the fold running
    try {
      for (; a < areas.size(); ++a) {
        const int number = static_cast<int>(result.candidates.size()) + 1;
        StageCallback fold_progress;
        if (progress) {
          fold_progress = [&](const std::string& stage, long done, long total, const std::string&) {
            progress(number, values, areas[a], stage, done, total);
          };
        }
        const RunResult run = trainAndEvaluate(validationFold(candidate_settings, static_cast<int>(a)), fold_progress);
        std::vector<PlanScore> area_scores;
        for (const HoldoutResult& h : run.holdouts) {
          const std::vector<PlanScore>& learned = h.scores.at("learned");
          area_scores.insert(area_scores.end(), learned.begin(), learned.end());
        }
        c.area_cost_ratio[areas[a]] = summarise(area_scores).cost_ratio_mean;
        pooled.insert(pooled.end(), area_scores.begin(), area_scores.end());
      }
      const MethodSummary m = summarise(pooled);
      c.cost_ratio_mean = m.cost_ratio_mean;
      c.feasible_share = m.feasible_share;
      c.mhd_mean_px = m.mhd_mean_px;
    } catch (const Error& e) {
      // A candidate that cannot be trained (e.g. costs that overflow) is out of the running; the
      // search goes on with the others.
      c.failure = "without " + areas[a] + ": " + e.what();
      c.cost_ratio_mean = c.mhd_mean_px = std::numeric_limits<double>::infinity();
      c.feasible_share = 0.0;
    }
    c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.candidates.push_back(std::move(c));
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
