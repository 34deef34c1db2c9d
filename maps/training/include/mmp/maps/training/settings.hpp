// The settings of the cost-map pipeline (pipeline.hpp): plain structs with documented defaults.
// tools/ fills them from a YAML file (`mmp train CONFIG.yaml`, configs/*.yaml); a program fills them
// directly:
//
//   PipelineSettings s;                            // classes: the synthetic scene's by default
//   s.behaviour = Behaviour::make("follow_road", s.classes,
//                                 {{"Road", 1}, {"Land", 4}, {"Vegetation", 6}, {"Building", inf}, {"Water", inf}}, "Road");
//   s.train = {RegionSpec::scene(1), RegionSpec::scene(2)};
//   s.holdout = {RegionSpec::scene(9)};
//
// A behaviour is data, not code: a cost per label class (+inf = impassable) and the class it prefers.
#pragma once

#include <mmp/core/feature_map.hpp>
#include <mmp/learners/learner_settings.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/feature_stack.hpp>
#include <mmp/maps/imagery.hpp>
#include <mmp/maps/path_files.hpp>
#include <mmp/maps/training/learch.hpp>
#include <mmp/maps/training/network_training.hpp>
#include <mmp/maps/synthetic_scene.hpp>
#include <mmp/planning/demonstrations.hpp>
#include <mmp/planning/loss.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace mmp {

/// A behaviour: a cost per label class (+inf = impassable) and the class it prefers.
struct Behaviour {
  std::string name;
  std::vector<double> cost_by_index = std::vector<double>(256, std::numeric_limits<double>::quiet_NaN());  ///< NaN: undeclared
  int preferred = -1;                 ///< class index
  std::string preferred_name;

  /// costs: by class name or index (as text), +inf = impassable.  Throws mmp::InvalidArgument naming
  /// the class if one is unknown, given no cost, a cost that is not > 0, or if `preferred` is
  /// unknown or impassable.
  static Behaviour make(const std::string& name, const std::vector<LabelClass>& classes,
                        const std::vector<std::pair<std::string, double>>& costs, const std::string& preferred);
};

/// One image of the training or holdout set.
struct RegionSpec {
  std::string name;            ///< the image's file stem, or "synthetic-<seed>"
  std::string where;           ///< where it was declared, for messages (e.g. "train[0]")
  /// The area the image shows (e.g. "tile3": one city district cut into parts); images of one area
  /// are held out together and left out together in validation.  "" = an area of its own.
  std::string area;
  std::string image;           ///< image file ("" for synthetic)
  FrameSettings frame;         ///< the image's world frame if the file has no georeference
  std::string labels;          ///< label mask file, "" if none
  /// An image a program holds in memory (CV_8UC3 BGR, as loadImage gives), used instead of the file
  /// `image` when not empty (the Python module's arrays); `name` and `where` name it in messages.
  cv::Mat pixels;
  /// Its label mask in memory (CV_8UC1 class indices, pixels' size), instead of the file `labels`.
  cv::Mat label_pixels;
  std::string demonstrations_file;        ///< where `demonstrations` came from, for messages
  std::vector<PixelPath> demonstrations;  ///< demonstrated paths; none: generated from the labels
  /// A teach image's avoid strokes (`avoid:` of mmp adapt's config): every cell a stroke crosses is
  /// ground that must stay dear, one avoid mark for the image (CostModelTeacher::avoid).
  std::string avoid_file;
  std::vector<PixelPath> avoid;
  /// Its prefer strokes (`prefer:`): ground that may be cheap, one prefer mark (CostModelTeacher::prefer).
  std::string prefer_file;
  std::vector<PixelPath> prefer;
  std::optional<SyntheticSceneParams> synthetic;
  bool hasLabels() const { return synthetic.has_value() || !labels.empty() || !label_pixels.empty(); }
  /// area, or the image's name if it has none.
  const std::string& areaName() const { return area.empty() ? name : area; }
  bool hasDemonstrations() const { return !demonstrations_file.empty() || !demonstrations.empty(); }

  /// A generated scene (makeSyntheticScene) with seed `seed` and default parameters.
  static RegionSpec scene(std::uint64_t seed);
};

struct DemonstrationSettings {
  int per_region = 12;              ///< generated demonstrations per training image with labels
  double min_separation_px = 200.0; ///< smallest start-goal distance
  std::uint64_t seed = 1;
  /// Imperfect generated demonstrations (planning/demonstrations.hpp), between the same start/goal
  /// pairs as the exact ones; the holdout's reference paths stay optimal.
  DemonstrationNoise noise;
};

struct LossSettings {
  LossShape shape = LossShape::Linear;
  double radius_px = 24.0;
  double scale = 1.0;
  bool length_weighting = true;
  bool by_class = false;  ///< scale the loss of each training cell by how dear its class is (classLossWeights)
  double impassable_factor = 1.0;  ///< with by_class: an impassable cell's factor over the dearest passable class's
};

