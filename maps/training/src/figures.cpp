#include <mmp/maps/training/figures.hpp>

#include <mmp/maps/render.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace mmp {
namespace {

const cv::Scalar kDemoColour(255, 255, 0);       // cyan: demonstrations and reference paths
const cv::Scalar kLearnedColour(40, 40, 255);    // red: the learned plans

// The image's whole cells, scaled to `height`.
cv::Mat cellsToHeight(const Region& region, int cell_size, int height) {
  return resizeToHeight(region.image(cv::Rect(0, 0, region.cols() * cell_size, region.rows() * cell_size)), height);
}

// The factor that puts learned costs on the true costs' scale: exp of the mean of log(true / learned)
// over the cells both hold finite.  Multiplying every cost by one factor changes no plan, so the
// learned map may be shown at the scale where it is most comparable; 1 without such cells.
double trueScaleFactor(const std::vector<double>& learned, const std::vector<double>& truth) {
  double sum = 0.0;
  long n = 0;
  for (std::size_t s = 0; s < std::min(learned.size(), truth.size()); ++s) {
    if (std::isfinite(learned[s]) && std::isfinite(truth[s]) && learned[s] > 0.0 && truth[s] > 0.0) {
      sum += std::log(truth[s] / learned[s]);
      ++n;
    }
  }
  return n > 0 ? std::exp(sum / static_cast<double>(n)) : 1.0;
}

// The smallest and largest finite cost of both maps: one colour range for the two.
std::pair<double, double> sharedRange(const std::vector<double>& a, const std::vector<double>& b) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const std::vector<double>* costs : {&a, &b}) {
    for (double c : *costs) {
      if (std::isfinite(c)) lo = std::min(lo, c), hi = std::max(hi, c);
    }
  }
  if (!std::isfinite(lo)) return {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
  return {lo, hi};
}

std::string factorText(double factor) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2g", factor);
  return buffer;
}

}  // namespace

cv::Mat holdoutPanel(const Region& train, const HoldoutResult& holdout, const PipelineSettings& settings) {
  const int height = settings.evaluation.panel_height;
  const double scale = drawingScale(cv::Size(height, height));
  const int thickness = std::max(2, static_cast<int>(std::lround(2.0 * scale)));
  cv::Mat left = cellsToHeight(train, settings.features.cell_size, height);
  const double left_scale = static_cast<double>(height) / train.rows();
  for (const auto& demo : train.demonstrations) drawPath(left, demo, train.cols(), left_scale, kDemoColour, thickness);

  const Region& region = holdout.region;
  const std::vector<double>& truth = region.true_costs;
  const double factor = trueScaleFactor(holdout.learned_costs, truth);
  std::vector<double> learned = holdout.learned_costs;
  for (double& c : learned) c *= factor;
  CostMapStyle style;
  style.pixels_per_cell = static_cast<double>(height) / region.rows();
  std::tie(style.low, style.high) = sharedRange(learned, truth);
  std::vector<PanelTile> tiles = {{"training: " + train.spec.name + " (" + std::to_string(train.demonstrations.size()) +
                                       " demonstrations)",
                                   left}};
  if (!truth.empty()) {
    style.colour_bar = false;  // the learned map's bar beside it holds for both
    tiles.push_back({"true costs on holdout " + region.spec.name, renderCostMap(truth, region.rows(), region.cols(), style)});
    style.colour_bar = true;
  }
  tiles.push_back({"learned costs x " + factorText(factor) + " (same colour scale)",
                   renderCostMap(learned, region.rows(), region.cols(), style)});

  cv::Mat right = cellsToHeight(region, settings.features.cell_size, height);
  const double right_scale = static_cast<double>(height) / region.rows();
  const std::size_t shown = std::min<std::size_t>(static_cast<std::size_t>(settings.evaluation.panel_paths),
                                                  holdout.references.size());
  std::vector<int> crossings;
  for (std::size_t k = 0; k < shown; ++k) {
    const std::vector<int>& plan = holdout.plans.at(Method::Learned)[k];
    drawPath(right, holdout.references[k], region.cols(), right_scale, kDemoColour, thickness);
    drawPath(right, plan, region.cols(), right_scale, kLearnedColour, thickness);
    if (!truth.empty()) {
      for (int cell : impassableCrossings(plan, truth)) crossings.push_back(cell);
    }
  }
  drawCrossings(right, crossings, region.cols(), right_scale, thickness);
  tiles.push_back({"learned plans on holdout " + region.spec.name, right});

  std::vector<LegendEntry> legend = {
      {LegendMark::Line, kDemoColour, "demonstration / reference path (optimal on the true costs)"},
      {LegendMark::Line, kLearnedColour, "plan on the learned costs"},
      {LegendMark::Start, cv::Scalar(90, 90, 90), "start"},
      {LegendMark::Goal, cv::Scalar(90, 90, 90), "goal"}};
  if (!crossings.empty()) legend.push_back({LegendMark::Crossing, {}, "plan crosses impassable terrain"});
  legend.push_back({LegendMark::Swatch, impassableColour(), "impassable (true cost inf)"});
  legend.push_back({LegendMark::Note, {},
                    "learned costs x " + factorText(factor) + " to match the true costs (one factor on every cost changes no plan)"});
  return withLegend(makePanel(tiles, height), legend, scale);
}

cv::Mat trainingCurve(const TrainingReport& report, const std::string& behaviour) {
  ChartSeries series;
  series.name = "training: " + report.trace_value;
  const bool batch = report.learner == LearnerKind::Batch;
  ChartSeries validation;  // another quantity than the trace's: on its own axis
  validation.name = report.validation_value;
  validation.bgr = cv::Scalar(40, 110, 230);  // orange beside the training series' blue
  validation.right_axis = true;
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
  style.log_y = true;
  if (validation.x.empty()) return lineChart({series}, style);
  return lineChart({series, validation}, style);
}

}  // namespace mmp
