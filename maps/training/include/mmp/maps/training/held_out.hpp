// Scoring a model by demonstrations it was not taught, for users without labels: the model (trained or
// adapted without a demonstration) plans between that demonstration's ends, and the plan is compared
// with it.  `mmp adapt` scores each demonstration by the model taught on the others (against the
// parent); `mmp train` without holdout images scores folds of its demonstrations by the model trained
// on the rest (against uniform costs).
//
//   const HeldOutPathReport r = crossValidateDemonstrations(settings, 5);   // training from paths alone
//   r.model.loss;   r.baseline.loss;   r.gain;                          // lower loss: closer plans
#pragma once

#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/training/evaluation.hpp>
#include <mmp/maps/training/pipeline.hpp>
#include <mmp/planning/path_example.hpp>

#include <vector>

namespace mmp {

/// How a model plans between the ends of demonstrations it was not taught: means over them.
struct HeldOutFit {
  double loss = 0.0;       ///< prediction loss per cell of demonstration of the plan (PathExample::predictionLoss)
  double mhd_px = 0.0;     ///< modified Hausdorff distance of the plan to the demonstration
  /// The demonstration's cost under the model over its plan's: >= 1, 1 when the model finds the
  /// demonstration as good as anything it would plan.
  double cost_ratio = 1.0;
  int unplanned = 0;       ///< demonstrations whose ends the model could not join
};

struct HeldOutPathReport {
  int demonstrations = 0;          ///< scored (0: none scored)
  HeldOutFit baseline, model;      ///< adapt: the parent and the adapted model; train: uniform costs and the learned model
  std::vector<double> baseline_loss, model_loss;  ///< per demonstration, in order (NaN: unplanned)
  /// The baseline's mean loss minus the model's, with a 95 % paired-bootstrap interval (pairs both planned).
  PairedComparison gain;
  /// The same for the plans' distance to the demonstrations and for the cost ratios.
  PairedComparison mhd_gain, ratio_gain;
};

/// One held-out demonstration's plan under `grid` (the costs of `example`'s map), against it.
struct HeldOutPlan {
  bool planned = false;
  double loss = 0.0, mhd_px = 0.0, cost_ratio = 1.0;
};
HeldOutPlan scoreHeldOut(const CostGrid& grid, const PathExample& example, int cell_size);

/// Accumulates HeldOutPlans into a report: add(baseline, model) per demonstration, then finish().
class HeldOutTally {
 public:
  void add(const HeldOutPlan& baseline, const HeldOutPlan& model);
  HeldOutPathReport finish();

 private:
  HeldOutPathReport report_;
  std::vector<HeldOutPlan> baseline_, model_;  ///< the demonstrations both planned
};

/*!
    requires: settings.train holds demonstrations (files or in memory) on at least 2 images or 2 paths
    ensures: the training images' demonstrations cut into min(folds, count) folds (the d-th in file
             order goes to fold d mod folds); for each fold, the model trained (train()) on the other
             folds' demonstrations -- the settings otherwise as given -- plans between each held-out
             demonstration's ends, and so do uniform costs.  Labelled images without demonstration
             files keep their generated demonstrations in every fold.  Throws what training throws,
             and mmp::InvalidArgument with fewer than 2 demonstrations to hold out.
!*/
HeldOutPathReport crossValidateDemonstrations(const PipelineSettings& settings, int folds, const StageCallback& progress = {});

}  // namespace mmp
