// The settings of `mmp train`, read from one YAML file and validated key by key.
//
//   data_root: ../../shared/data        # image, label and demonstration paths are relative to it
//   output_dir: out/follow_road         # relative to the working directory
//   classes:   [{name: Road, index: 2, colour: "#6EC1E4"}, ...]
//   behaviour: {name: follow_road, preferred: Road, costs: {Road: 1, Building: inf, ...}}
//   train:     [{image: .., labels: ..} | {image: .., demonstrations: paths.csv} | {synthetic: {seed: 1}}]
//   holdout:   [{image: .., labels: ..} | {synthetic: {seed: 9}}]
//   features, demonstrations, loss, learner, evaluation, classifier: see the configs/ files.
//
// Every map rejects unknown keys (naming the nearest valid one); numbers are range-checked with
// their key path.  A behaviour is data, not code: its costs are keyed by class name or index, and
// `inf` marks a class as impassable.
#pragma once

#include "config.hpp"

#include <mmp/learners/batch_subgradient.hpp>
#include <mmp/learners/online_greedy_projection.hpp>
#include <mmp/maps/feature_stack.hpp>
#include <mmp/maps/imagery.hpp>
#include <mmp/maps/synthetic_scene.hpp>
#include <mmp/planning/loss.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mmp::tools {

/// A behaviour: a cost per label class (+inf = impassable) and the class it prefers.
struct Behaviour {
  std::string name;
  std::vector<double> cost_by_index;  ///< 256 entries; NaN for undeclared indices
  int preferred = -1;                 ///< class index
  std::string preferred_name;
};

/// One image of the training or holdout set.
struct RegionSpec {
  std::string name;            ///< the image's file stem, or "synthetic-<seed>"
  std::string where;           ///< its key path in the config, for messages
  std::string image;           ///< resolved path ("" for synthetic)
  std::string labels;          ///< resolved path, "" if none
  std::string demonstrations;  ///< resolved path, "" if none
  std::optional<SyntheticSceneParams> synthetic;
  bool hasLabels() const { return synthetic.has_value() || !labels.empty(); }
};

struct DemonstrationSettings {
  int per_region = 12;              ///< generated demonstrations per training image with labels
  double min_separation_px = 200.0; ///< smallest start-goal distance
  std::uint64_t seed = 1;
};

struct LossSettings {
  LossShape shape = LossShape::Linear;
  double radius_px = 24.0;
  double scale = 1.0;
  bool length_weighting = true;
  bool by_class = false;  ///< scale the loss of each training cell by how dear its class is (classLossWeights)
  double impassable_factor = 1.0;  ///< with by_class: an impassable cell's factor over the dearest passable class's
};

struct LearnerSettings {
  std::string kind = "batch";  ///< "batch" or "online"
  double min_cost = 0.05;      ///< the smallest loss-augmented cell cost the projection allows
  /// After training, choose the bias weight for plain planning on the training demonstrations
  /// (see trainPlanner); off = keep the floored bias of training.
  bool calibrate_bias = true;
  /// Cell costs w . f (the paper's MMP, weights kept in the positive-cost set) or exp(w . f)
  /// (no projection needed; the bias calibration is skipped: a bias scales every cost alike).
  CostForm costs = CostForm::Linear;
  OnlineGreedyProjection::Params online;
  BatchSubgradient::Params batch;
};

struct EvaluationSettings {
  int pairs = 40;                   ///< start/goal pairs per holdout image
  double min_separation_px = 200.0;
  std::uint64_t seed = 7;
  /// Cost of an impassable cell when scoring a plan that crosses one (NaN = 10 x the dearest
  /// passable class); reference paths never do.
  double impassable_cost = std::numeric_limits<double>::quiet_NaN();
  int panel_paths = 4;              ///< pairs drawn on each panel
  int panel_height = 480;           ///< pixels
  std::string panel_format = "png"; ///< "png" or "jpg" (smaller, lossy)
};

struct ClassifierSettings {
  bool enabled = true;
  double lambda = 1e-3;
  long iterations = 150;
  double step_size = 1.0;
  int samples = 20000;                             ///< training cells drawn (seeded) from the training labels
  std::uint64_t seed = 3;
  /// cost = 1 + a (1 - sigmoid(score)); a is chosen among these on the training images
  std::vector<double> cost_scales = {1, 3, 10, 30, 100};
};

struct TrainConfig {
  std::string file;
  std::string data_root;
  std::string output_dir;
  std::vector<LabelClass> classes;
  Behaviour behaviour;
  std::vector<RegionSpec> train, holdout;
  FeatureSettings features;
  /// features.class_scores: append the class-score layer (FeatureStack::withClassScores), its
  /// multiclass SVM trained on the training labels with the classifier settings
  bool class_scores = false;
  /// features.class_context_px: context radii of the class-score layer (pixels, >= cell_size)
  std::vector<double> class_context_px;
  DemonstrationSettings demonstrations;
  LossSettings loss;
  LearnerSettings learner;
  EvaluationSettings evaluation;
  ClassifierSettings classifier;

  /// The behaviour's cost of a class index (NaN if undeclared).
  double classCost(int index) const { return behaviour.cost_by_index[static_cast<std::size_t>(index)]; }
};

/// Reads and validates a train config.  data_root_flag / output_flag override the file when not
/// empty ($MMP_DATA_ROOT too, see resolveDataRoot).  Throws mmp::ConfigError naming the file, the key
/// path and what is allowed.
TrainConfig loadTrainConfig(const std::string& path, const std::string& data_root_flag = "",
                            const std::string& output_flag = "");

/// Parses a behaviour map {name, preferred, costs} against declared classes (exposed for tests).
Behaviour parseBehaviour(const ConfigNode& node, const std::vector<LabelClass>& classes);

}  // namespace mmp::tools
