#include <mmp/core/world_frame.hpp>

#include <mmp/core/error.hpp>

#include <cmath>
#include <cstdio>

namespace mmp {
namespace {

void requireWorld(const WorldFrame& frame) {
  if (!frame.hasWorld()) {
    throw InvalidArgument("the grid has no world frame (no georeference; give a resolution and an origin): only "
                          "pixel coordinates can be used");
  }
}

}  // namespace

WorldFrame WorldFrame::unlocated(int rows, int cols) {
  WorldFrame frame;
  frame.rows = rows;
  frame.cols = cols;
  return frame;
}

WorldFrame WorldFrame::located(int rows, int cols, double resolution, WorldPoint origin, std::string crs) {
  if (!(resolution > 0.0) || !std::isfinite(resolution)) {
    throw InvalidArgument("world frame: resolution " + numberText(resolution) + " must be a finite number > 0");
  }
  if (!std::isfinite(origin.x) || !std::isfinite(origin.y)) {
    throw InvalidArgument("world frame: origin (" + numberText(origin.x) + ", " + numberText(origin.y) + ") must be finite");
  }
  // The far corner too: an extent that overflows would put every cell at +inf.
  const double right = origin.x + cols * resolution, top = origin.y + rows * resolution;
  if (!std::isfinite(right) || !std::isfinite(top)) {
    throw InvalidArgument("world frame: " + std::to_string(cols) + " x " + std::to_string(rows) + " cells of " +
                          numberText(resolution) + " from the origin (" + numberText(origin.x) + ", " +
                          numberText(origin.y) + ") reach (" + numberText(right) + ", " + numberText(top) +
                          "), beyond the finite numbers");
  }
  WorldFrame frame = unlocated(rows, cols);
  frame.resolution = resolution;
  frame.origin = origin;
  frame.crs = std::move(crs);
  return frame;
}

WorldPoint WorldFrame::toWorld(CellPoint p) const {
  requireWorld(*this);
  return {origin.x + p.u * resolution, origin.y + (rows - p.v) * resolution};
}

CellPoint WorldFrame::toCell(WorldPoint p) const {
  requireWorld(*this);
  return {(p.x - origin.x) / resolution, rows - (p.y - origin.y) / resolution};
}

int WorldFrame::cellAt(WorldPoint p) const {
  const CellPoint c = toCell(p);
  const double col = std::floor(c.u), row = std::floor(c.v);
  if (!(col >= 0 && col < cols && row >= 0 && row < rows)) return -1;
  return static_cast<int>(row) * cols + static_cast<int>(col);
}

std::string WorldFrame::extentText() const {
  if (!hasWorld()) return "u in [0, " + std::to_string(cols) + "), v in [0, " + std::to_string(rows) + ")";
  return "x in [" + numberText(origin.x) + ", " + numberText(origin.x + cols * resolution) + "), y in (" + numberText(origin.y) +
         ", " + numberText(origin.y + rows * resolution) + "]";
}

WorldFrame WorldFrame::coarsened(int cell_size) const {
  if (cell_size < 1) throw InvalidArgument("world frame: cell_size " + std::to_string(cell_size) + " must be >= 1");
  WorldFrame frame = *this;
  frame.rows = rows / cell_size;
  frame.cols = cols / cell_size;
  if (hasWorld()) {
    frame.resolution = resolution * cell_size;
    const double top = origin.y + rows * resolution;
    frame.origin.y = top - frame.rows * frame.resolution;
  }
  return frame;
}

}  // namespace mmp
