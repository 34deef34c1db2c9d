// Demonstrated paths from a file: polylines of pixel points, joined into 8-adjacent cells.
//
// Two formats, chosen by the extension:
//   CSV  (.csv)          one point a line, "x,y" (one path) or "path,x,y" (points of a path in order,
//                        paths in order of first appearance); an optional header line naming those
//                        columns; '#' starts a comment line.
//   YAML (.yaml, .yml)   a list of paths, or a map with the key `paths` holding one; a path is a list
//                        of points, a point [x, y] or {x: .., y: ..}.
// x is the pixel column and y the pixel row of the image the paths were drawn on (fractions allowed);
// a path's name is the path column's value, or "1", "2", ... in file order.  pathCells (maps/regions.hpp)
// turns a path into cells.
// `mmp plan` writes its paths in the CSV format, so a plan can be read back as a demonstration.
#pragma once

#include <mmp/maps/pipeline_settings.hpp>

#include <string>
#include <vector>

namespace mmp::tools {

/// ensures: the paths in file order, each with >= 2 points.  Throws mmp::DataError naming the file and
/// the line (CSV) or the key path (YAML) at fault and the format expected.
std::vector<PixelPath> readDemonstrationFile(const std::string& path);

/// Writes paths of cells as CSV "path,x,y" at the cell centres (pixel coordinates); throws
/// mmp::DataError naming the file if it cannot be written.
void writePathCsv(const std::string& file, const std::vector<std::vector<int>>& paths, int cols, int cell_size);

}  // namespace mmp::tools
