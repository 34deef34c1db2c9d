// One whole training run, as `mmp train` makes it: settings chosen inside the training data when a
// search space is given (settings_selection.hpp), the pipeline on the chosen settings (pipeline.hpp),
// and its holdout images pooled into the report (holdout_report.hpp).
//
//   const TrainingRun r = trainAndReport(settings, &space);   // or nullptr: no selection
//   r.run.trained.model.save("model.mmp");
//   r.report.summary(Method::Learned).cost_ratio_mean;
#pragma once

#include <mmp/maps/training/holdout_report.hpp>
#include <mmp/maps/training/settings_selection.hpp>

#include <optional>

namespace mmp {

struct TrainingRun {
  std::optional<SelectionResult> selection;  ///< when a search space was given
  PipelineSettings settings;                 ///< the settings trained with (the chosen ones)
  RunResult run;
  HoldoutReport report;                      ///< run.holdouts pooled
  /// With settings.evaluation.training: the labelled training images scored as the holdout is (new
  /// seeded pairs, the same model and baselines), pooled.
  std::optional<HoldoutReport> training_fit;
};

/// ensures: selects settings over `space` when it is not null (selection_progress reports it), then
/// trains and scores on the chosen settings (progress reports it), and with evaluation.training
/// scores the labelled training images too.  Throws what selectSettings and
/// trainAndEvaluate throw.
TrainingRun trainAndReport(const PipelineSettings& settings, const SelectionSpace* space,
                           const SelectionProgress& selection_progress = {}, const StageCallback& progress = {});

}  // namespace mmp
