#include "pictures.hpp"

#include <mmp/maps/render.hpp>
#include <mmp/planning/grid_planner.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace mmp::tools {
namespace {

// The lowest and highest finite costs of the grids.
std::pair<double, double> costRange(std::initializer_list<const CostGrid*> grids) {
  double low = INFINITY, high = 0.0;
  for (const CostGrid* g : grids) {
    for (double c : g->costs) {
      if (std::isfinite(c)) low = std::min(low, c), high = std::max(high, c);
    }
  }
  return {low, high};
}

cv::Mat withPathLegend(const cv::Mat& panel, const char* note) {
  return withLegend(panel,
                    {{LegendMark::Line, cv::Scalar(255, 255, 0), "demonstration"},
                     {LegendMark::Line, cv::Scalar(40, 40, 255), "the model's A* plan between its ends"},
                     {LegendMark::Note, cv::Scalar(), note}},
                    drawingScale(panel.size()));
}

}  // namespace

cv::Mat taughtPicture(const CostGrid& grid, const std::vector<std::vector<int>>& demos, double low, double high) {
  CostMapStyle style;
  style.pixels_per_cell = grid.cell_size;
  style.low = low;
  style.high = high;
  cv::Mat picture = renderCostMap(grid.costs, grid.rows, grid.cols, style);
  GridPlanner planner(grid.rows, grid.cols);
  const double scale = drawingScale(picture.size());
  for (const std::vector<int>& demo : demos) {
    drawPath(picture, demo, grid.cols, grid.cell_size, cv::Scalar(255, 255, 0), std::max(2, static_cast<int>(2 * scale)));
    const PlanResult plan = planner.plan(grid.costs, demo.front(), demo.back());
    if (plan.status == PlanStatus::Success) {
      drawPath(picture, plan.path, grid.cols, grid.cell_size, cv::Scalar(40, 40, 255), std::max(2, static_cast<int>(2 * scale)));
    }
  }
  return picture;
}

// The parent's and the adapted model's cost maps of one image side by side, on one colour scale, with
// the demonstrations taught on it and each model's plans between their ends.
cv::Mat teachingPicture(const CostGrid& before, const CostGrid& after, const std::vector<std::vector<int>>& demos, int taught) {
  const auto [low, high] = costRange({&before, &after});
  const cv::Mat panel = makePanel({{"parent model", taughtPicture(before, demos, low, high)},
                                   {"adapted on " + std::to_string(taught) + " demonstration(s)",
                                    taughtPicture(after, demos, low, high)}},
                                  std::min(720, std::max(before.rows, 240) * before.cell_size));
  return withPathLegend(panel, "one colour scale for both maps (log cost)");
}

cv::Mat fitPicture(const CostGrid& grid, const std::vector<std::vector<int>>& demos, const std::string& title) {
  const auto [low, high] = costRange({&grid});
  const cv::Mat panel = makePanel({{title, taughtPicture(grid, demos, low, high)}}, std::min(720, std::max(grid.rows, 240) * grid.cell_size));
  return withPathLegend(panel, "cost per cell, log scale");
}


}  // namespace mmp::tools
