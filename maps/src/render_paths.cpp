// Paths, their marks (start, goal, crossings of impassable terrain), legends and `mmp plan`'s picture
// (render.hpp).
#include <mmp/maps/render.hpp>

#include "render_text.hpp"

#include <mmp/core/error.hpp>
#include <mmp/planning/cost_field.hpp>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

namespace mmp {

using detail::kBlack;
using detail::kGrey;
using detail::kWhite;
using detail::Pen;

namespace {

constexpr int kShift = 4;  // sub-pixel precision for OpenCV's drawing functions
const cv::Scalar kCrossingColour(0, 230, 255);  // yellow

cv::Point shifted(cv::Point2d p) {
  return {static_cast<int>(std::lround(p.x * (1 << kShift))), static_cast<int>(std::lround(p.y * (1 << kShift)))};
}
int shifted(double length) { return static_cast<int>(std::lround(length * (1 << kShift))); }

// The radius of a path's start and goal marks, for a path drawn `thickness` pixels wide.
double markRadius(int thickness) { return std::max(4.0, 2.5 * thickness); }
// The radius of a crossing mark beside such a path.
double crossingRadius(int thickness) { return std::max(8.0, 4.0 * thickness); }

}  // namespace

void drawStart(cv::Mat& picture, cv::Point2d at, const cv::Scalar& bgr, double radius) {
  cv::circle(picture, shifted(at), shifted(radius + std::max(1.0, radius / 4.0)), kWhite, cv::FILLED, cv::LINE_AA, kShift);
  cv::circle(picture, shifted(at), shifted(radius), bgr, cv::FILLED, cv::LINE_AA, kShift);
}

void drawGoal(cv::Mat& picture, cv::Point2d at, const cv::Scalar& bgr, double radius) {
  const int ring = std::max(2, static_cast<int>(std::lround(radius / 3.0)));
  cv::circle(picture, shifted(at), shifted(radius), kWhite, cv::FILLED, cv::LINE_AA, kShift);
  cv::circle(picture, shifted(at), shifted(radius), bgr, ring, cv::LINE_AA, kShift);
}

void drawCrossing(cv::Mat& picture, cv::Point2d at, double radius) {
  const int line = std::max(2, static_cast<int>(std::lround(radius / 4.0)));
  const double arm = 0.62 * radius;
  for (const auto& [colour, width] : {std::pair{kBlack, line + 2}, std::pair{kCrossingColour, line}}) {
    cv::circle(picture, shifted(at), shifted(radius), colour, width, cv::LINE_AA, kShift);
    cv::line(picture, shifted(at + cv::Point2d(-arm, -arm)), shifted(at + cv::Point2d(arm, arm)), colour, width, cv::LINE_AA, kShift);
    cv::line(picture, shifted(at + cv::Point2d(-arm, arm)), shifted(at + cv::Point2d(arm, -arm)), colour, width, cv::LINE_AA, kShift);
  }
}

void drawPolyline(cv::Mat& picture, const std::vector<CellPoint>& path, double pixels_per_cell, const cv::Scalar& bgr,
                  int thickness, bool mark_ends) {
  if (path.empty()) return;
  if (!(pixels_per_cell > 0.0)) throw InvalidArgument("draw path: need pixels_per_cell > 0");
  std::vector<cv::Point> points;
  points.reserve(path.size());
  for (const CellPoint& p : path) points.push_back(shifted(cv::Point2d(p.u * pixels_per_cell, p.v * pixels_per_cell)));
  cv::polylines(picture, points, false, bgr, thickness, cv::LINE_AA, kShift);
  if (mark_ends) {
    const double r = markRadius(thickness);
    drawStart(picture, {path.front().u * pixels_per_cell, path.front().v * pixels_per_cell}, bgr, r);
    drawGoal(picture, {path.back().u * pixels_per_cell, path.back().v * pixels_per_cell}, bgr, r);
  }
}

void drawPath(cv::Mat& picture, const std::vector<int>& path, int cols, double pixels_per_cell, const cv::Scalar& bgr,
              int thickness, bool mark_ends) {
  if (path.empty()) return;
  if (cols < 1) throw InvalidArgument("draw path: need cols >= 1");
  drawPolyline(picture, cellCentres(path, cols), pixels_per_cell, bgr, thickness, mark_ends);
}

std::vector<int> impassableCrossings(const std::vector<int>& path, const std::vector<double>& costs) {
  std::vector<int> middles;
  auto blocked = [&](std::size_t i) { return std::isinf(costs.at(static_cast<std::size_t>(path[i]))); };
  for (std::size_t i = 0; i < path.size();) {
    if (!blocked(i)) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end + 1 < path.size() && blocked(end + 1)) ++end;
    middles.push_back(path[(i + end) / 2]);
    i = end + 1;
  }
  return middles;
}

