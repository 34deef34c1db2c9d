#include <mmp/maps/lethal_rules.hpp>

#include "raster_pixels.hpp"

#include <mmp/core/error.hpp>

#include <opencv2/core.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>

namespace mmp {

double passableCostQuantile(const std::vector<double>& costs, double q) {
  if (!(q >= 0.0 && q <= 1.0)) {
    throw InvalidArgument("cost quantile " + std::to_string(q) + ": give a share of the passable cells from 0 to 1");
  }
  std::vector<double> passable;
  for (double c : costs) {
    if (std::isfinite(c)) passable.push_back(c);
  }
  if (passable.empty()) return std::numeric_limits<double>::infinity();
  const auto at = passable.begin() + static_cast<std::ptrdiff_t>(q * static_cast<double>(passable.size() - 1));
  std::nth_element(passable.begin(), at, passable.end());
  return *at;
}

std::vector<std::uint8_t> lethalCellsFromMask(const std::string& path, const CostGrid& grid, int image_cols,
                                              int image_rows, const std::vector<int>& values) {
  std::array<bool, 256> lethal{};
  for (int v : values) {
    if (v < 0 || v > 255) {
      throw InvalidArgument("lethal mask '" + path + "': value " + std::to_string(v) + " is not an 8-bit value (0..255)");
    }
    lethal[static_cast<std::size_t>(v)] = true;
  }
  if (values.empty()) lethal.fill(true), lethal[0] = false;
  const cv::Mat mask = detail::readRaw(path, "lethal mask");  // damaged or truncated files are refused
  if (mask.type() != CV_8UC1) {
    throw DataError("lethal mask '" + path + "' has " + std::to_string(mask.channels()) + " channel(s) of " +
                    std::to_string(8 * mask.elemSize1()) + " bits; give one 8-bit channel (e.g. a class-index mask "
                    "such as labels_index/*.png, with the values that mark)");
  }
  if (mask.cols != image_cols || mask.rows != image_rows) {
    throw DataError("lethal mask '" + path + "' is " + std::to_string(mask.cols) + " x " + std::to_string(mask.rows) +
                    " px; it must be the image's size, " + std::to_string(image_cols) + " x " + std::to_string(image_rows));
  }
  const int k = grid.cell_size;
  std::vector<std::uint8_t> cells(static_cast<std::size_t>(grid.cells()), 0);
  for (int y = 0; y < std::min(grid.rows * k, mask.rows); ++y) {
    const std::uint8_t* row = mask.ptr<std::uint8_t>(y);
    for (int x = 0; x < std::min(grid.cols * k, mask.cols); ++x) {
      if (lethal[row[x]]) cells[static_cast<std::size_t>(y / k) * static_cast<std::size_t>(grid.cols) + static_cast<std::size_t>(x / k)] = 1;
    }
  }
  return cells;
}

}  // namespace mmp
