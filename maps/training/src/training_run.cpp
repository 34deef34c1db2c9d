#include <mmp/maps/training/training_run.hpp>

namespace mmp {

TrainingRun trainAndReport(const PipelineSettings& settings, const SelectionSpace* space,
                           const SelectionProgress& selection_progress, const StageCallback& progress) {
  std::optional<SelectionResult> selection;
  if (space != nullptr) selection = selectSettings(settings, *space, selection_progress);
  PipelineSettings chosen = selection ? selection->settings : settings;
  RunResult run = trainAndEvaluate(chosen, progress);
  HoldoutReport report = reportHoldouts(run.holdouts, chosen.classes);
  return {std::move(selection), std::move(chosen), std::move(run), std::move(report)};
}

}  // namespace mmp
