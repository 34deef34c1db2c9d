// Demonstrated paths from a file: polylines of pixel points, joined into 8-adjacent cells.
//
// Two formats, chosen by the extension:
//   CSV  (.csv)          maps/path_files.hpp (readPathCsv)
//   YAML (.yaml, .yml)   a list of paths, or a map with the key `paths` holding one; a path is a list
//                        of points, a point [x, y] or {x: .., y: ..}.
// x is the pixel column and y the pixel row of the image the paths were drawn on (fractions allowed);
// a path's name is the path column's value, or "1", "2", ... in file order.  pathCells (maps/regions.hpp)
// turns a path into cells.
// `mmp plan` writes its paths in the CSV format, so a plan can be read back as a demonstration.
#pragma once

#include <mmp/maps/path_files.hpp>

#include <string>
#include <vector>

namespace mmp::tools {

/// ensures: the paths in file order, each with >= 2 points.  Throws mmp::DataError naming the file and
/// the line (CSV) or the key path (YAML) at fault and the format expected.
std::vector<PixelPath> readDemonstrationFile(const std::string& path);

}  // namespace mmp::tools
