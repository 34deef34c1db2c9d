// Path files in CSV: one point a line, "x,y" (one path) or "path,x,y" (points of a path in order,
// paths in order of first appearance); an optional header line naming those columns; '#' starts a
// comment line.  x is the pixel column and y the pixel row (fractions allowed).  With the header
// "world_x,world_y" (or "path,world_x,world_y") the points are world coordinates of the image's frame
// -- a GPS track in the image's CRS --; a file with both pixel and world columns is read by its pixels.
// A "heading_deg" column (a car-like vehicle's plan: degrees counterclockwise from east, +x, towards
// north, up in the image) is written with headings and ignored on reading.
// `mmp plan` writes its plans in this format (with world columns when the image has a world frame)
// and `mmp train` reads demonstrations from it (tools/ also reads YAML paths).
#pragma once

#include <mmp/core/world_frame.hpp>
#include <mmp/planning/cost_field.hpp>

#include <string>
#include <vector>

namespace mmp {

/// A demonstrated path drawn on an image: pixel points (x = column, y = row; fractions allowed), or
/// world points (x east, y north in the image's frame, e.g. a GPS track in the image's CRS).
struct PixelPoint {
  double x = 0.0, y = 0.0;
};

struct PixelPath {
  std::string name;  ///< e.g. "1", "2", ... in file order
  std::vector<PixelPoint> points;
  bool world = false;  ///< points are world coordinates of the image's frame, not pixels
};

/// ensures: the paths in file order.  Throws mmp::DataError naming the file and the line at fault and
/// the format expected, or if the file holds no point.
std::vector<PixelPath> readPathCsv(const std::string& file);

/// Writes paths of cells as CSV "path,x,y" at the cell centres (pixel coordinates), plus
/// "world_x,world_y" if `frame` (the cells' frame) has world coordinates, atomically; throws
/// mmp::DataError naming the file if it cannot be written.  The path column holds names[i] where one is
/// given and not empty (a name without comma or quote), else i + 1.
void writePathCsv(const std::string& file, const std::vector<std::vector<int>>& paths, int cols, int cell_size,
                  const WorldFrame& frame = {}, const std::vector<std::string>& names = {});
/// The same for paths of points in continuous cell coordinates (an OMPL path's waypoints), plus a
/// last column "heading_deg" if headings are given: one vector per path, in radians, one per point (as
/// OmplResult::headings), written in degrees in (-180, 180].  Throws mmp::InvalidArgument if headings
/// are given and their sizes are not the paths'.
void writePathCsv(const std::string& file, const std::vector<std::vector<CellPoint>>& paths, int cell_size,
                  const WorldFrame& frame = {}, const std::vector<std::vector<double>>& headings = {},
                  const std::vector<std::string>& names = {});

}  // namespace mmp
