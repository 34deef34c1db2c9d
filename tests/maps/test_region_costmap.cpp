// RegionCostMap in one process (SingleProcess; the MPI suite, tests/mpi, runs it on two): the tiles
// and VRT against CostModel::costs, reruns, and the refusals.
#include "mpi/mpi_scene.hpp"
#include "temp_dir.hpp"
#include "maps/maps_support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/georeference.hpp>
#include <mmp/maps/region_costmap.hpp>
#include <mmp/maps/render.hpp>

#include <doctest/doctest.h>
#include <gdal.h>

#include <cstring>
#include <filesystem>
#include <fstream>

using namespace mmp;

TEST_CASE("a region cost map in one process equals CostModel::costs, and a rerun keeps its complete tiles") {
  test::TempDir dir;
  const std::string image = dir.file("scene.tif");
  test::writeSceneGeoTiff(image, 300, 340);
  const std::string model_path = dir.file("model.mmp");
  test::randomCostModel(loadGeoImage(image).pixels, 5).save(model_path);
  RegionSettings settings;
  settings.tiles.tile_cells = 32;
  settings.tiles.threads = 2;
  settings.window_cells = 32;
  const RegionCostMap region(model_path, image, dir.file("out"), settings);
  CHECK(region.windows() == 9);  // 85 x 75 cells in windows of 32
  SingleProcess alone;
  CHECK(computeRegion(region, alone).computed == 9);
  region.writeVrt();

  const CostModel model = CostModel::load(model_path);
  const CostGrid grid = model.costs(loadGeoImage(image), settings.tiles);
  const std::vector<float> expected = rasterCosts(grid.costs.data(), grid.costs.size(), grid.cols, 0, "reference");
  GDALAllRegister();
  GDALDatasetH vrt = GDALOpen(region.vrtPath().c_str(), GA_ReadOnly);
  REQUIRE(vrt != nullptr);
  CHECK(GDALGetRasterXSize(vrt) == grid.cols);
  CHECK(GDALGetRasterYSize(vrt) == grid.rows);
  std::vector<float> got(expected.size());
  REQUIRE(GDALRasterIO(GDALGetRasterBand(vrt, 1), GF_Read, 0, 0, grid.cols, grid.rows, got.data(), grid.cols, grid.rows,
                       GDT_Float32, 0, 0) == CE_None);
  GDALClose(vrt);
  CHECK(std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)) == 0);

  std::filesystem::remove(region.tilePath(7));
  const RegionRun rerun = computeRegion(region, alone);
  CHECK(rerun.computed == 1);
  CHECK(rerun.skipped == 8);
  CHECK(region.complete(7));

  // A complete tile cut to half its length is computed again; another raster of the same size and frame is refused.
  const std::uintmax_t length = std::filesystem::file_size(region.tilePath(4));
  std::filesystem::resize_file(region.tilePath(4), length / 2);
  CHECK_FALSE(region.complete(4));
  CHECK(computeRegion(region, alone).computed == 1);
  CHECK(region.complete(4));
  const std::string twin = dir.file("twin.tif");
  test::writeSceneGeoTiff(twin, 300, 340, 99);
  const RegionCostMap swapped(model_path, twin, dir.file("out"), settings);
  CHECK_THROWS_WITH_AS(computeRegion(swapped, alone), doctest::Contains("raster_fnv1a64"), InvalidArgument);

  // Other settings on the same folder, a tile size the windows do not hold, a raster without world frame.
  settings.window_cells = 64;
  const RegionCostMap other(model_path, image, dir.file("out"), settings);
  CHECK_THROWS_WITH_AS(computeRegion(other, alone), doctest::Contains("window_cells 32 there, 64 for this run"), InvalidArgument);
  settings.window_cells = 40;
  CHECK_THROWS_WITH_AS(RegionCostMap(model_path, image, dir.file("x"), settings),
                       doctest::Contains("give a multiple of tile_cells (32)"), InvalidArgument);
  settings.window_cells = 32;
  const std::string plain = dir.file("plain.png");
  writeImage(plain, loadImage(image));
  CHECK_THROWS_WITH_AS(RegionCostMap(model_path, plain, dir.file("y"), settings),
                       doctest::Contains("has no world frame"), InvalidArgument);
}
