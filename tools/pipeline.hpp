// The steps of `mmp train`, callable on their own (the tests run them on the synthetic scene):
//   1. loadTrainingRegions   images, labels, raw features; the feature scaling (and the class-score
//                            layer) is fitted on them and every region gets its FeatureMap and its
//                            demonstrations
//   2. trainPlanner          maximum margin planning through the path oracle with the configured
//                            learner, weights kept in the positive-cost set; then (optionally) the
//                            bias weight for plain planning is calibrated on the demonstrations
//   3. trainBaseline         the per-pixel classifier baseline (classifier_baseline.hpp)
//   4. evaluateHoldout       reference paths on a holdout image and every method's plans, scored
#pragma once

#include "classifier_baseline.hpp"
#include "evaluation.hpp"
#include "regions.hpp"
#include "train_config.hpp"

#include <mmp/learners/learner.hpp>
#include <mmp/maps/feature_stack.hpp>

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mmp::tools {

/// Progress reports: a stage name, done, total.
using StageCallback = std::function<void(const std::string& stage, long done, long total)>;

struct Training {
  FeatureStack stack;
  std::vector<Region> regions;
  double class_score_accuracy = 0.0;  ///< of the class-score layer's SVM on its drawn cells, if any
};

/// Steps 1: loads the training images, fits the feature scaling (and the class-score layer if
/// config.class_scores), maps them and adds demonstrations.
Training loadTrainingRegions(const TrainConfig& config, const StageCallback& progress = {});

struct TrainedPlanner {
  Eigen::VectorXd weights;
  std::vector<TraceRecord> trace;
  std::string learner;             ///< "batch" or "online"
  std::string info;                ///< why the learner stopped
  long epochs = 0;                 ///< batch iterations or online epochs run
  double objective = 0.0;          ///< batch: c(w) of eq. 4 at the learner's weights; online: NaN
  double bias_floor = 0.0;         ///< the bias weight the learner returned (>= loss scale + min_cost)
  double bias = 0.0;               ///< the bias weight in `weights` (calibrated, or the floor)
  double training_loss = 0.0;      ///< mean prediction loss per cell of demonstration, at `weights`
  std::array<double, 2> cost_range{};  ///< lowest and highest passable cell cost on the training images
  double train_seconds = 0.0;
  double epoch_seconds = 0.0;      ///< learner time / epochs (without the bias calibration)
  double calibration_seconds = 0.0;  ///< the bias calibration, included in train_seconds
  int examples = 0;
  /// One pass of loss-augmented oracle calls over the examples of the largest training image,
  /// timed after training with the learner's thread count: a batch epoch on that image alone.
  std::string largest_region;
  int largest_cells = 0;
  int largest_examples = 0;
  double largest_epoch_seconds = 0.0;
};

/*!
    Step 2.  threads overrides the batch learner's thread count when >= 0.  The callback sees every
    batch iteration or online round; returning false stops training early.

    Bias calibration (config.learner.calibrate_bias): the floor w_bias >= loss scale + min_cost is
    there only so that LOSS-AUGMENTED costs stay positive during training; plain planning needs
    w . f > 0 only.  When a demonstration cannot be explained exactly (noisy features, coarse
    labels), the hinge grows with the cost scale, so the learner keeps the feature weights small and
    the floored bias dominates every cell: a low-contrast map.  Afterwards the bias is chosen among
    floor * 2^-k (k = 0..7) by the lowest mean prediction loss L(y_pred) / |y_demo| on the training
    demonstrations (demonstrations only, no labels); ties keep the larger bias.
!*/
TrainedPlanner trainPlanner(const Training& training, const TrainConfig& config, int threads,
                            const TraceCallback& callback = {});

/// Step 3, or nothing if disabled or a training image has no labels.  Chooses the cost scale by the
/// mean cost ratio of the training demonstrations.
std::optional<LinearClassifier> trainBaseline(const Training& training, const TrainConfig& config, int threads);

/// The names of the compared methods, in report order.
const std::vector<std::string>& methodNames();  // learned, uniform, classifier

struct HoldoutResult {
  Region region;
  std::vector<std::vector<int>> references;
  std::map<std::string, std::vector<std::vector<int>>> plans;   ///< per method, per pair
  std::map<std::string, std::vector<PlanScore>> scores;         ///< per method, per pair
  double reference_preferred_share = 0.0;                       ///< mean over the reference paths
  std::vector<double> learned_costs;
};

/// Step 4 on holdout image `index` of the config.  The classifier is skipped when null.
HoldoutResult evaluateHoldout(const TrainConfig& config, int index, const FeatureStack& stack,
                              const Eigen::VectorXd& weights, const LinearClassifier* classifier,
                              const StageCallback& progress = {});

/// With loss.by_class, the loss factor of each cell of a labelled training region: how dear its class
/// is, (c - c_cheapest) / (c_dearest_passable - c_cheapest) / loss.impassable_factor, impassable 1.
/// Straying onto road then costs a follow_road demonstration no margin, straying into buildings or
/// water the full margin (with impassable_factor k > 1: buildings 1 / k of water's).
/// Null without loss.by_class.
std::shared_ptr<const std::vector<double>> classLossWeights(const Region& region, const TrainConfig& config);

/// The impassable cost used when scoring: the configured one, or 10 x the dearest passable class.
double impassableCost(const TrainConfig& config);

}  // namespace mmp::tools
