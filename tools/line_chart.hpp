// A plain line chart written as PNG (OpenCV): axes with ticks, one polyline per series, a legend.
// For training curves such as the OCR error per epoch (the paper's Figure 1); nothing fancier.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace mmp::tools {

struct ChartSeries {
  std::string name;
  std::array<int, 3> rgb{0, 0, 0};
  std::vector<double> x, y;  ///< same length; drawn in the order given
};

struct ChartLabels {
  std::string title, x_axis, y_axis;
};

/// Writes the chart to `path` (PNG); throws mmp::Error if a series is malformed or the file
/// cannot be written.  The y axis starts at 0 when every value is >= 0.
void writeLineChart(const std::string& path, const ChartLabels& labels, const std::vector<ChartSeries>& series,
                    int width = 900, int height = 560);

}  // namespace mmp::tools
