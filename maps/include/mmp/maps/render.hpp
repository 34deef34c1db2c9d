// Pictures: cost maps in a colour map with a labelled colour bar, paths drawn over images with start,
// goal and impassable-crossing marks, legends that say what the marks mean, side-by-side panels with
// titles (the layout of Figure 2 of the subgradient paper) and a small line chart for training
// curves.  Everything returns CV_8UC3 BGR images; writeImage() saves them (PNG, or a float TIFF for
// raw maps).  Paths are cell lists s = r * cols + c; a cell is drawn at its centre, scaled by the
// number of image pixels per cell.
//
// Text, lines and marks grow with the picture (drawingScale), so that a legend stays readable on a
// 2149-pixel aerial part shown at screen size as well as on a 256-pixel synthetic scene.
#pragma once

#include <mmp/core/world_frame.hpp>
#include <mmp/planning/cost_grid.hpp>

#include <opencv2/core.hpp>

#include <limits>
#include <string>
#include <vector>

namespace mmp {

/// How large text, lines and marks are drawn on a picture of this size: 1 up to about 600 x 600
/// pixels, then in proportion to the square root of its area (3 on a 2149 x 1479 aerial part).
double drawingScale(cv::Size picture);

/*!
    requires: low < high, both finite (and > 0 if log_scale); target >= 2 (else throws
              mmp::InvalidArgument)
    ensures: round values in [low, high], ascending, about `target` of them and at least two where
             the range holds two round values of the finest kind below:
             - linear scale: the multiples of 1, 2 or 5 x 10^k;
             - log scale: the coarsest of 10^k, {1, 2, 5} x 10^k, {1, 2, 3, 5} x 10^k and every
               digit x 10^k that gives target - 1 values (only every n-th power of ten over many
               decades); over less than a factor 3, the linear scale's values.
             So every value is a whole multiple of its step (linear) or d x 10^k with d a digit (log):
             e.g. 1, 20, 0.05, 3000, 1.5; never 8.13, nor 41 on a range from 1 to 100.
!*/
std::vector<double> roundTicks(double low, double high, bool log_scale, int target = 5);

/// A tick value as text: "2", "0.05", "2.5", "3000", "1e+06" (at most six significant digits).
std::string tickText(double value);

/// The colour of impassable (+inf) cells in cost maps: a grey the "inferno" colour map never takes
/// (its cheapest colours are near black).
cv::Scalar impassableColour();

struct CostMapStyle {
  double pixels_per_cell = 4.0;   ///< size of a cell in the picture, > 0
  bool log_scale = true;          ///< colour by log(cost) (costs must be > 0 then)
  /// Colour range; NaN = the smallest and largest finite cost of the map.
  double low = std::numeric_limits<double>::quiet_NaN();
  double high = std::numeric_limits<double>::quiet_NaN();
  /// Written along the colour bar, followed by ", log scale" when log_scale is set.
  std::string caption = "cost per cell";
  bool colour_bar = true;         ///< false: the map alone (e.g. beside another map with the same range)
};

/*!
    requires: costs.size() == rows * cols; finite costs > 0 if style.log_scale
    ensures: the cost map in the "inferno" colour map (dark = cheap, bright = dear, as in Figure 2:
             cost scales with intensity), +inf cells in impassableColour(), with (if colour_bar) a
             colour bar on the right: round tick values (roundTicks), the caption along it and, if the
             map has impassable cells, their colour labelled "impassable".  Bar, text and ticks grow
             with the map (drawingScale).  The map part is round(cols * pixels_per_cell) x
             round(rows * pixels_per_cell), at the top left.
!*/
cv::Mat renderCostMap(const std::vector<double>& costs, int rows, int cols, const CostMapStyle& style = {});

/// Draws a polyline in cell coordinates (CellPoint) onto a picture whose cells are pixels_per_cell
/// pixels wide; with mark_ends, the start gets a filled dot and the goal a ring (drawStart, drawGoal).
void drawPolyline(cv::Mat& picture, const std::vector<CellPoint>& path, double pixels_per_cell, const cv::Scalar& bgr,
                  int thickness = 2, bool mark_ends = true);

/// drawPolyline through the centres of a path's cells.
void drawPath(cv::Mat& picture, const std::vector<int>& path, int cols, double pixels_per_cell, const cv::Scalar& bgr,
              int thickness = 2, bool mark_ends = true);

/// The start mark: a dot in the path's colour, outlined in white, of the given radius (pixels).
void drawStart(cv::Mat& picture, cv::Point2d at, const cv::Scalar& bgr, double radius);
/// The goal mark: a white disc ringed in the path's colour.
void drawGoal(cv::Mat& picture, cv::Point2d at, const cv::Scalar& bgr, double radius);
/// The mark of a crossing of impassable terrain: a yellow X in a yellow ring, outlined in black.
void drawCrossing(cv::Mat& picture, cv::Point2d at, double radius);

/// Where a path crosses impassable terrain: the middle cell of each run of consecutive path cells
/// whose cost is +inf, in path order.  requires: every cell of the path indexes costs.
std::vector<int> impassableCrossings(const std::vector<int>& path, const std::vector<double>& costs);

/// drawCrossing at the centre of each cell, with a radius that suits a path of this thickness.
void drawCrossings(cv::Mat& picture, const std::vector<int>& cells, int cols, double pixels_per_cell, int thickness);

/// What one entry of a legend shows beside its text (Note: nothing, the text alone).
enum class LegendMark { Line, Start, Goal, Crossing, Swatch, Note };

struct LegendEntry {
  LegendMark mark = LegendMark::Line;
  cv::Scalar bgr;      ///< the line's, mark's or swatch's colour (unused for Crossing)
  std::string label;
};

/*!
    requires: picture is CV_8UC3; scale > 0 (drawingScale of the picture, or of the tiles it is made of)
    ensures: the picture with a white legend strip below it: each entry's mark (drawn as in the
             picture: a line, the start dot, the goal ring, the crossing mark, a colour swatch or,
             for a note, nothing) and its label, left to right, wrapped onto more rows when the picture is too narrow.  Text
             and marks are drawn at `scale`, so the strip grows with the picture.  Entries without a
             label are left out; without any entry, a copy of the picture.
!*/
cv::Mat withLegend(const cv::Mat& picture, const std::vector<LegendEntry>& entries, double scale);

/// What `mmp plan --png` draws the path over.
enum class PlanUnderlay { Image, Costs };

struct PlanPictureStyle {
  PlanUnderlay underlay = PlanUnderlay::Image;
  std::string label = "planned path";       ///< the path's legend entry
  cv::Scalar bgr = cv::Scalar(40, 40, 255);  ///< red, on a white casing
};

/*!
    requires: image is CV_8UC3 and covers the grid's cells (grid.rows * grid.cell_size rows and
              grid.cols * grid.cell_size columns, more is cropped); path in the grid's cell
              coordinates (cellCentres for a GridPlanner path), at least one point
    ensures: the image (or, with PlanUnderlay::Costs, the grid's cost map with its colour bar) at one
             pixel per image pixel, the path with its start dot and goal ring, and a legend below
             (path, start, goal; impassable cells with the costs underlay), line widths and text
             scaled to the picture (drawingScale).
!*/
cv::Mat renderPlan(const cv::Mat& image, const CostGrid& grid, const std::vector<CellPoint>& path,
                   const PlanPictureStyle& style = {});

/// The picture scaled to the given height (area averaging when shrinking, nearest when enlarging).
cv::Mat resizeToHeight(const cv::Mat& picture, int height);

struct PanelTile {
  std::string title;
  cv::Mat picture;  ///< CV_8UC3
};

/// The tiles side by side, each scaled to `height`, a title strip above each, white gaps between;
/// titles are drawn at drawingScale of a height x height tile.
cv::Mat makePanel(const std::vector<PanelTile>& tiles, int height);

struct ChartSeries {
  std::string name;
  std::vector<double> x, y;  ///< same length; non-finite points are skipped
  cv::Scalar bgr = cv::Scalar(180, 90, 30);
  bool right_axis = false;   ///< on a second y axis at the right (another quantity, e.g. a validation loss)
};

struct ChartStyle {
  std::string title, x_label, y_label;
  int width = 720, height = 420;
  bool log_y = false;        ///< plot log10(y) (positive values only), on both y axes
  std::string y2_label{};    ///< the right axis's caption, if a series uses it
};

/// A line chart: the title, a legend row per series (line and name) above the plot, axes with round
/// ticks (roundTicks; the first x is labelled too when it is a whole number, e.g. epoch 1) and grid
/// lines; series with right_axis on their own scale at the right, each axis's labels then in the
/// colour of its first series.  A name too long for the chart is cut ("...").  Series without a
/// finite point are left out.  Throws mmp::InvalidArgument if the size is below
/// 200 x 150 or leaves no room for the plot.
cv::Mat lineChart(const std::vector<ChartSeries>& series, const ChartStyle& style);

/// Writes a picture (PNG/JPEG/TIFF by extension) atomically (writeFileAtomically); throws
/// mmp::DataError naming the path on failure, a full disk included.
void writeImage(const std::string& path, const cv::Mat& picture);

}  // namespace mmp
