// An outside project against an installed mmp, through its public headers only: trains a small
// "follow the road" cost model on generated aerial scenes with the pipeline, saves it, loads it as a
// CostModel, computes the cost map of another scene and plans on it with A*.  Then, as a navigation
// stack would: reads a GeoTIFF (made here with GDAL: another scene placed in UTM zone 40N), computes
// its cost map in the image's world frame, plans between two world points with A* and with OMPL's
// BIT*, and writes a Nav2 map.  Exits non-zero unless the plans are found, the A* plan runs on road
// more than a straight line would, the OMPL path stays on passable cells, and the Nav2 files are there.  The parts between the README and NAV markers are the
// README's examples, word for word (check_readme.sh compares them).  Given the shared data folder as its
// argument, it also reads the OCR letters through mmp::datasets and groups them into words.
#include <mmp/datasets/letters.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/georeference.hpp>
#include <mmp/maps/imagery.hpp>
#include <mmp/maps/nav2_map.hpp>
#include <mmp/maps/training/pipeline.hpp>
#include <mmp/planning/grid_planner.hpp>
#include <mmp/planning/ompl_planning.hpp>
#include <mmp/planning/path.hpp>

#include <gdal.h>
#include <ogr_srs_api.h>

#include <cstdio>
#include <filesystem>
#include <limits>

namespace {

// The share of a path's cells that lie on the preferred class.
double roadShare(const std::vector<int>& path, const cv::Mat& labels, int cols, int cell_size, int road) {
  int on_road = 0;
  for (int cell : path) {
    on_road += labels.at<std::uint8_t>(cell / cols * cell_size + cell_size / 2, cell % cols * cell_size + cell_size / 2) == road;
  }
  return static_cast<double>(on_road) / static_cast<double>(path.size());
}

// A GeoTIFF of an 8-bit BGR image with 0.5 m pixels, its top-left corner at UTM 40N (500000, 2800000).
bool writeGeoTiff(const std::string& path, const cv::Mat& bgr) {
  GDALAllRegister();
  GDALDatasetH out = GDALCreate(GDALGetDriverByName("GTiff"), path.c_str(), bgr.cols, bgr.rows, 3, GDT_Byte, nullptr);
  if (out == nullptr) return false;
  bool ok = true;
  for (int b = 0; b < 3; ++b) {
    cv::Mat channel;
    cv::extractChannel(bgr, channel, 2 - b);  // bands R, G, B
    ok = ok && GDALRasterIO(GDALGetRasterBand(out, b + 1), GF_Write, 0, 0, bgr.cols, bgr.rows, channel.data, bgr.cols,
                            bgr.rows, GDT_Byte, 0, 0) == CE_None;
  }
  double transform[6] = {500000.0, 0.5, 0.0, 2800000.0, 0.0, -0.5};
  GDALSetGeoTransform(out, transform);
  OGRSpatialReferenceH utm = OSRNewSpatialReference(nullptr);
  OSRImportFromEPSG(utm, 32640);
  GDALSetSpatialRef(out, utm);
  OSRDestroySpatialReference(utm);
  GDALClose(out);
  return ok;
}

}  // namespace

// The OCR letters of ../shared/data/ocr through mmp::datasets; true if they read as the data set's
// 6877 words, or if the folder has no letters (a clone without the shared data: said, not failed).
bool readLetters(const std::string& data_root) {
  const std::string path = data_root + "/ocr/letter.data.gz";
  if (data_root.empty() || !std::filesystem::exists(path)) {
    std::printf("mmp consumer: no OCR letters at '%s': the mmp::datasets check skipped\n", path.c_str());
    return true;
  }
  const mmp::datasets::LetterData letters = mmp::datasets::readLetters(path);
  const mmp::datasets::LetterWords words = mmp::datasets::groupWords(letters);
  std::printf("mmp consumer: %zu OCR letters in %zu words through mmp::datasets\n", letters.size(), words.size());
  return letters.size() == 52152 && words.size() == 6877;
}

