// Pictures: cost maps in a colour map with a legend, paths drawn over images, side-by-side panels
// with titles (the layout of Figure 2 of the subgradient paper) and a small line chart for training
// curves.  Everything returns CV_8UC3 BGR images; writeImage() saves them (PNG, or a float TIFF for
// raw maps).  Paths are cell lists s = r * cols + c; a cell is drawn at its centre, scaled by the
// number of image pixels per cell.
#pragma once

#include <opencv2/core.hpp>

#include <limits>
#include <string>
#include <vector>

namespace mmp {

struct CostMapStyle {
  double pixels_per_cell = 4.0;   ///< size of a cell in the picture, > 0
  bool log_scale = true;          ///< colour by log(cost) (costs must be > 0 then)
  /// Colour range; NaN = the smallest and largest finite cost of the map.
  double low = std::numeric_limits<double>::quiet_NaN();
  double high = std::numeric_limits<double>::quiet_NaN();
  std::string caption = "cost";   ///< written above the legend
};

/*!
    requires: costs.size() == rows * cols; finite costs > 0 if style.log_scale
    ensures: the cost map in the "inferno" colour map (dark = cheap, bright = dear, as in Figure 2:
             cost scales with intensity), +inf cells black, with a colour bar and tick labels on the
             right.  The map part is round(cols * pixels_per_cell) x round(rows * pixels_per_cell).
!*/
cv::Mat renderCostMap(const std::vector<double>& costs, int rows, int cols, const CostMapStyle& style = {});

/// Draws the path (cell centres joined by anti-aliased lines) onto a picture whose cells are
/// pixels_per_cell pixels wide; start and goal get small filled circles when mark_ends is set.
void drawPath(cv::Mat& picture, const std::vector<int>& path, int cols, double pixels_per_cell, const cv::Scalar& bgr,
              int thickness = 2, bool mark_ends = true);

/// The picture scaled to the given height (area averaging when shrinking, nearest when enlarging).
cv::Mat resizeToHeight(const cv::Mat& picture, int height);

struct PanelTile {
  std::string title;
  cv::Mat picture;  ///< CV_8UC3
};

/// The tiles side by side, each scaled to `height`, a title strip above each, white gaps between.
cv::Mat makePanel(const std::vector<PanelTile>& tiles, int height);

struct ChartSeries {
  std::string name;
  std::vector<double> x, y;  ///< same length; non-finite points are skipped
  cv::Scalar bgr = cv::Scalar(180, 90, 30);
};

struct ChartStyle {
  std::string title, x_label, y_label;
  int width = 720, height = 420;
  bool log_y = false;  ///< plot log10(y) (positive values only)
};

/// A line chart with axes, ticks, grid and a legend.  Series without a finite point are left out.
cv::Mat lineChart(const std::vector<ChartSeries>& series, const ChartStyle& style);

/// Writes a picture (PNG/JPEG/TIFF by extension) atomically (writeFileAtomically); throws
/// mmp::DataError naming the path on failure, a full disk included.
void writeImage(const std::string& path, const cv::Mat& picture);

}  // namespace mmp
