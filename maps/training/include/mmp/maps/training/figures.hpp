// Pictures of a pipeline run (pipeline.hpp): the Figure-2-style panel of a holdout image and the
// training curve.  Colours: demonstrations and reference paths cyan, learned plans red; a legend
// under the panel says what every line, mark and colour means.
#pragma once

#include <mmp/maps/training/pipeline.hpp>

#include <opencv2/core.hpp>

#include <string>

namespace mmp {

/// A training image with its demonstrations | the behaviour's true cost map of the holdout image |
/// its learned cost map, times the factor that best matches the true costs (one factor on every cost
/// changes no plan), on the same log colour scale | the holdout image with the first
/// settings.evaluation.panel_paths learned plans and reference paths, each place where a plan
/// crosses impassable terrain (true cost +inf) marked; a legend below.  The tiles are
/// settings.evaluation.panel_height pixels high.
cv::Mat holdoutPanel(const Region& train, const HoldoutResult& holdout, const PipelineSettings& settings);

/// The trace's values (log scale) against iterations (batch) or epochs (online), with the
/// validation values beside them where the report has them (network training with early stopping).
cv::Mat trainingCurve(const TrainingReport& report, const std::string& behaviour);

}  // namespace mmp
