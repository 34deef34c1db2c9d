// Pictures of a pipeline run (pipeline.hpp): the Figure-2-style panel of a holdout image and the
// training curve.  Colours: demonstrations and reference paths cyan, learned plans red.
#pragma once

#include <mmp/maps/training/pipeline.hpp>

#include <opencv2/core.hpp>

#include <string>

namespace mmp {

/// A training image with its demonstrations | the learned cost map of the holdout image | the
/// holdout image with the first settings.evaluation.panel_paths learned plans and reference paths;
/// settings.evaluation.panel_height pixels high.
cv::Mat holdoutPanel(const Region& train, const HoldoutResult& holdout, const PipelineSettings& settings);

/// The trace's values (log scale) against iterations (batch) or epochs (online).
cv::Mat trainingCurve(const TrainingReport& report, const std::string& behaviour);

}  // namespace mmp