/// The learner of the cost map (batch subgradient by default, or LEARCH) and how costs are formed.
struct CostLearnerSettings : LearnerSettings {
  /// The defaults of cost-map training: batch lambda 1e-4, constant step 10, 100 iterations, all
  /// cores; online lambda 1e-4, 20 shuffled epochs; both late-weighted averaging.
  CostLearnerSettings();

  double min_cost = 0.05;      ///< the smallest loss-augmented cell cost the projection allows
  /// After training, choose the bias weight for plain planning on the training demonstrations
  /// (see train()); off = keep the floored bias of training.
  bool calibrate_bias = true;
  /// After training, every cost of the model is raised to this power (CostModel::costExponent): the
  /// same order of cells, more contrast above 1.  In [CostModel::kMinExponent, kMaxExponent].
  double cost_exponent = 1.0;
  /// Cell costs w . f (the paper's MMP, weights kept in the positive-cost set) or exp(w . f)
  /// (no projection needed; the bias calibration is skipped: a bias scales every cost alike).
  CostForm costs = CostForm::Linear;
  CostHypothesis hypothesis = CostHypothesis::Linear;
  /// objective maxent: the soft planner's region margin (maxent_planner.hpp, THE REGION): only the
  /// cells on a path within this much of the cheapest's cost take part; +inf = the whole image.
  double maxent_margin = std::numeric_limits<double>::infinity();
  /// LEARCH's settings (learch.hpp), with hypothesis Learch: costs exp(w0 . f + boosted trees).
  LearchSettings learch;
  /// The network's settings (network_training.hpp), with hypothesis Network: costs exp(w0 . f + net(image)).
  NetworkTrainingSettings network;
};

/// "online", "batch", "learch" or "network": the cost learner as configs name it (learner.kind).
std::string costLearnerName(const CostLearnerSettings& settings);
/// Sets the cost learner from its name: online or batch (hypothesis Linear, that LearnerKind) or learch
/// (hypothesis Learch; the LearnerKind stays, as LEARCH's linear start).  Throws mmp::InvalidArgument
/// naming the valid names.
void setCostLearner(CostLearnerSettings& settings, const std::string& name);

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
  /// Also score the labelled training images the same way (new seeded pairs on the images the model
  /// was trained on): how well it fits its own ground, beside how it does on new ground.
  bool training = false;
  /// Also score the class_mean map (evaluation.hpp): the learned costs averaged over each true class,
  /// a diagnostic of how much of the excess cost is misrecognised cells rather than the classes' costs.
  bool class_mean = false;
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

// The settings of the commands beside `mmp train` -- teaching (`mmp adapt`, the page), suggestions
// (`mmp suggest`) and the page's bounds (`mmp serve`) -- are members of PipelineSettings too, so that
// the one settings table (setting_keys.hpp) holds every setting with one range: their rows (adapt.*,
// suggest.*, serve.*) check the configs, flags and Python keywords, and validate() below checks a
// program's values against the same rows.  Training ignores them.

/// What a linear model's prior keeps (adapt.prior): Weights, lambda/2 |w - w0|^2; Costs, the mean
/// squared change of log-cost over the taught images' cells, lambda/2 (w - w0)^T M (w - w0)
/// (adaptation.hpp says which M).
enum class AdaptationPrior { Weights, Costs };
std::string describe(AdaptationPrior prior);  ///< "weights", "costs"

/// How a saved model adapts to demonstrations on a new site (adaptation.hpp; the adapt.* keys).
struct AdaptationSettings {
  /// Linear models: the prior's strength lambda in lambda/2 |w - w0|^2; larger keeps the adapted model
  /// closer to the parent.  The default was chosen on training
  /// areas each left out of the model's training, by tools/scripts/adapt_selection.py --left-out
  /// (docs/teaching.md).
  double lambda = 10.0;
  /// Linear models: what the prior keeps close to the parent's (the weights, or the site's costs).
  AdaptationPrior prior = AdaptationPrior::Weights;
  /// Linear models: the most passes of oracle calls over the demonstrations the exact solver may take
  /// (it stops at the optimum, in far fewer; a step that runs out says so).
  int epochs = 100;
  /// LEARCH models: trees added (learch.rounds; chosen as lambda is), their step (eta_t = step / sqrt(t))
  /// and depth.
  int learch_rounds = 2;
  double learch_step = 0.5;
  int learch_depth = 3;
  /// Network models: the proximal term's strength (larger: closer to the parent), Adam's step, the steps
  /// (epochs) and whether only the head (the last 1 x 1 layer) moves.  Chosen on the training areas
  /// (docs/teaching.md, "How a model adapts").
  double network_lambda = 100.0;
  double network_step = 1e-3;
  int network_epochs = 10;
  bool network_head_only = false;
  /// The demonstrations' loss (radius in pixels, scale, length weighting), as in training.
  LossSettings loss;
  /// The smallest loss-augmented cell cost the linear projection allows (learner.min_cost).
  double min_cost = 0.05;
  /// Oracle calls at once (0: all cores); the result does not depend on it.
  int threads = 1;
  /// A whole teaching run (adaptAndReport, adaptation_run.hpp; a teacher ignores both): score each
  /// demonstration held out (the model taught on the others), with >= 2 demonstrations; and, for linear
  /// models, more than one value in `lambdas`: lambda chosen among them by the held-out loss of the
  /// demonstrations (each taught on the others; the lowest mean, ties to the larger lambda).
  bool held_out = true;
  std::vector<double> lambdas;
  /// Throws mmp::InvalidArgument naming the first setting (as "adapt.lambda") outside its row's range.
  void validate() const;
};

