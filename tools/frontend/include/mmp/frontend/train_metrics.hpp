// The figures of a training run as `mmp train` writes them to metrics.json (and `--validate` to
// validation.json): shared by the command and the Python module (mmp.train returns the same dict).
//
//   const TrainingRun r = trainAndReport(settings, nullptr);
//   writeFileAtomically("metrics.json", jsonText(metricsJson(r, Json())) + "\n");
#pragma once

#include <mmp/frontend/json_output.hpp>

#include <mmp/maps/training/adaptation_run.hpp>
#include <mmp/maps/training/training_run.hpp>

#include <string>

namespace mmp::tools {

/// One method's pooled scores: cost_ratio_mean, cost_ratio_p95, dist_*_px, mhd_*_px, preferred_share,
/// feasible_share, pairs.
Json summaryJson(const MethodSummary& m);
/// {method name: summaryJson} for every method scored, in report order.
Json methodsJson(const HoldoutReport& report);
/// {baseline name: {gain, ci95_low, ci95_high, verdict}}: the learned map against each baseline on the
/// same pairs; empty when the learned map was not scored.  The class_mean diagnostic is no baseline:
/// see misreadJson.
Json comparisonsJson(const HoldoutReport& report);
/// With the class_mean diagnostic (evaluation.class_mean): {gap, ci95_low, ci95_high}, the learned mean
/// cost ratio minus class_mean's on the same pairs and its 95 % paired interval: what misread cells (and
/// all other variation within a class) cost.  Else null.
Json misreadJson(const HoldoutReport& report);
/// "batch", "online", "learch" or "network".
std::string learnerName(const TrainingReport& report);
/// metrics.json: the run's figures, its learner's report and trace, the holdout report (methods,
/// learned_vs, class shares, regions) and, when not null, `selection` (the `select:` table).
Json metricsJson(const TrainingRun& r, const Json& selection);
/// Held-out demonstrations (held_out.hpp) as {demonstrations, <baseline>: {loss, mhd_px, cost_ratio,
/// unplanned}, <model>: {...}, <model>_vs_<baseline>_loss: {gain, ci95_low, ci95_high, verdict}}.
Json heldOutJson(const HeldOutPathReport& report, const char* baseline, const char* model);
/// The metrics.json of a teaching run (`mmp adapt MODEL CONFIG`, mmp.teach): parent (`parent_name`),
/// demonstrations, teaching (each step), held_out {demonstrations, parent, adapted: {loss, mhd_px,
/// cost_ratio, unplanned}, adapted_vs_parent_loss}, and with a holdout the methods (learned = the
/// adapted model, uniform, parent), learned_vs (uniform, parent) and misread_cells as metricsJson's.
Json adaptationMetricsJson(const AdaptationRun& run, const AdaptationRunSettings& settings, const std::string& parent_name);

}  // namespace mmp::tools
