#include <mmp/maps/training/pipeline_figures.hpp>

#include <mmp/maps/render.hpp>

#include <algorithm>
#include <cmath>

namespace mmp {
namespace {

const cv::Scalar kDemoColour(255, 255, 0);       // cyan: demonstrations and reference paths
const cv::Scalar kLearnedColour(40, 40, 255);    // red: the learned plans

// The image's whole cells, scaled to `height`.
cv::Mat cellsToHeight(const Region& region, int cell_size, int height) {
  return resizeToHeight(region.image(cv::Rect(0, 0, region.cols() * cell_size, region.rows() * cell_size)), height);
}

}  // namespace

cv::Mat holdoutPanel(const Region& train, const HoldoutResult& holdout, const PipelineSettings& settings) {
  const int height = settings.evaluation.panel_height;
  cv::Mat left = cellsToHeight(train, settings.features.cell_size, height);
  const double left_scale = static_cast<double>(height) / train.rows();
  for (const auto& demo : train.demonstrations) drawPath(left, demo, train.cols(), left_scale, kDemoColour, 2);

  const Region& region = holdout.region;
  CostMapStyle style;
  style.pixels_per_cell = static_cast<double>(height) / region.rows();
  style.caption = "cost";
  const cv::Mat middle = renderCostMap(holdout.learned_costs, region.rows(), region.cols(), style);

  cv::Mat right = cellsToHeight(region, settings.features.cell_size, height);
  const double right_scale = static_cast<double>(height) / region.rows();
  const std::size_t shown = std::min<std::size_t>(static_cast<std::size_t>(settings.evaluation.panel_paths),
                                                  holdout.references.size());
  for (std::size_t k = 0; k < shown; ++k) {
    drawPath(right, holdout.references[k], region.cols(), right_scale, kDemoColour, 2);
    drawPath(right, holdout.plans.at(Method::Learned)[k], region.cols(), right_scale, kLearnedColour, 2);
  }
  return makePanel({{"training: " + train.spec.name + " (" + std::to_string(train.demonstrations.size()) +
                         " demonstrations, cyan)", left},
                    {"learned cost on holdout " + region.spec.name, middle},
                    {"learned plan (red) vs reference (cyan)", right}},
                   height);
}

cv::Mat trainingCurve(const TrainingReport& report, const std::string& behaviour) {
  ChartSeries series;
  series.name = report.trace_value;
  const bool batch = report.learner == LearnerKind::Batch;
  ChartSeries validation;
  validation.name = report.validation_value;
  validation.bgr = cv::Scalar(40, 110, 230);  // orange beside the training series' blue
  for (std::size_t i = 0; i < report.trace.size(); ++i) {
    const TraceRecord& r = report.trace[i];
    const double x = static_cast<double>(batch ? r.iteration : static_cast<long>(i) + 1);
    if (std::isfinite(r.value)) series.x.push_back(x), series.y.push_back(r.value);  // NaN: an epoch scored, not stepped
    if (report.validation.size() == report.trace.size()) validation.x.push_back(x), validation.y.push_back(report.validation[i]);
  }
  ChartStyle style;
  const std::string learner = report.hypothesis == CostHypothesis::Network ? "network"
                              : report.hypothesis == CostHypothesis::Learch ? "LEARCH"
                                                                            : describe(report.learner) + " learner";
  style.title = "training curve: " + behaviour + " (" + learner + ")";
  style.x_label = report.pass_name;
  style.y_label = series.name;
  style.log_y = true;
  if (validation.x.empty()) return lineChart({series}, style);
  return lineChart({series, validation}, style);
}

}  // namespace mmp
