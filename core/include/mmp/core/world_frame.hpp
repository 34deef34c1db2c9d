// WorldFrame: where a grid of cells lies in the world -- the resolution (world units, normally metres,
// per cell side), the origin and the coordinate reference system -- and the transforms between cell
// coordinates and world coordinates.  Every FeatureMap, CostGrid and saved cost map carries one.
//
// Conventions (Nav2's map_server, ../shared/DESIGN.md "World frame"):
//   - the origin is the world (x, y) of the LOWER-LEFT corner of cell (rows - 1, 0); x grows with the
//     column, y with decreasing row (north up, as GeoTIFFs without rotation are);
//   - continuous cell coordinates (u, v) put cell (r, c) at u in [c, c + 1), v in [r, r + 1), so its
//     centre is (c + 0.5, r + 0.5); x = origin_x + u res, y = origin_y + (rows - v) res;
//   - a frame with resolution 0 has no world coordinates (a plain image with none given): only cell
//     and pixel coordinates exist, and asking for world points throws;
//   - crs is the coordinate reference system as WKT, empty when unknown (a frame from a config's
//     resolution and origin is a local metric frame).
//
//   mmp::WorldFrame frame = mmp::WorldFrame::located(rows, cols, 0.5, {1000.0, 2000.0});
//   const mmp::CellPoint p = frame.toCell({1010.0, 2030.0});   // continuous (u, v)
//   const int cell = frame.cellAt({1010.0, 2030.0});            // r * cols + c, -1 outside
#pragma once

#include <string>

namespace mmp {

/// A point in world coordinates of a frame (x east, y north).
struct WorldPoint {
  double x = 0.0, y = 0.0;
};

/// A point in continuous cell coordinates: u along the columns, v along the rows, cell (r, c) covering
/// [c, c + 1) x [r, r + 1).
struct CellPoint {
  double u = 0.0, v = 0.0;
};

struct WorldFrame {
  int rows = 0, cols = 0;      ///< cells
  double resolution = 0.0;     ///< world units per cell side; 0: no world frame
  WorldPoint origin;           ///< lower-left corner of cell (rows - 1, 0)
  std::string crs;             ///< WKT; empty when unknown

  /// A frame without world coordinates (cells only).
  static WorldFrame unlocated(int rows, int cols);
  /// requires: resolution > 0 and finite, origin finite (throws mmp::InvalidArgument naming the value).
  static WorldFrame located(int rows, int cols, double resolution, WorldPoint origin, std::string crs = {});

  bool hasWorld() const { return resolution > 0.0; }

  /// Continuous cell coordinates -> world; throws mmp::InvalidArgument if !hasWorld().
  WorldPoint toWorld(CellPoint p) const;
  /// The world point at the centre of cell (row, col).
  WorldPoint cellCentre(int row, int col) const { return toWorld({col + 0.5, row + 0.5}); }
  /// World -> continuous cell coordinates; throws mmp::InvalidArgument if !hasWorld().
  CellPoint toCell(WorldPoint p) const;
  /// The cell index r * cols + c holding p, -1 if p lies outside the grid.
  int cellAt(WorldPoint p) const;
  /// "x in [x0, x1), y in (y0, y1]" (world) or "u in [0, cols), v in [0, rows)" (no world frame): for
  /// messages about points outside.
  std::string extentText() const;

  /// The frame of cells of `cell_size` x `cell_size` of these cells, rows / cell_size by cols /
  /// cell_size of them (trailing cells that do not fill one are dropped): same top-left corner,
  /// resolution x cell_size.  requires: cell_size >= 1.
  WorldFrame coarsened(int cell_size) const;
};

}  // namespace mmp