int main(int argc, char** argv) {
  if (!readLetters(argc > 1 ? argv[1] : "")) return 1;
  // README:begin
  // Learn "follow the road" from demonstrations planned on two generated scenes.
  mmp::PipelineSettings settings;  // documented defaults; the generated scene's classes
  const double impassable = std::numeric_limits<double>::infinity();
  settings.behaviour = mmp::Behaviour::make(
      "follow_road", settings.classes,
      {{"Road", 1}, {"Land", 6}, {"Vegetation", 8}, {"Building", impassable}, {"Water", impassable}}, "Road");
  settings.train = {mmp::RegionSpec::scene(1), mmp::RegionSpec::scene(2)};
  settings.learner.batch.stop.max_iterations = 30;
  const mmp::TrainingData data = mmp::loadTrainingData(settings);
  const mmp::TrainedCostModel trained = mmp::train(data, settings);
  trained.model.save("follow_road.mmp");  // atomically; trained.report has the trace and timings

  // A navigation stack: load the model, read an image, get its cost map, plan on it.
  const mmp::CostModel model = mmp::CostModel::load("follow_road.mmp");
  mmp::SyntheticSceneParams other;
  other.seed = 9;
  const cv::Mat image = mmp::makeSyntheticScene(other).image;  // or mmp::loadImage("area.png")
  const mmp::CostGrid grid = model.costs(image);
  mmp::GridPlanner planner(grid.rows, grid.cols);
  const mmp::PlanResult plan = planner.plan(grid.costs, grid.cellAt(20, 20), grid.cellAt(490, 490));
  // README:end

  if (plan.status != mmp::PlanStatus::Success) {
    std::printf("mmp consumer: no plan: %s\n", plan.message.c_str());
    return 1;
  }
  const cv::Mat labels = mmp::makeSyntheticScene(other).labels;
  const std::vector<int> straight = mmp::rasterizePolyline({{5, 5}, {122, 122}}, grid.cols, mmp::Connectivity::Eight);
  const double learned = roadShare(plan.path, labels, grid.cols, grid.cell_size, settings.behaviour.preferred);
  const double line = roadShare(straight, labels, grid.cols, grid.cell_size, settings.behaviour.preferred);
  std::printf("mmp consumer: %d x %d cost map, %s trained in %.1f s; the plan runs %.0f %% on road, a straight line %.0f %%\n",
              grid.rows, grid.cols, trained.report.info.c_str(), trained.report.train_seconds, 100 * learned, 100 * line);
  if (learned <= line) return 1;

  mmp::SyntheticSceneParams third;
  third.seed = 11;
  if (!writeGeoTiff("area.tif", mmp::makeSyntheticScene(third).image)) {
    std::printf("mmp consumer: GDAL could not write area.tif\n");
    return 1;
  }
  {
    // NAV:begin
    // A navigation stack: the model on georeferenced imagery, plans between world points, a Nav2 map.
    const mmp::CostModel model = mmp::CostModel::load("follow_road.mmp");
    const mmp::GeoImage area = mmp::loadGeoImage("area.tif");  // pixels, resolution, origin and CRS
    const mmp::CostGrid grid = model.costs(area);               // grid.frame: where the cells lie
    const mmp::WorldPoint from{500010.0, 2799990.0}, to{500245.0, 2799755.0};  // UTM 40N metres

    // The exact optimum on the grid: A*.
    mmp::GridPlanner astar(grid.rows, grid.cols);
    const mmp::PlanResult exact = astar.plan(grid.costs, grid.cellAt(from), grid.cellAt(to));

    // Any-angle paths under the same cost integral: an OMPL planner.
    mmp::OmplSettings ompl;
    ompl.planner = mmp::parsePlannerName("bitstar");
    ompl.budget_seconds = 1.0;
    const mmp::OmplResult sampled = mmp::planOmpl(grid, grid.frame.toCell(from), grid.frame.toCell(to), ompl);
    for (const mmp::CellPoint& p : sampled.path) {
      const mmp::WorldPoint w = grid.frame.toWorld(p);  // a waypoint for the controller
      std::printf("waypoint %.2f %.2f\n", w.x, w.y);
    }

    // The learned costs for Nav2's static layer (trinary_costmap: false).
    const mmp::Nav2MapInfo nav2 = mmp::writeNav2Map(grid, "nav2");  // nav2/map.yaml, map.pgm
    // NAV:end
    std::remove("follow_road.mmp");
    std::remove("area.tif");
    if (exact.status != mmp::PlanStatus::Success || sampled.status != mmp::OmplStatus::Success) {
      std::printf("mmp consumer: no world plan: A* %s, OMPL %s\n", exact.message.c_str(), sampled.message.c_str());
      return 1;
    }
    bool passable = true;
    for (const mmp::CellPoint& p : sampled.path) {
      passable = passable && !grid.blocked(static_cast<int>(p.v) * grid.cols + static_cast<int>(p.u));
    }
    const bool files = std::filesystem::exists(nav2.yaml) && std::filesystem::exists(nav2.image);
    std::printf("mmp consumer: GeoTIFF %d x %d cells of %.1f m; A* cost %.4g, BIT* (1 s) cost %.4g = %.3f x A*; Nav2 "
                "map with %d graded levels\n",
                grid.rows, grid.cols, grid.frame.resolution, exact.cost, sampled.cost, sampled.cost / exact.cost,
                nav2.levels_used);
    std::filesystem::remove_all("nav2");
    if (!passable || !files) return 1;
  }
  return 0;
}
