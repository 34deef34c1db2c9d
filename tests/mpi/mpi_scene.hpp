// The MPI tests' imagery: a synthetic scene (mmp's own, no external data) written as a georeferenced
// GeoTIFF with GDAL, so that a region cost map (which needs a world frame) can be made of it.
#pragma once

#include <string>

namespace mmp::test {

/// Writes a rows x cols px synthetic scene (of `seed`) to `path`: a GeoTIFF in EPSG:32640, 0.5 m pixels.
void writeSceneGeoTiff(const std::string& path, int rows, int cols, int seed = 1);

}  // namespace mmp::test
