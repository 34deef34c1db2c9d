// Region cost maps and data-parallel batch training on the job's MPI processes (run under mpirun -np
// 2): the many-process results against the one-process ones, and the refusals.
#include "learners/learner_fixtures.hpp"
#include "mpi_scene.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/mpi_processes.hpp>
#include <mmp/learners/batch_subgradient.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/georeference.hpp>
#include <mmp/maps/region_costmap.hpp>

#include <doctest/doctest.h>
#include <gdal.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace mmp {
namespace {

// A folder every process sees: MMP_MPI_TEST_DIR (ctest sets it), emptied by process 0 before the others look.
std::string sharedFolder(ProcessGroup& processes, const std::string& name) {
  const char* root = std::getenv("MMP_MPI_TEST_DIR");
  REQUIRE(root != nullptr);
  const std::string path = std::string(root) + "/" + name;
  if (processes.rank() == 0) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  double barrier = 0.0;
  processes.sum(&barrier, 1);
  return path;
}

std::vector<float> readFloats(const std::string& path, int& cols, int& rows) {
  GDALAllRegister();
  GDALDatasetH d = GDALOpen(path.c_str(), GA_ReadOnly);
  REQUIRE(d != nullptr);
  cols = GDALGetRasterXSize(d);
  rows = GDALGetRasterYSize(d);
  std::vector<float> values(static_cast<std::size_t>(cols) * rows);
  REQUIRE(GDALRasterIO(GDALGetRasterBand(d, 1), GF_Read, 0, 0, cols, rows, values.data(), cols, rows, GDT_Float32, 0, 0) == CE_None);
  GDALClose(d);
  return values;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

const std::string kModel = std::string(MMP_SOURCE_DIR) + "/models/hide_in_vegetation.mmp";

RegionSettings smallWindows() {
  RegionSettings s;
  s.tiles.tile_cells = 32;
  s.tiles.threads = 1;
  s.window_cells = 64;
  return s;
}

}  // namespace

TEST_CASE("a region cost map on the job's processes equals the one-process cost map, bit for bit") {
  MpiProcessGroup processes;
  REQUIRE(processes.size() >= 2);  // the point of the suite: run it under mpirun -np 2
  const std::string dir = sharedFolder(processes, "region");
  const std::string image = dir + "/scene.tif";
  if (processes.rank() == 0) test::writeSceneGeoTiff(image, 600, 700);
  double barrier = 0.0;
  processes.sum(&barrier, 1);

  const RegionSettings settings = smallWindows();
  const RegionCostMap many(kModel, image, dir + "/many", settings);
  CHECK(many.windows() == 9);  // 175 x 150 cells in windows of 64: 3 x 3, the last ones cut short
  const RegionRun run = computeRegion(many, processes);
  CHECK(run.computed == 9);
  CHECK(run.skipped == 0);
  if (processes.rank() == 0) many.writeVrt();
  processes.sum(&barrier, 1);

  // The reference: CostModel::costs of the whole image in one process, as mmp costmap --raw FILE writes it.
  const CostModel model = CostModel::load(kModel);
  const CostGrid grid = model.costs(loadGeoImage(image), settings.tiles);
  const std::vector<float> expected = rasterCosts(grid.costs.data(), grid.costs.size(), grid.cols, 0, "reference");
  int cols = 0, rows = 0;
  const std::vector<float> got = readFloats(many.vrtPath(), cols, rows);
  CHECK(cols == grid.cols);
  CHECK(rows == grid.rows);
  REQUIRE(got.size() == expected.size());
  CHECK(std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)) == 0);

  // One process writes the same tiles, byte for byte (process 0 alone, as `mmp costmap` without mpirun).
  if (processes.rank() == 0) {
    const RegionCostMap one(kModel, image, dir + "/one", settings);
    SingleProcess alone;
    CHECK(computeRegion(one, alone).computed == 9);
    for (int i = 0; i < one.windows(); ++i) CHECK(slurp(one.tilePath(i)) == slurp(many.tilePath(i)));
  }

  // A rerun computes nothing: every tile is complete.
  CHECK(computeRegion(many, processes).skipped == 9);
  processes.sum(&barrier, 1);
  // A deleted tile and a stale temporary (a killed run's) are redone; the rest is kept.
  if (processes.rank() == 0) {
    fs::remove(many.tilePath(4));
    std::ofstream(many.tilePath(5) + ".part") << "half";
  }
  processes.sum(&barrier, 1);
  const RegionRun resumed = computeRegion(many, processes);
  CHECK(resumed.computed == 1);
  CHECK(resumed.skipped == 8);
  CHECK(!fs::exists(many.tilePath(5) + ".part"));
  CHECK(readFloats(many.vrtPath(), cols, rows) == got);
}

