// The cost-map pipeline as a library: images with label masks or demonstrations -> a trained
// CostModel, the baselines, and scores on holdout images.  `mmp train` is one caller of it.
//
//   PipelineSettings settings = ...;                          // settings.hpp
//   RunResult run = trainAndEvaluate(settings);               // all the steps below
//   run.trained.model.save("model.mmp");
//   summarise(run.holdouts[0].scores.at(Method::Learned)).cost_ratio_mean;
//   reportHoldouts(run.holdouts, settings.classes);           // holdout_report.hpp: the figures pooled
//
// The steps, callable on their own:
//   1. loadTrainingData   images, labels, raw features; the feature scaling (and the class-score
//                         layer) is fitted on them and every region gets its FeatureMap and its
//                         demonstrations (from the settings, or generated on the labels)
//   2. train              maximum margin planning through the path oracle with the chosen learner,
//                         weights kept in the positive-cost set; then (optionally) the bias weight
//                         for plain planning is calibrated on the demonstrations.  Or LEARCH
//                         (settings.learner.hypothesis, learch.hpp): boosted trees on the log-cost
//   3. trainBaseline      the per-pixel classifier baseline (classifier_baseline.hpp)
//   4. evaluateHoldout    reference paths on a holdout image and every method's plans, scored
// validationFold() makes the settings that leave one training area out, for choosing settings
// without the holdout images.
//
// A run's result depends only on its settings and seeds: the same weights, bit for bit, from run to
// run and with any thread count.  Progress goes to the StageCallback; nothing is printed.
#pragma once

