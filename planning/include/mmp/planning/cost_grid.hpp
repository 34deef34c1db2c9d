// CostGrid: the per-cell path costs of a map and where the map lies in the world -- what
// CostModel::costs gives, what GridPlanner and the OMPL objective plan on, and what the exporters
// (GeoTIFF, Nav2) write.  Cell (r, c) is costs[r * cols + c] and covers pixels [c k, (c+1) k) x
// [r k, (r+1) k) of the image with k = cell_size; pixels beyond the last whole cell are not covered.
#pragma once

#include <mmp/core/world_frame.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace mmp {

struct CostGrid {
  int rows = 0, cols = 0;
  int cell_size = 1;            ///< pixels per cell side
  std::vector<double> costs;    ///< row-major, each > 0; +inf marks a blocked cell
  /// Empty, or one entry a cell: non-zero where the image has no data (nodata, a mask, alpha 0).
  /// Such a cell's cost is +inf (impassable to the planners); exporters write it as unknown (Nav2
  /// 255, the raster's nodata).
  std::vector<std::uint8_t> unknown;
  WorldFrame frame;             ///< the cells' world frame (rows x cols; resolution per cell)

  int cells() const { return rows * cols; }
  bool blocked(int cell) const { return costs[static_cast<std::size_t>(cell)] == std::numeric_limits<double>::infinity(); }
  /// The cell holding pixel (x, y); -1 if it lies outside the whole cells.
  int cellAt(double x, double y) const {
    if (!(x >= 0.0 && y >= 0.0 && x < static_cast<double>(cols) * cell_size && y < static_cast<double>(rows) * cell_size)) {
      return -1;
    }
    return static_cast<int>(y) / cell_size * cols + static_cast<int>(x) / cell_size;
  }
  /// The cell holding world point p; -1 outside.  Throws mmp::InvalidArgument if the grid has no world frame.
  int cellAt(WorldPoint p) const { return frame.cellAt(p); }
  /// A length in cells: given in the frame's world units when the grid has a world frame, in pixels
  /// otherwise (a vehicle's turning radius, say).
  double cellsOfLength(double length) const {
    return frame.hasWorld() ? length / frame.resolution : length / static_cast<double>(cell_size);
  }
};

}  // namespace mmp