TEST_CASE("region refusals: more processes than windows, a folder of another model, a folder mmp did not write") {
  MpiProcessGroup processes;
  const std::string dir = sharedFolder(processes, "refusals");
  const std::string image = dir + "/scene.tif";
  if (processes.rank() == 0) test::writeSceneGeoTiff(image, 200, 240);
  double barrier = 0.0;
  processes.sum(&barrier, 1);
  RegionSettings settings = smallWindows();
  settings.window_cells = 64;  // 60 x 50 cells: one window
  const RegionCostMap one_window(kModel, image, dir + "/a", settings);
  CHECK_THROWS_WITH_AS(computeRegion(one_window, processes),
                       doctest::Contains((std::to_string(processes.size()) + " processes for a region of 1 windows").c_str()),
                       InvalidArgument);

  settings.window_cells = 32;  // 2 x 2 windows
  const RegionCostMap first(kModel, image, dir + "/b", settings);
  CHECK(computeRegion(first, processes).computed == 4);
  const RegionCostMap other_model(std::string(MMP_SOURCE_DIR) + "/models/follow_road.mmp", image, dir + "/b", settings);
  if (processes.rank() == 0) {
    CHECK_THROWS_WITH_AS(computeRegion(other_model, processes), doctest::Contains("model_fnv1a64"), InvalidArgument);
  } else {
    CHECK_THROWS_WITH_AS(computeRegion(other_model, processes), doctest::Contains("process 0 refused"), Error);
  }
  settings.window_cells = 128;  // other settings, same model: refused too
  const RegionCostMap other_windows(kModel, image, dir + "/b", settings);
  if (processes.rank() == 0) CHECK_THROWS_WITH_AS(other_windows.prepareFolder(), doctest::Contains("window_cells 32 there, 128 for this run"), InvalidArgument);

  if (processes.rank() == 0) {
    fs::create_directories(dir + "/c");
    std::ofstream(dir + "/c/notes.txt") << "mine";
  }
  processes.sum(&barrier, 1);
  const RegionCostMap foreign(kModel, image, dir + "/c", smallWindows());
  if (processes.rank() == 0) CHECK_THROWS_WITH_AS(foreign.prepareFolder(), doctest::Contains("not a folder mmp wrote"), InvalidArgument);
  RegionSettings bad = smallWindows();
  bad.window_cells = 48;
  CHECK_THROWS_WITH_AS(RegionCostMap(kModel, image, dir + "/d", bad), doctest::Contains("window_cells = 48: give a multiple of tile_cells (32)"),
                       InvalidArgument);
}

TEST_CASE("data-parallel batch training: the same model at every rerun, and the one-process model up to reassociation") {
  auto processes = std::make_shared<MpiProcessGroup>();
  Random rng(7);
  const auto examples = test::noisyLinearMulticlass(rng, 101, 4, 6);  // 101: the shares differ in size
  const ExampleList list = test::listOf(examples);
  BatchSubgradient::Params p;
  p.lambda = 0.01;
  p.steps = StepSchedule::constant(0.5);
  p.averaging = Averaging::Uniform;
  p.stop.max_iterations = 60;
  p.threads = 2;
  BatchSubgradient one(p);
  const Eigen::VectorXd alone = one.train(list);

  p.processes = processes;
  BatchSubgradient first(p), second(p);
  const Eigen::VectorXd a = first.train(list);
  const Eigen::VectorXd b = second.train(list);
  CHECK(first.iterations() == 60);
  // Bit for bit at a fixed process count, the same on every process.
  CHECK(std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(double)) == 0);
  CHECK(first.objective() == second.objective());
  Eigen::VectorXd summed = a;
  processes->sum(summed.data(), static_cast<std::size_t>(summed.size()));
  CHECK((summed - processes->size() * a).norm() <= 1e-12 * a.norm());
  // Against one process: the shares' partial sums are added in another order; 60 steps of rounding
  // differences stay within 1e-9 of the weights' size.
  CHECK((a - alone).norm() <= 1e-9 * alone.norm());
  CHECK(std::abs(first.objective() - one.objective()) <= 1e-9 * std::abs(one.objective()));
  CHECK(alone.norm() > 0.1);  // a model, not the zero start

  p.objective = TrainingObjective::Likelihood;
  CHECK_THROWS_WITH_AS(BatchSubgradient{p}, doctest::Contains("takes the margin objective"), InvalidArgument);
}

}  // namespace mmp