#include <mmp/maps/training/classifier_baseline.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/training/evaluation.hpp>
#include <mmp/maps/training/settings.hpp>
#include <mmp/maps/training/regions.hpp>
#include <mmp/planning/path_example.hpp>

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mmp {

/// Progress reports: a stage name, done, total, and a detail such as the objective reached.
using StageCallback =
    std::function<void(const std::string& stage, long done, long total, const std::string& detail)>;

struct TrainingData {
  FeatureStack stack;
  std::vector<Region> regions;
  double class_score_accuracy = 0.0;  ///< of the class-score layer's SVM on its drawn cells, if any
};

/// Step 1: loads the training images, fits the feature scaling (and the class-score layer if
/// settings.class_scores), maps them and adds demonstrations.
TrainingData loadTrainingData(const PipelineSettings& settings, const StageCallback& progress = {});

/// What training did, with its timings.
struct TrainingReport {
  std::vector<TraceRecord> trace;
  LearnerKind learner = LearnerKind::Batch;
  /// Learch: trained by LEARCH (learner is then the kind of its linear start, if any): the trace holds
  /// one record per model evaluated (iteration = its trees, value = the LEARCH objective), passes = trees.
  CostHypothesis hypothesis = CostHypothesis::Linear;
  std::string trace_value;         ///< what the trace's values are (Learner::traceValueName)
  /// Network training with early stopping: per trace record, the validation area's loss (else empty).
  std::vector<double> validation;
  std::string validation_value;    ///< what those values are
  std::string pass_name;           ///< "iteration" or "epoch"
  std::string info;                ///< why the learner stopped
  long passes = 0;                 ///< batch iterations or online epochs run
  double objective = 0.0;          ///< batch: c(w) of eq. 4 at the learner's weights; online: NaN
  double bias_floor = 0.0;         ///< the bias weight the learner returned (>= loss scale + min_cost)
  double bias = 0.0;               ///< the model's bias weight (calibrated, or the floor)
  double training_loss = 0.0;      ///< mean prediction loss per cell of demonstration, at the model's weights
  std::array<double, 2> cost_range{};  ///< lowest and highest passable cell cost on the training images
  double train_seconds = 0.0;
  double epoch_seconds = 0.0;      ///< learner time / passes (without the bias calibration)
  double calibration_seconds = 0.0;  ///< the bias calibration, included in train_seconds
  int examples = 0;
  /// One pass of loss-augmented oracle calls over the examples of the largest training image,
  /// timed after training with the learner's thread count: a batch epoch on that image alone.
  std::string largest_region;
  int largest_cells = 0;
  int largest_examples = 0;
  double largest_epoch_seconds = 0.0;
};

struct TrainedCostModel {
  CostModel model;
  TrainingReport report;
};

/*!
    Step 2.  The model's info records the behaviour, learner, bias floor and training images.

    Bias calibration (settings.learner.calibrate_bias): the floor w_bias >= loss scale + min_cost is
    there only so that LOSS-AUGMENTED costs stay positive during training; plain planning needs
    w . f > 0 only.  When a demonstration cannot be explained exactly (noisy features, coarse
    labels), the hinge grows with the cost scale, so the learner keeps the feature weights small and
    the floored bias dominates every cell: a low-contrast map.  Afterwards the bias is chosen among
    floor * 2^-k (k = 0..7) by the lowest mean prediction loss L(y_pred) / |y_demo| on the training
    demonstrations (demonstrations only, no labels); ties keep the larger bias.

    LEARCH (settings.learner.hypothesis Learch): learch() on the same examples, from uniform costs or
    from the weights this function gives with learch off and exponential costs (learch.from_linear);
    the model holds the trees.  A LEARCH run that stops early to keep its costs bounded returns the
    model of its last good round; report.info says so.

    Cost exponent (settings.learner.cost_exponent, default 1): the trained model's costs are raised to
    it (CostModel::setCostExponent) and report.cost_range with them; training itself is unchanged.
    Throws mmp::Error naming the setting if that spreads the training cells' costs outside CostLimits.
!*/
TrainedCostModel train(const TrainingData& data, const PipelineSettings& settings, const StageCallback& progress = {});

/// train() in its two parts: trainLearned gives the costs as learned (settings.learner.cost_exponent
/// not applied), applyAfterTraining then applies what acts on the trained model alone (the keys
/// marked after_training, setting_keys.hpp: the cost exponent).  One trained model can so be scored
/// under several exponents: apply each to its own copy of trainLearned's result.
TrainedCostModel trainLearned(const TrainingData& data, const PipelineSettings& settings, const StageCallback& progress = {});
void applyAfterTraining(TrainedCostModel& trained, const PipelineSettings& settings);

/// Step 3, or nothing if disabled or a training image has no labels.  Chooses the cost scale by the
/// mean cost ratio of the training demonstrations.
std::optional<LinearClassifier> trainBaseline(const TrainingData& data, const PipelineSettings& settings);

struct HoldoutResult {
  Region region;                   ///< without its raw feature values and feature map (released after scoring)
  std::vector<std::vector<int>> references;
  std::map<Method, std::vector<std::vector<int>>> plans;   ///< per method, per pair
  std::map<Method, std::vector<PlanScore>> scores;         ///< per method, per pair
  double reference_preferred_share = 0.0;                       ///< mean over the reference paths
  std::vector<double> learned_costs;
};

/// A holdout image loaded, mapped and given its reference paths: what scoring a model on it needs,
/// whatever the model's weights (the settings selection scores many models of one fold's features on it).
struct HoldoutImage {
  Region region;                              ///< with its feature map, without its raw feature values
  std::vector<std::vector<int>> references;   ///< the seeded start/goal pairs' reference paths
};

/// Step 4a: loads holdout image `index` of the settings, maps it with `features` and plans its
/// reference paths.  Throws mmp::DataError when no reference path can be planned.
HoldoutImage loadHoldout(const PipelineSettings& settings, int index, const FeatureStack& features);

/// Step 4b: every method's plans on the image, scored (the classifier skipped when null).
/// requires: the image mapped with model.features().
HoldoutResult scoreHoldout(const PipelineSettings& settings, const HoldoutImage& image, const CostModel& model,
                           const LinearClassifier* classifier, const StageCallback& progress = {});

/// Step 4 on holdout image `index` of the settings (4a then 4b).  The classifier is skipped when null.
HoldoutResult evaluateHoldout(const PipelineSettings& settings, int index, const CostModel& model,
                              const LinearClassifier* classifier, const StageCallback& progress = {});

/// Steps 1 to 4: every holdout image of the settings.
struct RunResult {
  TrainingData training;
  TrainedCostModel trained;
  std::optional<LinearClassifier> classifier;
  std::vector<HoldoutResult> holdouts;
};
RunResult trainAndEvaluate(const PipelineSettings& settings, const StageCallback& progress = {});

/// The areas of the training images (RegionSpec::areaName), in the order they first appear.
std::vector<std::string> trainingAreas(const PipelineSettings& settings);

/// The settings that train on the training images of every area but trainingAreas()[index] and score
/// on that area's images (the holdout images unused).  Throws mmp::InvalidArgument if the training
/// images show fewer than two areas or one has no labels to score against.
PipelineSettings validationFold(const PipelineSettings& settings, int index);

/// With loss.by_class, the loss factor of each cell of a labelled training region: how dear its class
/// is, (c - c_cheapest) / (c_dearest_passable - c_cheapest) / loss.impassable_factor, impassable 1.
/// Straying onto road then costs a follow_road demonstration no margin, straying into buildings or
/// water the full margin (with impassable_factor k > 1: buildings 1 / k of water's).
/// Null without loss.by_class.
std::shared_ptr<const std::vector<double>> classLossWeights(const Region& region, const PipelineSettings& settings);
/// The PathExample parameters train() gives every demonstration (before classLossWeights).
PathExample::Params exampleParams(const PipelineSettings& settings);

/// The impassable cost used when scoring: the configured one, or 10 x the dearest passable class.
double impassableCost(const PipelineSettings& settings);

}  // namespace mmp
