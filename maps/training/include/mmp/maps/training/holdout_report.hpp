// The holdout report: every method's scores on holdout images pooled into the figures `mmp train`
// prints and writes (the table of methods, the learned map against each baseline with its paired
// interval, the share of path length on each class, the pair records of pairs.csv), and
// leave-one-area-out validation, which scores each training area by the model trained on the others
// and pools them the same way.  `select:` (settings_selection.hpp) and `mmp train --validate` use the
// same validation.
//
//   const RunResult run = trainAndEvaluate(settings);
//   const HoldoutReport report = reportHoldouts(run.holdouts, settings.classes);
//   report.summary(Method::Learned).cost_ratio_mean;
//
//   const ValidationReport v = validateByArea(settings);   // the holdout images are not read
//   v.pooled.summary(Method::Learned);
#pragma once

#include <mmp/maps/training/pipeline.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace mmp {

/// The scores of holdout images pooled: add images (or other reports) in order, then read the figures.
struct HoldoutReport {
  std::map<Method, std::vector<PlanScore>> scores;  ///< per method, every pair of every image in order
  std::vector<PairRecord> records;                 ///< one per method and pair (pairs.csv)
  std::vector<std::string> regions;                ///< the images, in order
  std::map<std::string, std::map<Method, MethodSummary>> region_summaries;  ///< per image, per method
  std::map<std::string, double> region_reference_preferred_share;           ///< per image
  std::map<std::string, double> learned_lengths, reference_lengths;          ///< path length per class name
  /// Per class name: the sum of the learned map's log-costs over the images' cells of that class,
  /// and their count (cells the model blocks left out).
  std::map<std::string, std::pair<double, long>> learned_log_costs;
  int pairs = 0;                          ///< start/goal pairs (reference paths)
  double reference_preferred_sum = 0.0;   ///< sum over the reference paths of their preferred share

  /// Adds one holdout image's scores; `classes` name the lengths per class.
  void add(const HoldoutResult& holdout, const std::vector<LabelClass>& classes);
  /// Adds every image of another report (pooling folds).
  void add(const HoldoutReport& other);

  /// The methods scored, in report order (methods()).
  std::vector<Method> methodsScored() const;
  /// requires: method scored.
  MethodSummary summary(Method method) const;
  /// The learned map against `baseline` on the same pairs (95 % paired-bootstrap interval of how much
  /// lower the learned mean cost ratio is).  requires: both scored.
  PairedComparison learnedVersus(Method baseline) const;
  /// The share of path length on each class (0 for every class when there is no length).
  static std::map<std::string, double> shares(const std::map<std::string, double>& lengths,
                                             const std::vector<LabelClass>& classes);
  /// Per class with cells: the geometric mean of the learned costs of its cells over that of the
  /// preferred class's (`preferred` names it; classes without cells, or all without preferred
  /// cells, are left out): what the learned map makes of each class, 1 = as cheap as the preferred.
  std::map<std::string, double> learnedClassCosts(const std::string& preferred) const;
  /// Mean preferred share of the reference paths (0 without pairs).
  double referencePreferredShare() const;
};

/// Pools the holdout images of one run.
HoldoutReport reportHoldouts(const std::vector<HoldoutResult>& holdouts, const std::vector<LabelClass>& classes);

/// One left-out training area of a validation.
struct ValidationFold {
  std::string area;
  int images = 0;
  HoldoutReport report;
  TrainingReport training;
};

struct ValidationReport {
  std::vector<ValidationFold> folds;  ///< in the order of trainingAreas()
  HoldoutReport pooled;               ///< every fold's images
};

/// Called with the fold running (from 0), its area and the fold's pipeline progress.
using FoldProgress = std::function<void(int fold, const std::string& area, const std::string& stage, long done,
                                        long total, const std::string& detail)>;

/// Thrown by validateByArea when a fold's training or scoring fails: the left-out area and the cause.
class ValidationFailure : public Error {
 public:
  ValidationFailure(std::string area, const std::string& cause)
      : Error("without " + area + ": " + cause), area_(std::move(area)) {}
  const std::string& area() const { return area_; }

 private:
  std::string area_;
};

/// What a validation fold needs that does not depend on the learner: the training data of the other
/// areas and the left-out area's images mapped with its features, with their reference paths.
/// Settings that differ in learner.* and loss.* only share it.
struct FoldData {
  TrainingData training;
  std::vector<HoldoutImage> images;
};

/// Loads the data of fold `index` (validationFold(settings, index)); throws what validationFold,
/// loadTrainingData and loadHoldout throw.
FoldData loadFoldData(const PipelineSettings& settings, int index, const StageCallback& progress = {});

/*!
    requires: settings whose training images show at least two areas, all with labels;
              0 <= index < trainingAreas(settings).size()
    ensures: trains on every area but trainingAreas()[index] and scores that area's images as
             holdout images (validationFold); the holdout images of the settings are never read.
             `data`, if not null, is loadFoldData(s, index) of settings s that differ from these in
             learner.* and loss.* only; it is only read (several folds may share it at once).
             Throws mmp::InvalidArgument for settings validationFold refuses, and ValidationFailure
             naming the area when loading, training or scoring throws mmp::Error.
!*/
ValidationFold validateFold(const PipelineSettings& settings, int index, const FoldProgress& progress = {},
                            const FoldData* data = nullptr);

/// One variant's fold from validateFoldVariants: scored, or why not.
struct VariantFold {
  ValidationFold fold;
  std::string failure;   ///< the cause (the area is fold.area), empty if scored
  double seconds = 0.0;  ///< wall time: the shared training (counted on the first variant) and its scoring
};

/*!
    requires: variants not empty, differing only in keys that act after training (SettingKey::
              after_training, setting_keys.hpp); the rest as validateFold's
    ensures: validateFold for each variant, training once (trainLearned with variants[0]) and
             scoring each variant's copy of the model after applyAfterTraining; the results equal
             validateFold's.  A variant whose applyAfterTraining or scoring throws mmp::Error gets its
             failure; throws ValidationFailure when loading or training fails (every variant would).
!*/
std::vector<VariantFold> validateFoldVariants(const std::vector<PipelineSettings>& variants, int index,
                                              const FoldProgress& progress = {}, const FoldData* data = nullptr);

/*!
    requires: settings whose training images show at least two areas, all with labels
    ensures: for each area of the training images (trainingAreas), trains on the others and scores on
             its images as on holdout images (validationFold), in order; the holdout images of the
             settings are never read.  Throws mmp::InvalidArgument before any training for settings
             validationFold refuses, and ValidationFailure naming the fold's area when a fold's
             training or scoring throws mmp::Error.
!*/
ValidationReport validateByArea(const PipelineSettings& settings, const FoldProgress& progress = {});

}  // namespace mmp
