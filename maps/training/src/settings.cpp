#include <mmp/maps/training/settings.hpp>

#include <mmp/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace mmp {
namespace {

const LabelClass* findClass(const std::vector<LabelClass>& classes, const std::string& key) {
  for (const LabelClass& c : classes) {
    if (c.name == key || std::to_string(c.index) == key) return &c;
  }
  return nullptr;
}

bool sameScene(const SyntheticSceneParams& a, const SyntheticSceneParams& b) {
  return a.seed == b.seed && a.rows == b.rows && a.cols == b.cols && a.roads == b.roads &&
         a.vegetation_share == b.vegetation_share && a.water_share == b.water_share && a.buildings == b.buildings &&
         a.noise == b.noise;
}

}  // namespace

void validate(const PipelineSettings& settings) {
  const std::string at = settings.source.empty() ? "" : settings.source + ": ";
  const auto fail = [&](const std::string& key, const std::string& what) { throw ConfigError(at + key + ": " + what); };
  if (settings.train.empty()) fail("train", "the list is empty");
  for (const RegionSpec& h : settings.holdout) {
    for (const RegionSpec& t : settings.train) {
      std::error_code ignored;  // a file that cannot be compared is not the same file
      const bool same = (h.synthetic && t.synthetic && sameScene(*h.synthetic, *t.synthetic)) ||
                        (!h.pixels.empty() && h.pixels.data == t.pixels.data) ||
                        (h.pixels.empty() && t.pixels.empty() && !h.image.empty() && !t.image.empty() &&
                         std::filesystem::equivalent(h.image, t.image, ignored));
      if (same) fail(h.where, "the same image as " + t.where + "; never train on a holdout image");
      if (!h.area.empty() && h.area == t.area) {
        fail(h.where, "area '" + h.area + "' is in training too (" + t.where + "); a holdout area is held out whole");
      }
    }
  }
  if (settings.evaluation.training &&
      std::none_of(settings.train.begin(), settings.train.end(), [](const RegionSpec& t) { return t.hasLabels(); })) {
    fail("evaluation.training", "no training image has labels to score plans against; set it false or give labels");
  }
  if (!settings.class_context_px.empty() && !settings.class_scores) {
    fail("features.class_context_px", "context radii need the class-score layer; set class_scores: true or remove it");
  }
  if (settings.loss.impassable_factor != 1.0 && !settings.loss.by_class) {
    fail("loss.impassable_factor", "applies to the class-weighted loss only; set by_class: true or remove it");
  }
  for (const RegionSpec& t : settings.train) {
    if (t.hasLabels()) continue;
    if (settings.class_scores) fail("features.class_scores", "needs labels on every training image; " + t.where + " has only demonstrations");
    if (settings.loss.by_class) fail("loss.by_class", "needs labels on every training image; " + t.where + " has only demonstrations");
  }
  if (!settings.class_context_px.empty()) {
    for (std::size_t i = 0; i < settings.class_context_px.size(); ++i) {
      if (!(settings.class_context_px[i] >= settings.features.cell_size)) {
        fail("features.class_context_px[" + std::to_string(i) + "]",
             "a radius must be >= features.cell_size (" + std::to_string(settings.features.cell_size) + "), got " +
                 numberText(settings.class_context_px[i]));
      }
    }
  }
  if (settings.features.bins >= 2 && settings.features.complements) {
    fail("features.complements", "complements are redundant with bins (the bins of a feature sum to 1); set complements: false");
  }
  if (settings.learner.hypothesis == CostHypothesis::Learch) {
    try {
      settings.learner.learch.validate();
    } catch (const InvalidArgument& e) {
      throw ConfigError(at + "learner." + e.what());  // "learner.learch.step = 0 must be finite > 0"
    }
  }
  if (settings.learner.hypothesis == CostHypothesis::Network && settings.learner.objective == TrainingObjective::Likelihood) {
    const NetworkTrainingSettings& n = settings.learner.network;
    if (n.segmenter) fail("learner.objective", "maxent does not apply to a segmenter (network.segmenter: true trains on the labels alone)");
    if (n.smoothing_samples != 1) {
      fail("learner.network.smoothing_samples", "must be 1 with objective maxent (its expectation is already smooth)");
    }
  }
  if (settings.learner.hypothesis == CostHypothesis::Network) {
    try {
      settings.learner.network.validate();
    } catch (const InvalidArgument& e) {
      throw ConfigError(at + "learner." + e.what());  // "learner.network.step = 0 is out of range: ..."
    }
    const NetworkTrainingSettings& n = settings.learner.network;
    if (n.segmenter && n.from_linear) {
      fail("learner.network.start", "must be uniform for a segmenter: it is trained on the labels alone and costs 1 + a (1 - p), "
                                    "and a linear start would add the linear model's log-cost");
    }
    if (n.label_weight > 0.0 || n.segmenter) {
      for (const RegionSpec& r : settings.train) {
        if (!r.hasLabels()) {
          fail(n.segmenter ? "learner.network.segmenter" : "learner.network.label_weight", r.where + " has no labels");
        }
      }
    }
  }
}

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

std::string costLearnerName(const CostLearnerSettings& settings) {
  if (settings.hypothesis == CostHypothesis::Learch) return "learch";
  if (settings.hypothesis == CostHypothesis::Network) return "network";
  return describe(settings.kind);
}

void setCostLearner(CostLearnerSettings& settings, const std::string& name) {
  if (name == "learch") {
    settings.hypothesis = CostHypothesis::Learch;
  } else if (name == "network") {
    settings.hypothesis = CostHypothesis::Network;
  } else if (name == "online" || name == "batch") {
    settings.hypothesis = CostHypothesis::Linear;
    settings.kind = parseLearnerKind(name);
  } else {
    throw InvalidArgument("learner.kind: expected one of online, batch, learch, network, got '" + name + "'");
  }
}

CostLearnerSettings::CostLearnerSettings() {
  online.lambda = 1e-4;
  online.stop.max_iterations = 20;
  online.averaging = Averaging::LateWeighted;
  online.shuffle = true;
  online.threads = 0;
  batch.lambda = 1e-4;
  batch.steps = StepSchedule::constant(10.0);
  batch.stop.max_iterations = 100;
  batch.averaging = Averaging::LateWeighted;
  batch.threads = 0;
}

}  // namespace mmp
