#include <mmp/maps/training/training_run.hpp>

namespace mmp {
namespace {

// The labelled training images scored as holdout images are: the pairs are drawn with the evaluation's
// seed, not the demonstrations', so they are new paths on ground the model was fitted to.
HoldoutReport scoreTrainingImages(const PipelineSettings& settings, const RunResult& run, const StageCallback& progress) {
  PipelineSettings fit = settings;
  fit.holdout.clear();
  for (const RegionSpec& spec : settings.train) {
    if (spec.hasLabels()) fit.holdout.push_back(spec);
  }
  const StageCallback fit_progress = [&progress](const std::string& stage, long done, long total, const std::string& detail) {
    if (progress) progress("training images: " + stage, done, total, detail);
  };
  HoldoutReport report;
  for (std::size_t i = 0; i < fit.holdout.size(); ++i) {
    report.add(evaluateHoldout(fit, static_cast<int>(i), run.trained.model, run.classifier ? &*run.classifier : nullptr,
                               fit_progress),
               fit.classes);
  }
  return report;
}

}  // namespace

TrainingRun trainAndReport(const PipelineSettings& settings, const SelectionSpace* space,
                           const SelectionProgress& selection_progress, const StageCallback& progress) {
  std::optional<SelectionResult> selection;
  if (space != nullptr) selection = selectSettings(settings, *space, selection_progress);
  PipelineSettings chosen = selection ? selection->settings : settings;
  RunResult run = trainAndEvaluate(chosen, progress);
  HoldoutReport report = reportHoldouts(run.holdouts, chosen.classes);
  std::optional<HoldoutReport> training_fit;
  if (chosen.evaluation.training) training_fit = scoreTrainingImages(chosen, run, progress);
  return {std::move(selection), std::move(chosen), std::move(run), std::move(report), std::move(training_fit)};
}

}  // namespace mmp
