// costmap_of_image: the cost map a saved model gives an image -- the three calls a navigation stack
// needs (CostModel::load, read the image, CostModel::costs) -- its size and cost range, and a picture.
//
//   costmap_of_image MODEL.mmp IMAGE [OUT.png | OUT.tif]
//
// MODEL.mmp: a model written by `mmp train` or by the train_from_folder example.  IMAGE: PNG, JPEG,
// TIFF, or a GeoTIFF (or an image with a world file): then the cost map lies in the image's world
// frame.  OUT: a colour-mapped picture of the costs with a legend (default costmap.png), or, for a
// name ending in .tif, a float32 GeoTIFF of the costs in the image's frame, impassable cells nodata.
// Links mmp::maps only: no learner, no OMPL.  Build: examples/CMakeLists.txt; run: examples/run.sh.
#include <mmp/core/error.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/georeference.hpp>
#include <mmp/maps/imagery.hpp>
#include <mmp/maps/render.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <string>

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: %s MODEL.mmp IMAGE [OUT.png | OUT.tif]\n", argv[0]);
    return 2;
  }
  const std::string out = argc == 4 ? argv[3] : "costmap.png";
  const bool raster = out.size() > 4 && out.compare(out.size() - 4, 4, ".tif") == 0;
  try {
    const mmp::CostModel model = mmp::CostModel::load(argv[1]);
    const mmp::GeoImage image = mmp::loadGeoImage(argv[2]);  // 8-bit BGR pixels and the file's world frame, if any
    const mmp::CostGrid grid = model.costs(image);           // grid.costs[row * grid.cols + col], +inf = impassable

    double lowest = std::numeric_limits<double>::infinity(), highest = 0.0;
    long impassable = 0;
    for (const double cost : grid.costs) {
      if (std::isinf(cost)) {
        ++impassable;
      } else {
        lowest = std::min(lowest, cost);
        highest = std::max(highest, cost);
      }
    }
    std::printf("%s: %d rows x %d cols of %d x %d pixels, costs %.4g .. %.4g, %ld impassable cells\n", argv[2],
                grid.rows, grid.cols, grid.cell_size, grid.cell_size, lowest, highest, impassable);
    std::printf("frame: %s\n", grid.frame.hasWorld() ? grid.frame.extentText().c_str() : "pixels only (no georeference)");

    if (raster) {
      // Streams the image band by band (images larger than memory too); the values equal grid.costs.
      mmp::ImageRows rows(argv[2]);
      const mmp::CostRasterInfo written = mmp::writeCostRaster(model, rows, out);
      std::printf("wrote %s: float32 GeoTIFF, %d x %d cells\n", out.c_str(), written.rows, written.cols);
    } else {
      mmp::CostMapStyle style;  // log colour scale over the map's own range; dark = cheap, bright = dear
      style.pixels_per_cell = grid.cell_size;  // the picture as large as the image
      mmp::writeImage(out, mmp::renderCostMap(grid.costs, grid.rows, grid.cols, style));
      std::printf("wrote %s\n", out.c_str());
    }
  } catch (const mmp::Error& e) {  // bad model file, unreadable image, ...: the message names the file
    std::fprintf(stderr, "costmap_of_image: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {  // anything else (out of memory, OpenCV)
    std::fprintf(stderr, "costmap_of_image: unexpected error: %s\n", e.what());
    return 1;
  }
  return 0;
}