void drawCrossings(cv::Mat& picture, const std::vector<int>& cells, int cols, double pixels_per_cell, int thickness) {
  for (const CellPoint& p : cellCentres(cells, cols)) {
    drawCrossing(picture, {p.u * pixels_per_cell, p.v * pixels_per_cell}, crossingRadius(thickness));
  }
}

cv::Mat withLegend(const cv::Mat& picture, const std::vector<LegendEntry>& entries, double scale) {
  if (picture.type() != CV_8UC3) throw InvalidArgument("legend: the picture is not 8-bit BGR");
  if (!(scale > 0.0)) throw InvalidArgument("legend: scale must be > 0");
  const Pen pen{scale};
  const int line = std::max(2, pen.px(2)), pad = pen.px(10), mark_w = pen.px(34), gap = pen.px(8), spacing = pen.px(26);
  const int row_h = std::max(pen.height() * 2, static_cast<int>(std::ceil(2.0 * crossingRadius(line)))) + pen.px(6);
  struct Placed {
    const LegendEntry* entry;
    cv::Point at;  // the mark's left end, on the row's middle
  };
  std::vector<Placed> placed;
  int x = pad, row = 0, width = picture.cols;
  for (const LegendEntry& e : entries) {
    if (e.label.empty()) continue;
    const int w = (e.mark == LegendMark::Note ? 0 : mark_w + gap) + pen.width(e.label);
    if (x > pad && x + w > picture.cols - pad) x = pad, ++row;
    placed.push_back({&e, cv::Point(x, picture.rows + pad / 2 + row * row_h + row_h / 2)});
    width = std::max(width, x + w + pad);
    x += w + spacing;
  }
  if (placed.empty()) return picture.clone();
  cv::Mat out(picture.rows + (row + 1) * row_h + pad, width, CV_8UC3, kWhite);
  picture.copyTo(out(cv::Rect(0, 0, picture.cols, picture.rows)));
  for (const Placed& p : placed) {
    const cv::Point2d centre(p.at.x + mark_w / 2.0, p.at.y);
    switch (p.entry->mark) {
      case LegendMark::Line:
        cv::line(out, p.at, p.at + cv::Point(mark_w, 0), p.entry->bgr, line, cv::LINE_AA);
        break;
      case LegendMark::Start: drawStart(out, centre, p.entry->bgr, markRadius(line)); break;
      case LegendMark::Goal: drawGoal(out, centre, p.entry->bgr, markRadius(line)); break;
      case LegendMark::Crossing: drawCrossing(out, centre, crossingRadius(line)); break;
      case LegendMark::Swatch: {
        const int side = pen.px(16);
        const cv::Rect box(static_cast<int>(centre.x) - side / 2, p.at.y - side / 2, side, side);
        cv::rectangle(out, box, p.entry->bgr, cv::FILLED);
        cv::rectangle(out, box, kGrey, pen.stroke());
        break;
      }
      case LegendMark::Note: break;
    }
    const int text_x = p.at.x + (p.entry->mark == LegendMark::Note ? 0 : mark_w + gap);
    pen.write(out, p.entry->label, cv::Point(text_x, p.at.y + pen.height() / 2));
  }
  return out;
}

cv::Mat renderPlan(const cv::Mat& image, const CostGrid& grid, const std::vector<CellPoint>& path,
                   const PlanPictureStyle& style) {
  const int k = grid.cell_size;
  if (image.type() != CV_8UC3 || grid.rows < 1 || grid.cols < 1 || k < 1 || image.rows < grid.rows * k ||
      image.cols < grid.cols * k || grid.costs.size() != static_cast<std::size_t>(grid.cells()) || path.empty()) {
    throw InvalidArgument("plan picture: need an 8-bit BGR image covering the grid's " + std::to_string(grid.rows) + " x " +
                          std::to_string(grid.cols) + " cells of " + std::to_string(k) + " px, a cost per cell and a path");
  }
  cv::Mat picture;
  if (style.underlay == PlanUnderlay::Costs) {
    CostMapStyle costs;
    costs.pixels_per_cell = k;
    picture = renderCostMap(grid.costs, grid.rows, grid.cols, costs);
  } else {
    picture = image(cv::Rect(0, 0, grid.cols * k, grid.rows * k)).clone();
  }
  const double scale = drawingScale(cv::Size(grid.cols * k, grid.rows * k));
  const int thickness = std::max(2, static_cast<int>(std::lround(2.0 * scale)));
  // A white casing under the line keeps it visible over red roofs and over the colour map's reds.
  drawPolyline(picture, path, k, kWhite, thickness + 2 * std::max(1, thickness / 3), false);
  drawPolyline(picture, path, k, style.bgr, thickness, true);
  return withLegend(picture, {{LegendMark::Line, style.bgr, style.label},
                              {LegendMark::Start, style.bgr, "start"},
                              {LegendMark::Goal, style.bgr, "goal"}},
                    scale);
}

}  // namespace mmp