/// How `mmp suggest` values a start/goal pair (suggestion.hpp): "change", the expected change of the
/// image's costs a demonstration would make, or "committee", how far perturbed plans stray.
enum class SuggestionRule { Change, Committee };
std::string describe(SuggestionRule rule);  ///< "change", "committee"
/// Throws mmp::InvalidArgument naming the rules if `name` is none of them.
SuggestionRule parseSuggestionRule(const std::string& name);

/// Which demonstration to ask for next (`mmp suggest`; the suggest.* keys but n, candidates and
/// min_separation_px, SuggestionSearch's).
struct SuggestionSettings {
  /// How a pair is valued (suggestion.hpp).  Change was chosen on the training areas (bench_adapt
  /// --areas train, docs/teaching.md).
  SuggestionRule rule = SuggestionRule::Change;
  int members = 8;        ///< perturbed copies of the model
  double spread = 0.3;    ///< each weight (and tree step) times exp(spread N(0, 1))
  std::uint64_t seed = 1;
  int threads = 0;        ///< plans at once (0: all cores); the values do not depend on it
  /// Change: cells of the image (a regular sample of its passable cells) over which the cost change is
  /// measured.
  int sample_cells = 4000;
  /// Throws mmp::InvalidArgument naming the first setting (as "suggest.rule") outside its row's range.
  void validate() const;
};

/// The search of suggestDemonstrations (suggest.n, suggest.candidates, suggest.min_separation_px).
struct SuggestionSearch {
  int n = 5;                          ///< pairs wanted
  /// Seeded random candidate pairs valued: the page's 40 answer in about 2 s on a 4 Mpx image on 2 cores
  /// (200 take 5 s; docs/teaching.md).
  int candidates = 40;
  double min_separation_px = 250.0;   ///< between a pair's ends; chosen pairs' ends at least half of it apart
  /// Throws mmp::InvalidArgument naming the first setting (as "suggest.n") outside its row's range.
  void validate() const;
};

/// The teaching page's bounds (`mmp serve`, tools/serve; the serve.* keys): what one request or image
/// may ask of the server.
struct PageLimits {
  /// Images larger than this are refused at start (a 60 Mpx image fits; memory grows with it).
  long long max_image_pixels = 150'000'000;
  std::size_t max_body_bytes = 1 << 20;  ///< request bodies (the HTTP layer refuses longer ones, 413)
  int max_picture_px = 2048;             ///< the long side of any picture sent (overview or region)
  int max_points = 20000;                ///< points of a drawn demonstration
  double max_ompl_budget = 10.0;         ///< seconds an OMPL planner may be given
  /// Throws mmp::InvalidArgument naming the first bound (as "serve.max_points") outside its row's range.
  void validate() const;
};

struct PipelineSettings {
  std::string source;          ///< where the settings came from (a config file), prefixed to messages
  std::vector<LabelClass> classes = syntheticClasses();
  Behaviour behaviour;
  std::vector<RegionSpec> train, holdout;
  FeatureSettings features;
  /// Append the class-score layer (FeatureStack::withClassScores), its multiclass SVM trained on
  /// the training labels with the classifier settings.
  bool class_scores = false;
  /// Context radii of the class-score layer (pixels, >= cell_size).
  std::vector<double> class_context_px;
  DemonstrationSettings demonstrations;
  LossSettings loss;
  CostLearnerSettings learner;
  EvaluationSettings evaluation;
  ClassifierSettings classifier;
  /// Threads for the batch and online learners' oracle calls and the classifiers (-1: the learners' settings,
  /// 0: all cores).  The results do not depend on it.
  int threads = -1;
  /// The other commands' settings (above): `mmp adapt`, `mmp suggest`, `mmp serve`.
  AdaptationSettings adapt;
  SuggestionSettings suggest;
  SuggestionSearch suggestion_search;
  PageLimits page;

  /// The behaviour's cost of a class index (NaN if undeclared).
  double classCost(int index) const { return behaviour.cost_by_index[static_cast<std::size_t>(index)]; }
};

/// Throws mmp::ConfigError, naming the setting (as "loss.impassable_factor") after settings.source,
/// if the settings do not fit together: no training image; a holdout image that is also a training
/// image, or of an area (RegionSpec::area) that training uses; class_context_px without class_scores;
/// impassable_factor != 1 without loss.by_class; the class-score layer or the class-weighted loss with a
/// training image that has no labels; LEARCH settings out of range (as "learner.learch.step").
/// loadTrainingData (and so trainAndEvaluate) calls it first.
void validate(const PipelineSettings& settings);

}  // namespace mmp
