// `mmp train`, `plan`, `costmap` and `compare` through their command-line parsers, on small synthetic
// scenes and YAML configs.
#include "maps/maps_support.hpp"

#include "commands.hpp"
#include <mmp/maps/training/network_training.hpp>
#include <mmp/frontend/demonstration_file.hpp>
#include <mmp/frontend/json_output.hpp>
#include <mmp/frontend/train_config.hpp>
#include <mmp/maps/training/pipeline.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/model_file.hpp>
#include <mmp/maps/imagery.hpp>
#include <mmp/planning/grid_planner.hpp>
#include <mmp/planning/path.hpp>

#include <doctest/doctest.h>
#include <opencv2/imgcodecs.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <sstream>

using namespace mmp;
using namespace mmp::tools;

namespace {

// Small synthetic scenes: two for training, two held out.
TrainConfig syntheticConfig(const test::TempDir& dir) {
  const std::string path = dir.file("demo.yaml");
  std::ofstream(path) << R"(
behaviour: {name: follow_road, preferred: Road, costs: {Road: 1, Land: 6, Vegetation: 8, Water: inf, Building: 40}}
train:
  - synthetic: {seed: 1, rows: 256, cols: 256, roads: 3, buildings: 30}
  - synthetic: {seed: 2, rows: 256, cols: 256, roads: 3, buildings: 30}
holdout:
  - synthetic: {seed: 3, rows: 256, cols: 256, roads: 3, buildings: 30}
  - synthetic: {seed: 4, rows: 256, cols: 256, roads: 3, buildings: 30}
features: {cell_size: 4, blur_sigmas: [0, 8], texture_windows: [7], bins: 5}
demonstrations: {per_region: 10, min_separation_px: 100, seed: 1}
loss: {shape: linear, radius_px: 24, scale: 1}
learner:
  kind: batch
  batch: {lambda: 0.0001, iterations: 60, step: constant, step_size: 1, averaging: late_weighted, threads: 1}
evaluation: {pairs: 20, min_separation_px: 100, seed: 7}
classifier: {iterations: 40, samples: 4000}
)";
  return loadTrainConfig(path, "", dir.file("out"));
}

}  // namespace

namespace {

// One training image (unlabelled) with demonstrations from a file, one synthetic holdout scene.
TrainConfig demonstrationFileConfig(const test::TempDir& dir) {
  SyntheticSceneParams p;
  p.seed = 5;
  p.rows = p.cols = 160;
  const SyntheticScene scene = makeSyntheticScene(p);
  REQUIRE(cv::imwrite(dir.file("train.png"), scene.image));
  std::ofstream(dir.file("paths.csv")) << "path,x,y\n1,10,10\n1,150,12\n1,150,150\n2,5,140\n2,80,80\n";
  std::ofstream(dir.file("files.yaml")) << R"(
behaviour: {name: follow_road, preferred: Road, costs: {Road: 1, Land: 6, Vegetation: 8, Water: 30, Building: 40}}
train:
  - {image: train.png, demonstrations: paths.csv}
holdout:
  - synthetic: {seed: 6, rows: 160, cols: 160}
features: {cell_size: 8, blur_sigmas: [0], bins: 3}
learner: {batch: {iterations: 5, threads: 1}}
evaluation: {pairs: 3, min_separation_px: 40}
)";
  return loadTrainConfig(dir.file("files.yaml"), "", dir.file("out"));
}

// A model of the synthetic config's features saved as m.mmp (cost 1 + 2 f_3) and a 128 x 128 px scene
// to use it on, scene.png.
struct SavedModel {
  TrainingData training;
  Model model;
};

SavedModel saveModelAndScene(const test::TempDir& dir) {
  SavedModel saved{loadTrainingData(syntheticConfig(dir)), {}};
  saved.model.weights = Eigen::VectorXd::Zero(saved.training.stack.features());
  saved.model.weights[kBiasIndex] = 1.0;
  saved.model.weights[3] = 2.0;
  saved.training.stack.store(saved.model);
  saveModel(dir.file("m.mmp"), saved.model);
  SyntheticSceneParams p;
  p.seed = 9;
  p.rows = p.cols = 128;
  REQUIRE(cv::imwrite(dir.file("scene.png"), makeSyntheticScene(p).image));
  return saved;
}

}  // namespace

TEST_CASE("mmp plan and mmp costmap use a saved model on a new image") {
  test::TempDir dir;
  SavedModel saved = saveModelAndScene(dir);
  const TrainingData& training = saved.training;
  Model& model = saved.model;

  CLI::App app;
  addPlanCommand(app);
  addCostmapCommand(app);
  app.parse(std::vector<std::string>{dir.file("plan.png"), "--png", dir.file("plan.csv"), "--out", "100,90", "--goal",
                                     "3,2", "--start", dir.file("scene.png"), "--image", dir.file("m.mmp"), "--model",
                                     "plan"});  // CLI11 takes the arguments in reverse order
  const auto paths = readDemonstrationFile(dir.file("plan.csv"));
  REQUIRE(paths.size() == 1);
  const std::vector<int> cells = pathCells(paths[0], 4, 32, 32, "plan");
  CHECK(cells.front() == 0 * 32 + 0);
  CHECK(cells.back() == 22 * 32 + 25);
  const cv::Mat picture = cv::imread(dir.file("plan.png"));
  CHECK(picture.cols == 128);  // the image's whole cells
  CHECK(picture.rows > 128);   // and the legend below them

  CLI::App with_costs;
  addPlanCommand(with_costs);
  with_costs.parse(std::vector<std::string>{"costs", "--png-underlay", dir.file("plan_costs.png"), "--png", "100,90", "--goal",
                                            "3,2", "--start", dir.file("scene.png"), "--image", dir.file("m.mmp"), "--model",
                                            "plan"});
  CHECK(cv::imread(dir.file("plan_costs.png")).cols > 128);  // the cost map's colour bar beside it

  CLI::App app2;
  addCostmapCommand(app2);
  app2.parse(std::vector<std::string>{dir.file("cost.tiff"), "--raw", dir.file("cost.png"), "--png",
                                      dir.file("scene.png"), "--image", dir.file("m.mmp"), "--model", "costmap"});
  const cv::Mat raw = cv::imread(dir.file("cost.tiff"), cv::IMREAD_UNCHANGED);
  REQUIRE(raw.type() == CV_32FC1);
  CHECK(raw.size() == cv::Size(32, 32));
  const FeatureMap map = training.stack.map(loadImage(dir.file("scene.png")));
  std::vector<double> costs;
  map.costs(model.weights, costs);
  CHECK(raw.at<float>(7, 9) == doctest::Approx(costs[7 * 32 + 9]).epsilon(1e-6));

  // A model of exponential costs says so in its settings, and the commands follow it.
  model.settings["costs"] = "exponential";
  saveModel(dir.file("m.mmp"), model);
  CLI::App app4;
  addCostmapCommand(app4);
  app4.parse(std::vector<std::string>{dir.file("cost.tiff"), "--raw", dir.file("scene.png"), "--image",
                                      dir.file("m.mmp"), "--model", "costmap"});
  CHECK(cv::imread(dir.file("cost.tiff"), cv::IMREAD_UNCHANGED).at<float>(7, 9) ==
        doctest::Approx(std::exp(costs[7 * 32 + 9])).epsilon(1e-6));
  model.settings["costs"] = "quadratic";
  saveModel(dir.file("m.mmp"), model);
  CLI::App app5;
  addCostmapCommand(app5);
  CHECK_THROWS_WITH_AS(app5.parse(std::vector<std::string>{dir.file("cost.tiff"), "--raw", dir.file("scene.png"),
                                                           "--image", dir.file("m.mmp"), "--model", "costmap"}),
                       doctest::Contains("setting 'costs' = 'quadratic' must be linear or exponential"), DataError);
  model.settings.erase("costs");
  saveModel(dir.file("m.mmp"), model);

  CLI::App app3;
  addPlanCommand(app3);
  CHECK_THROWS_WITH_AS(app3.parse(std::vector<std::string>{dir.file("p.csv"), "--out", "900,4", "--goal", "3,4", "--start",
                                                           dir.file("scene.png"), "--image", dir.file("m.mmp"), "--model", "plan"}),
                       doctest::Contains("--goal"), InvalidArgument);
  // A plan written nowhere is refused before any work.
  CLI::App app6;
  addPlanCommand(app6);
  CHECK_THROWS_WITH_AS(app6.parse(std::vector<std::string>{"9,4", "--goal", "3,4", "--start", dir.file("scene.png"),
                                                           "--image", dir.file("m.mmp"), "--model", "plan"}),
                       doctest::Contains("give --out and/or --png"), InvalidArgument);
}

TEST_CASE("mmp plan takes world coordinates of the image's frame and writes the path in both") {
  test::TempDir dir;
  saveModelAndScene(dir);
  // 0.5 m pixels, lower-left corner at (1000, 2000): pixel (x, y) is world (1000 + x / 2, 2064 - y / 2).
  const auto plan = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args{"plan", "--model", dir.file("m.mmp"), "--image", dir.file("scene.png"),
                                  "--out", dir.file("plan.csv")};
    args.insert(args.end(), extra.begin(), extra.end());
    std::reverse(args.begin(), args.end());  // CLI11 takes the arguments in reverse order
    CLI::App app;
    addPlanCommand(app);
    app.parse(args);
  };
  plan({"--resolution", "0.5", "--origin", "1000,2000", "--world", "--start", "1001.5,2063", "--goal", "1050,2019"});
  std::ifstream in(dir.file("plan.csv"));
  std::string header;
  std::getline(in, header);
  CHECK(header == "path,x,y,world_x,world_y");
  const auto both = readDemonstrationFile(dir.file("plan.csv"));
  REQUIRE(both.size() == 1);
  CHECK_FALSE(both[0].world);
  const std::vector<int> cells = pathCells(both[0], 4, 32, 32, "plan");
  CHECK(cells.front() == 0 * 32 + 0);    // pixel (3, 2)
  CHECK(cells.back() == 22 * 32 + 25);   // pixel (100, 90)

  // The world columns alone are a GPS track in the image's frame: the same cells.
  std::ifstream again(dir.file("plan.csv"));
  std::ofstream track(dir.file("track.csv"));
  track << "world_x,world_y\n";
  std::string line;
  std::getline(again, line);
  while (std::getline(again, line)) {
    std::stringstream fields(line);
    std::string field;
    std::vector<std::string> f;
    while (std::getline(fields, field, ',')) f.push_back(field);
    track << f[3] << "," << f[4] << "\n";
  }
  track.close();
  const auto world = readDemonstrationFile(dir.file("track.csv"));
  REQUIRE(world.size() == 1);
  CHECK(world[0].world);
  const WorldFrame pixels = WorldFrame::located(128, 128, 0.5, {1000.0, 2000.0});
  CHECK(pathCells(world[0], 4, 32, 32, "track", pixels) == cells);
  CHECK_THROWS_WITH_AS(pathCells(world[0], 4, 32, 32, "track"),
                       doctest::Contains("track: path 1 is in world coordinates, but the image has no world frame"),
                       DataError);
  CHECK_THROWS_WITH_AS(pathCells(world[0], 4, 32, 32, "track", WorldFrame::located(128, 128, 0.5, {0.0, 0.0})),
                       doctest::Contains("lies outside the image's whole cells (x in [0, 64), y in (0, 64])"), DataError);

  // An OMPL planner between the same cells: waypoints from the start cell's centre to the goal's.  FMT*
  // stops when its samples are done, so the budget only bounds a slow machine (0.5 s ran out under ASan
  // beside other jobs).
  plan({"--resolution", "0.5", "--origin", "1000,2000", "--world", "--start", "1001.5,2063", "--goal", "1050,2019",
        "--planner", "fmtstar", "--budget", "10"});
  const auto waypoints = readDemonstrationFile(dir.file("plan.csv"));
  REQUIRE(waypoints.size() == 1);
  REQUIRE(waypoints[0].points.size() >= 2);
  CHECK(waypoints[0].points.front().x == 2.0);   // the centre of cell (0, 0): pixel (2, 2)
  CHECK(waypoints[0].points.front().y == 2.0);
  CHECK(waypoints[0].points.back().x == 102.0);  // cell (22, 25)
  CHECK(waypoints[0].points.back().y == 90.0);

  // Points outside the image and world points without a world frame are refused, saying what is valid.
  CHECK_THROWS_WITH_AS(plan({"--resolution", "0.5", "--origin", "1000,2000", "--world", "--start", "999,2010",
                             "--goal", "1050,2019"}),
                       doctest::Contains("--start 999,2010 lies outside the image's whole cells (x in [1000, 1064), y in "
                                         "(2000, 2064])"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(plan({"--world", "--start", "1001.5,2063", "--goal", "1050,2019"}),
                       doctest::Contains("has no world frame (no georeference): give --resolution and --origin"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(plan({"--resolution", "0.5", "--start", "3,2", "--goal", "100,90"}),
                       doctest::Contains("give --resolution and --origin together"), InvalidArgument);

  // The same cost map as a Nav2 map: in the image's frame, per cell.
  CLI::App nav2;
  addCostmapCommand(nav2);
  nav2.parse(std::vector<std::string>{dir.file("nav2"), "--nav2", "1000,2000", "--origin", "0.5", "--resolution",
                                      dir.file("scene.png"), "--image", dir.file("m.mmp"), "--model", "costmap"});
  const YAML::Node map = YAML::LoadFile(dir.file("nav2/map.yaml"));
  CHECK(map["resolution"].as<double>() == 2.0);
  CHECK(map["origin"][0].as<double>() == 1000.0);
  CHECK(map["origin"][1].as<double>() == 2000.0);
  CHECK(map["mode"].as<std::string>() == "raw");
  CHECK(cv::imread(dir.file("nav2/map.pgm"), cv::IMREAD_UNCHANGED).size() == cv::Size(32, 32));
  CLI::App no_frame;
  addCostmapCommand(no_frame);
  CHECK_THROWS_WITH_AS(no_frame.parse(std::vector<std::string>{dir.file("nav2"), "--nav2", dir.file("scene.png"),
                                                               "--image", dir.file("m.mmp"), "--model", "costmap"}),
                       doctest::Contains("world frame"), InvalidArgument);

  // A training image given a frame in the config takes demonstrations in world coordinates.
  std::ofstream(dir.file("world.yaml")) << R"(
behaviour: {name: follow_road, preferred: Road, costs: {Road: 1, Land: 6, Vegetation: 8, Water: 30, Building: 40}}
train:
  - {image: scene.png, demonstrations: track.csv, resolution: 0.5, origin: [1000, 2000], crs: "EPSG:32640"}
holdout:
  - synthetic: {seed: 6, rows: 160, cols: 160}
features: {cell_size: 4, blur_sigmas: [0], bins: 3}
)";
  const TrainingData data = loadTrainingData(loadTrainConfig(dir.file("world.yaml"), "", dir.file("out")));
  REQUIRE(data.regions.size() == 1);
  CHECK(data.regions[0].demonstrations.front() == cells);
  CHECK(data.regions[0].map->frame().resolution == 2.0);
  CHECK(data.regions[0].map->frame().crs.find("UTM zone 40N") != std::string::npos);
  std::ofstream(dir.file("half.yaml")) << R"(
behaviour: {name: follow_road, preferred: Road, costs: {Road: 1, Land: 6, Vegetation: 8, Water: 30, Building: 40}}
train:
  - {image: scene.png, demonstrations: track.csv, resolution: 0.5}
holdout:
  - synthetic: {seed: 6, rows: 160, cols: 160}
)";
  CHECK_THROWS_WITH_AS(loadTrainConfig(dir.file("half.yaml"), "", dir.file("out")),
                       doctest::Contains("train[0].origin: give 'resolution' (world units per pixel) and 'origin'"),
                       ConfigError);
}

TEST_CASE("mmp plan --vehicle plans a car with headings, turning no tighter than the radius") {
  // RRT*'s wall-time budget: under the sanitizers the planner runs several times slower.
#ifdef MMP_SANITIZED
  const char* const kCarBudget = "3";
#else
  const char* const kCarBudget = "0.5";
#endif
  test::TempDir dir;
  saveModelAndScene(dir);
  const auto plan = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args{"plan", "--model", dir.file("m.mmp"), "--image", dir.file("scene.png"),
                                  "--out", dir.file("car.csv"), "--budget", kCarBudget};
    args.insert(args.end(), extra.begin(), extra.end());
    std::reverse(args.begin(), args.end());  // CLI11 takes the arguments in reverse order
    CLI::App app;
    addPlanCommand(app);
    app.parse(args);
  };
  // Rows of car.csv: pixel x, y and the heading in degrees (the last column).
  const auto rows = [&](std::string& header) {
    std::ifstream in(dir.file("car.csv"));
    std::getline(in, header);
    std::vector<std::array<double, 3>> out;
    std::string line;
    while (std::getline(in, line)) {
      std::vector<double> f;
      std::stringstream fields(line);
      std::string field;
      while (std::getline(fields, field, ',')) f.push_back(std::stod(field));
      out.push_back({f[1], f[2], f.back()});
    }
    return out;
  };
  constexpr double kDegree = 3.14159265358979323846 / 180.0;
  for (const char* vehicle : {"dubins", "reeds-shepp"}) {
    CAPTURE(vehicle);
    // Pixels without a world frame: 12 px, 3 cells of 4 px.
    plan({"--start", "10,100", "--goal", "110,20", "--vehicle", vehicle, "--turning-radius", "12", "--start-heading", "90"});
    std::string header;
    const auto path = rows(header);
    CHECK(header == "path,x,y,heading_deg");
    REQUIRE(path.size() >= 3);
    CHECK(path.front()[0] == 10.0);  // the start cell's centre, heading north (up)
    CHECK(path.front()[1] == 102.0);
    CHECK(path.front()[2] == doctest::Approx(90.0));
    // The goal's heading by default: from the start cell's centre to the goal's (up and to the right).
    CHECK(path.back()[2] == doctest::Approx(std::atan2(102.0 - 22.0, 110.0 - 10.0) / kDegree));
    for (std::size_t i = 1; i < path.size(); ++i) {
      const double turn = std::abs(std::remainder((path[i][2] - path[i - 1][2]) * kDegree, 2 * 3.14159265358979323846));
      const double chord = std::hypot(path[i][0] - path[i - 1][0], path[i][1] - path[i - 1][1]);
      if (turn > 1e-9) CHECK(chord / (2 * std::sin(turn / 2)) >= 12.0 * (1 - 1e-6));
    }
    CHECK(readDemonstrationFile(dir.file("car.csv"))[0].points.size() == path.size());  // the heading is ignored
  }
  // With a world frame the radius is in world units: 6 m of 0.5 m pixels is 12 px again.
  plan({"--resolution", "0.5", "--origin", "1000,2000", "--world", "--start", "1005,2014", "--goal", "1055,2054",
        "--vehicle", "dubins", "--turning-radius", "6", "--goal-heading", "-45"});
  std::string header;
  const auto world = rows(header);
  CHECK(header == "path,x,y,world_x,world_y,heading_deg");
  CHECK(world.back()[2] == doctest::Approx(-45.0));

  CHECK_THROWS_WITH_AS(plan({"--start", "10,100", "--goal", "110,20", "--turning-radius", "12"}),
                       doctest::Contains("--turning-radius requires --vehicle"), CLI::ParseError);
  CHECK_THROWS_WITH_AS(plan({"--start", "10,100", "--goal", "110,20", "--vehicle", "dubins"}),
                       doctest::Contains("--vehicle requires --turning-radius"), CLI::ParseError);
  CHECK_THROWS_WITH_AS(plan({"--start", "10,100", "--goal", "110,20", "--start-heading", "10"}),
                       doctest::Contains("--start-heading requires --vehicle"), CLI::ParseError);
  CHECK_THROWS_AS(plan({"--start", "10,100", "--goal", "110,20", "--vehicle", "dubins", "--turning-radius", "-2"}),
                  CLI::ParseError);
  CHECK_THROWS_AS(plan({"--start", "10,100", "--goal", "110,20", "--vehicle", "bicycle", "--turning-radius", "2"}),
                  CLI::ParseError);
  CHECK_THROWS_WITH_AS(plan({"--start", "10,100", "--goal", "110,20", "--vehicle", "dubins", "--turning-radius", "2",
                             "--planner", "prmstar"}),
                       doctest::Contains("prmstar cannot plan for a dubins vehicle"), InvalidArgument);
}

TEST_CASE("mmp train --validate leaves each training image out in turn and writes no model" * doctest::test_suite("long")) {
  test::TempDir dir;
  syntheticConfig(dir);  // writes demo.yaml
  CLI::App app;
  addTrainCommand(app);
  app.parse(std::vector<std::string>{"--validate", dir.file("out"), "--output-dir", dir.file("demo.yaml"), "train"});
  std::ifstream in(dir.file("out/validation.json"));
  REQUIRE(in);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("\"synthetic-1\"") != std::string::npos);  // one fold per training image
  CHECK(text.find("\"synthetic-2\"") != std::string::npos);
  CHECK(text.find("\"synthetic-3\"") == std::string::npos);  // holdout images stay unused
  CHECK(text.find("\"learned\"") != std::string::npos);
  CHECK_FALSE(std::ifstream(dir.file("out/model.mmp")).good());
  // Every scored pair is in validation_pairs.csv; `mmp compare` reads it (a run against itself: no difference).
  const std::vector<PairRecord> records = readPairRecords(dir.file("out/validation_pairs.csv"));
  CHECK(records.size() == 2 * 20 * 3);  // 2 folds x 20 pairs x 3 methods
  const MatchedPairs matched = matchPairs(records, records, "classifier", "a", "b");
  REQUIRE(matched.size() == 2);
  CHECK(matched.at("synthetic-1").first.size() == 20);
  CLI::App compare;
  addCompareCommand(compare);
  CHECK_NOTHROW(compare.parse(std::vector<std::string>{dir.file("out"), dir.file("out"), "compare"}));
  // Runs of another behaviour share the pairs but not their meaning: refused, naming both.
  std::filesystem::create_directory(dir.file("other"));
  std::filesystem::copy_file(dir.file("out/validation_pairs.csv"), dir.file("other/validation_pairs.csv"));
  std::ofstream(dir.file("other/validation.json")) << R"({"behaviour": "hide_in_vegetation"})";
  CLI::App compare2;
  addCompareCommand(compare2);
  CHECK_THROWS_WITH_AS(compare2.parse(std::vector<std::string>{dir.file("other"), dir.file("out"), "compare"}),
                       doctest::Contains(("scored behaviour 'follow_road' and B (" + dir.file("other") +
                                          ") behaviour 'hide_in_vegetation'").c_str()),
                       DataError);
}

TEST_CASE("JSON output keeps key order, writes non-finite numbers as null and doubles that read back bit for bit") {
  const std::vector<double> values = {0.1, 1.0 / 3.0, 2.0 / 3.0, 1e-300, 5e-324, 2.2250738585072014e-308,
                                      1.7976931348623157e308, -0.0, 123456789.123456789, 0.30000000000000004};
  Json out = Json::object();
  out["behaviour"] = "follow \"road\"";
  out["methods"] = {{"cost_ratio_mean", 1.25}, {"pairs", 30}};
  out["values"] = values;
  out["nan"] = std::nan("");
  out["inf"] = std::numeric_limits<double>::infinity();
  out["minus_inf"] = -std::numeric_limits<double>::infinity();
  const std::string text = jsonText(out);
  CHECK(text.rfind("{\n  \"behaviour\": \"follow \\\"road\\\"\",\n  \"methods\": {\n    \"cost_ratio_mean\": 1.25,\n"
                   "    \"pairs\": 30\n  },", 0) == 0);
  CHECK(text.find("\"nan\": null") != std::string::npos);
  CHECK(text.find("\"inf\": null") != std::string::npos);
  CHECK(text.find("\"minus_inf\": null") != std::string::npos);
  CHECK(text.find("NaN") == std::string::npos);
  CHECK(text.find("Infinity") == std::string::npos);

  const Json back = Json::parse(text);
  CHECK(back["nan"].is_null());
  CHECK(back["inf"].is_null());
  REQUIRE(back["values"].size() == values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    CAPTURE(values[i]);
    const double read = back["values"][i].get<double>();
    std::uint64_t a = 0, b = 0;
    std::memcpy(&a, &values[i], sizeof a);
    std::memcpy(&b, &read, sizeof b);
    CHECK(a == b);
  }
  // A name that is not UTF-8 (Latin-1 bytes) is written, not thrown on.
  CHECK(jsonText(Json{{"tile", std::string("caf\xe9")}}).find("caf") != std::string::npos);
}

TEST_CASE("mmp train writes metrics.json with every digit, the training curve and null for a missing figure") {
  test::TempDir dir;
  const TrainConfig config = demonstrationFileConfig(dir);
  CLI::App app;
  addTrainCommand(app);
  app.parse(std::vector<std::string>{dir.file("out"), "--output-dir", dir.file("files.yaml"), "train"});
  std::ifstream in(dir.file("out/metrics.json"));
  REQUIRE(in);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const Json metrics = Json::parse(text);  // strict JSON: a nan or inf token would throw here
  CHECK(metrics["classifier_cost_scale"].is_null());  // no classifier: the training image has no labels
  CHECK(metrics["learner"] == "batch");
  CHECK(metrics["trace_value"] == "objective c(w), eq. 4");

  // The model records its provenance: version, config, data fingerprints, holdout figures (`mmp info`).
  const CostModel saved = CostModel::load(dir.file("out/model.mmp"));
  const auto& info = saved.info();
  CHECK(info.at("mmp_version").find(" (commit ") != std::string::npos);
  CHECK(info.at("data").find("train train.png fnv1a64:" + fileChecksum(dir.file("train.png")) + "\n") != std::string::npos);
  CHECK(info.at("data").find("train paths.csv fnv1a64:" + fileChecksum(dir.file("paths.csv")) + "\n") != std::string::npos);
  CHECK(info.at("config_effective").find("behaviour:") != std::string::npos);
  CHECK(std::stod(info.at("holdout_learned_cost_ratio")) == metrics["methods"]["learned"]["cost_ratio_mean"].get<double>());
  CHECK(info.at("holdout").find("1 images (synthetic-6), 3 start/goal pairs") == 0);
  CHECK_FALSE(saved.domain().empty());
  CLI::App info_app;
  addInfoCommand(info_app);
  CHECK_NOTHROW(info_app.parse(std::vector<std::string>{"--json", dir.file("out/model.mmp"), "info"}));
  CLI::App info_data;
  addInfoCommand(info_data);
  CHECK_NOTHROW(info_data.parse(std::vector<std::string>{"--data", dir.file("out/model.mmp"), "info"}));

  // The same training in this process gives the same numbers; the file holds them bit for bit.
  const TrainedCostModel trained = train(loadTrainingData(config), config);
  const TrainingReport& planner = trained.report;
  CHECK(metrics["objective"].get<double>() == planner.objective);
  CHECK(metrics["bias"].get<double>() == planner.bias);
  CHECK(metrics["epochs"].get<long>() == planner.passes);
  REQUIRE(planner.trace.size() == 5);
  REQUIRE(metrics["trace"].size() == planner.trace.size());
  for (std::size_t i = 0; i < planner.trace.size(); ++i) {
    CHECK(metrics["trace"][i]["iteration"].get<long>() == planner.trace[i].iteration);
    CHECK(metrics["trace"][i]["value"].get<double>() == planner.trace[i].value);
    CHECK(metrics["trace"][i]["weight_norm"].get<double>() == planner.trace[i].weight_norm);
  }
}

TEST_CASE("evaluation.class_mean: metrics.json says what misread cells cost, apart from the baselines") {
  test::TempDir dir;
  demonstrationFileConfig(dir);
  CLI::App app;
  addTrainCommand(app);
  app.parse(std::vector<std::string>{"evaluation.class_mean=true", "--set", dir.file("out"), "--output-dir",
                                     dir.file("files.yaml"), "train"});
  std::ifstream in(dir.file("out/metrics.json"));
  REQUIRE(in);
  const Json metrics = Json::parse(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
  REQUIRE(metrics["methods"].contains("class_mean"));
  CHECK_FALSE(metrics["learned_vs"].contains("class_mean"));  // no baseline: it reads the labels
  const Json& misread = metrics["misread_cells"];
  CHECK(misread["gap"].get<double>() == doctest::Approx(metrics["methods"]["learned"]["cost_ratio_mean"].get<double>() -
                                                          metrics["methods"]["class_mean"]["cost_ratio_mean"].get<double>()));
  CHECK(misread["ci95_low"].get<double>() <= misread["ci95_high"].get<double>());
  // The model file records the model's own figures, not the diagnostic's.
  const CostModel saved = CostModel::load(dir.file("out/model.mmp"));
  const auto& info = saved.info();
  CHECK(info.count("holdout_learned_cost_ratio") == 1);
  CHECK(info.count("holdout_class_mean_cost_ratio") == 0);
}

TEST_CASE("mmp costmap --nav2: lethal cells by quantile, a local origin, a folder mmp did not write kept, degrees refused") {
  test::TempDir dir;
  saveModelAndScene(dir);
  const auto costmap = [&](std::vector<std::string> args) {
    args.insert(args.end(), {"--resolution", "0.5", "--image", dir.file("scene.png"), "--model", dir.file("m.mmp")});
    std::reverse(args.begin(), args.end());
    args.push_back("costmap");
    CLI::App app;
    addCostmapCommand(app);
    app.parse(args);
  };
  costmap({"--nav2", dir.file("nav2"), "--origin", "320000,2777262", "--crs", "EPSG:32640", "--nav2-origin", "local",
           "--lethal-quantile", "0.9"});
  const YAML::Node yaml = YAML::LoadFile(dir.file("nav2/map.yaml"));
  CHECK(yaml["origin"].as<std::vector<double>>() == std::vector<double>{0.0, 0.0, 0.0});
  const cv::Mat values = cv::imread(dir.file("nav2/map.pgm"), cv::IMREAD_UNCHANGED);
  const double lethal_share = cv::countNonZero(values == 100) / static_cast<double>(values.total());
  CHECK(lethal_share > 0.05);  // the dearest tenth, give or take ties
  CHECK(lethal_share < 0.15);

  std::filesystem::create_directory(dir.file("mine"));
  std::ofstream(dir.file("mine/map.yaml")) << "image: my_own.pgm\n";
  CHECK_THROWS_WITH(costmap({"--nav2", dir.file("mine"), "--origin", "0,0"}), doctest::Contains("mmp did not write"));
  std::ifstream kept(dir.file("mine/map.yaml"));
  CHECK(std::string(std::istreambuf_iterator<char>(kept), std::istreambuf_iterator<char>()) == "image: my_own.pgm\n");

  CHECK_THROWS_WITH_AS(costmap({"--nav2", dir.file("deg"), "--origin", "55.2,25.1", "--crs", "EPSG:4326"}),
                       doctest::Contains("gdalwarp -t_srs EPSG:326"), InvalidArgument);
  CHECK_THROWS_WITH_AS(costmap({"--png", dir.file("c.png"), "--origin", "0,0", "--lethal-above", "3"}),
                       doctest::Contains("give --nav2 DIR too"), InvalidArgument);
  CLI::App plain;  // no georeference and no frame given: the error names the flags that give one
  addCostmapCommand(plain);
  CHECK_THROWS_WITH_AS(plain.parse(std::vector<std::string>{dir.file("plain"), "--nav2", dir.file("scene.png"), "--image",
                                                            dir.file("m.mmp"), "--model", "costmap"}),
                       doctest::Contains("give a GeoTIFF, or --resolution (world units per pixel) and --origin X,Y"),
                       InvalidArgument);

  CLI::App plan;
  addPlanCommand(plan);
  CHECK_THROWS_WITH_AS(plan.parse(std::vector<std::string>{dir.file("p.csv"), "--out", "55.2001,25.1001", "--goal", "55.2002,25.1002", "--start", "--world",
                                                           "EPSG:4326", "--crs", "55.2,25.1", "--origin", "0.00001",
                                                           "--resolution", dir.file("scene.png"), "--image",
                                                           dir.file("m.mmp"), "--model", "plan"}),
                       doctest::Contains("geographic (longitude and latitude in degrees)"), InvalidArgument);
}

TEST_CASE("mmp adapt teaches a saved model from a path file, writes the adapted model and a picture, never the parent") {
  test::TempDir dir;
  saveModelAndScene(dir);
  std::ifstream parent_in(dir.file("m.mmp"), std::ios::binary);
  const std::string parent_bytes((std::istreambuf_iterator<char>(parent_in)), std::istreambuf_iterator<char>());
  std::ofstream(dir.file("paths.csv")) << "path,x,y\n1,2,2\n1,2,100\n1,100,100\n2,120,10\n2,60,60\n";
  CLI::App app;
  addAdaptCommand(app);
  app.parse(std::vector<std::string>{"1", "--threads", dir.file("a.png"), "--png", dir.file("a.mmp"), "--out",
                                     dir.file("paths.csv"), "--demonstrations", dir.file("scene.png"), "--image",
                                     dir.file("m.mmp"), "adapt"});  // CLI11 takes the arguments in reverse order
  const CostModel adapted = CostModel::load(dir.file("a.mmp"));
  const std::string& demos = adapted.info().at("adapted_demonstrations");
  CHECK(std::count(demos.begin(), demos.end(), '\n') == 1);  // two demonstrations
  CHECK(adapted.info().at("adapted_images").find("scene.png") != std::string::npos);
  CHECK(adapted.info().at("adapted_from").find(fileChecksum(dir.file("m.mmp"))) != std::string::npos);
  CHECK(cv::imread(dir.file("a.png")).cols > 256);  // two maps side by side

  const auto refused = [&](std::vector<std::string> args, const char* message) {
    CLI::App bad;
    addAdaptCommand(bad);
    CHECK_THROWS_WITH(bad.parse(args), doctest::Contains(message));
  };
  refused({dir.file("m.mmp"), "--out", dir.file("paths.csv"), "--demonstrations", dir.file("scene.png"), "--image",
           dir.file("m.mmp"), "adapt"},
          "is the parent model");
  std::ofstream(dir.file("off.csv")) << "path,x,y\n1,2,2\n1,500,2\n";
  refused({dir.file("b.mmp"), "--out", dir.file("off.csv"), "--demonstrations", dir.file("scene.png"), "--image",
           dir.file("m.mmp"), "adapt"},
          "off.csv");
  refused({dir.file("b.mmp"), "--out", dir.file("scene.png"), "--image", dir.file("paths.csv"), "--demonstrations",
           dir.file("scene.png"), "--image", dir.file("m.mmp"), "adapt"},
          "give one file of paths per image");
  CHECK_FALSE(std::ifstream(dir.file("b.mmp")).good());
  std::ifstream parent_after(dir.file("m.mmp"), std::ios::binary);
  CHECK(std::string((std::istreambuf_iterator<char>(parent_after)), std::istreambuf_iterator<char>()) == parent_bytes);
}

TEST_CASE("mmp adapt MODEL CONFIG: paths alone, held-out scores, pictures, and bad configs refused with nothing written") {
  test::TempDir dir;
  saveModelAndScene(dir);
  std::ofstream(dir.file("paths.csv")) << "path,x,y\n1,2,2\n1,2,100\n1,100,100\n2,120,10\n2,60,60\n3,10,120\n3,120,120\n";
  std::ofstream(dir.file("teach.yaml")) << "output_dir: " << dir.file("out") << "\nteach:\n  - {image: scene.png, demonstrations: paths.csv}\n"
                                        << "adapt: {epochs: 2}\n";
  CLI::App app;
  addAdaptCommand(app);
  app.parse(std::vector<std::string>{dir.file("teach.yaml"), dir.file("m.mmp"), "adapt"});
  const CostModel adapted = CostModel::load(dir.file("out/model.mmp"));
  const std::string& demos = adapted.info().at("adapted_demonstrations");
  CHECK(std::count(demos.begin(), demos.end(), '\n') == 2);  // three demonstrations
  std::ifstream metrics_in(dir.file("out/metrics.json"));
  const std::string metrics((std::istreambuf_iterator<char>(metrics_in)), std::istreambuf_iterator<char>());
  CHECK(metrics.find("\"held_out\"") != std::string::npos);
  CHECK(metrics.find("\"adapted_vs_parent_loss\"") != std::string::npos);
  CHECK(cv::imread(dir.file("out/teach_scene.png")).cols > 256);
  CLI::App choosing;  // a list of lambdas: one chosen by the held-out loss, the candidates in metrics.json
  addAdaptCommand(choosing);
  choosing.parse(std::vector<std::string>{"adapt.lambda=[3, 30, 300]", "--set", dir.file("teach.yaml"), dir.file("m.mmp"), "adapt"});
  std::ifstream chosen_in(dir.file("out/metrics.json"));
  const std::string chosen((std::istreambuf_iterator<char>(chosen_in)), std::istreambuf_iterator<char>());
  CHECK(chosen.find("\"lambda_selection\"") != std::string::npos);
  CHECK(chosen.find("\"held_out_loss\"") != std::string::npos);
  CLI::App flagged;  // a setting flag beside a config acts as its --set: over the file's epochs: 2
  addAdaptCommand(flagged);
  flagged.parse(std::vector<std::string>{"3", "--epochs", dir.file("teach.yaml"), dir.file("m.mmp"), "adapt"});
  CHECK(CostModel::load(dir.file("out/model.mmp")).info().at("adapted_by").find("at most 3 passes") != std::string::npos);

  const auto refused = [&](const std::string& yaml, const char* message) {
    std::ofstream(dir.file("bad.yaml")) << "output_dir: " << dir.file("bad_out") << "\n" << yaml;
    CLI::App bad;
    addAdaptCommand(bad);
    CHECK_THROWS_WITH(bad.parse(std::vector<std::string>{dir.file("bad.yaml"), dir.file("m.mmp"), "adapt"}),
                      doctest::Contains(message));
    CHECK_FALSE(std::filesystem::exists(dir.file("bad_out")));
  };
  refused("teach: [{image: scene.png, demonstrations: paths.csv}]\nfeatures: {cell_size: 8}\n", "features: does not apply to mmp adapt");
  refused("teach: [{image: scene.png, demonstrations: paths.csv}]\nholdout: [{image: scene.png, labels: scene.png}]\n",
          "applies with a behaviour only");
  refused("adapt: {lambda: 3}\n", "teach: required");
  refused("teach: [{image: scene.png, demonstrations: paths.csv}]\nadapt: {lambda: -1}\n", "adapt.lambda");
  refused("teach: [{image: scene.png, demonstrations: paths.csv}]\nadapt: {network_step: 0}\n", "adapt.network_step");
  refused("teach: [{image: scene.png, demonstrations: paths.csv}]\nadapt: {network_epochs: 0}\n", "adapt.network_epochs");
  refused("teach: [{image: scene.png, demonstrations: paths.csv}]\nadapt: {lambda: [30, abc]}\n", "adapt.lambda[1]");
  std::ofstream(dir.file("off.csv")) << "path,x,y\n1,2,2\n1,500,2\n";
  refused("teach: [{image: scene.png, demonstrations: off.csv}]\n", "off.csv");
}

TEST_CASE("mmp train from paths alone: no behaviour, no holdout, folds of the demonstrations held out, a picture of the fit") {
  test::TempDir dir;
  saveModelAndScene(dir);
  std::ofstream(dir.file("paths.csv")) << "path,x,y\n1,2,2\n1,2,100\n1,100,100\n2,120,10\n2,60,60\n3,10,120\n3,120,120\n";
  std::ofstream(dir.file("paths.yaml")) << "output_dir: " << dir.file("out") << "\ntrain:\n  - {image: scene.png, demonstrations: paths.csv}\n"
                                        << "features: {cell_size: 4, bins: 5, blur_sigmas: [0, 4], texture_windows: [7]}\n"
                                        << "learner: {kind: online, online: {epochs: 3}}\n";
  CLI::App app;
  addTrainCommand(app);
  app.parse(std::vector<std::string>{dir.file("paths.yaml"), "train"});
  CHECK(CostModel::load(dir.file("out/model.mmp")).weights().size() > 1);
  std::ifstream metrics_in(dir.file("out/metrics.json"));
  const std::string metrics((std::istreambuf_iterator<char>(metrics_in)), std::istreambuf_iterator<char>());
  CHECK(metrics.find("\"learned_vs_uniform_loss\"") != std::string::npos);
  CHECK(cv::imread(dir.file("out/fit_scene.png")).cols > 100);
  if (networkTrainingAvailable()) {  // a network from paths alone: its fit picture and held-out folds from the image
    std::ofstream(dir.file("net.yaml")) << "output_dir: " << dir.file("net") << "\ntrain:\n  - {image: scene.png, demonstrations: paths.csv}\n"
                                        << "learner: {kind: network, network: {epochs: 1, channels: 2, dilations: [1]}}\n";
    CLI::App net;
    addTrainCommand(net);
    net.parse(std::vector<std::string>{"1", "--threads", dir.file("net.yaml"), "train"});
    CHECK(CostModel::load(dir.file("net/model.mmp")).readsPixels());
    CHECK(cv::imread(dir.file("net/fit_scene.png")).cols > 100);
  }

  std::ofstream(dir.file("empty.yaml")) << "output_dir: " << dir.file("bad") << "\ntrain: [{image: scene.png, demonstrations: paths.csv}]\n"
                                        << "holdout: []\n";
  CLI::App bad;
  addTrainCommand(bad);
  CHECK_THROWS_WITH(bad.parse(std::vector<std::string>{dir.file("empty.yaml"), "train"}), doctest::Contains("leave the key out"));
  std::ofstream(dir.file("labels.yaml")) << "output_dir: " << dir.file("bad") << "\ntrain: [{image: scene.png, labels: scene.png}]\n";
  CLI::App labels;
  addTrainCommand(labels);
  CHECK_THROWS_WITH(labels.parse(std::vector<std::string>{dir.file("labels.yaml"), "train"}), doctest::Contains("behaviour: required"));
  CHECK_FALSE(std::filesystem::exists(dir.file("bad")));
}

TEST_CASE("mmp suggest writes the pairs it values most, their ends apart, and a picture") {
  test::TempDir dir;
  saveModelAndScene(dir);
  CLI::App app;
  addSuggestCommand(app);
  app.parse(std::vector<std::string>{"40", "--min-separation-px", "3", "--n", dir.file("next.png"), "--png", dir.file("next.csv"),
                                     "--out", dir.file("scene.png"), "--image", dir.file("m.mmp"), "suggest"});
  std::ifstream csv(dir.file("next.csv"));
  std::string line;
  std::getline(csv, line);
  CHECK(line == "pair,start_x,start_y,goal_x,goal_y,value");  // the default rule, change
  std::vector<double> values;
  while (std::getline(csv, line)) values.push_back(std::stod(line.substr(line.rfind(',') + 1)));
  REQUIRE(!values.empty());
  CHECK(values.size() <= 3);
  CHECK(std::is_sorted(values.rbegin(), values.rend()));  // the most valuable first
  CHECK(cv::imread(dir.file("next.png")).cols > 128);  // the cost map and its colour bar
  CLI::App committee;
  addSuggestCommand(committee);
  committee.parse(std::vector<std::string>{"committee", "--rule", "40", "--min-separation-px", "3", "--n", dir.file("c.csv"), "--out",
                                           dir.file("scene.png"), "--image", dir.file("m.mmp"), "suggest"});
  std::ifstream committee_csv(dir.file("c.csv"));
  std::getline(committee_csv, line);
  CHECK(line == "pair,start_x,start_y,goal_x,goal_y,value_cells");
  CLI::App bad;
  addSuggestCommand(bad);
  CHECK_THROWS_WITH_AS(bad.parse(std::vector<std::string>{"density", "--rule", dir.file("d.csv"), "--out", dir.file("scene.png"),
                                                          "--image", dir.file("m.mmp"), "suggest"}),
                       doctest::Contains("--rule: suggest.rule: expected one of change, committee, got 'density'"), CLI::ValidationError);
  CHECK_FALSE(std::filesystem::exists(dir.file("d.csv")));
}

TEST_CASE("mmp costmap refuses a NaN lethal quantile or cost by name instead of taking it as not given") {
  test::TempDir dir;
  saveModelAndScene(dir);
  const auto refused = [&](const std::string& flag, const char* message) {
    CLI::App app;
    addCostmapCommand(app);
    CHECK_THROWS_WITH(app.parse(std::vector<std::string>{"nan", flag, dir.file("nav2"), "--nav2", dir.file("scene.png"),
                                                         "--image", dir.file("m.mmp"), "--model", "costmap"}),
                      doctest::Contains(message));
  };
  refused("--lethal-quantile", "--lethal-quantile nan: give the share");
  refused("--lethal-above", "--lethal-above nan: give a cost > 0");
  CLI::App without_nav2;
  addCostmapCommand(without_nav2);
  CHECK_THROWS_WITH(without_nav2.parse(std::vector<std::string>{"nan", "--lethal-above", dir.file("c.png"), "--png",
                                                                dir.file("scene.png"), "--image", dir.file("m.mmp"), "--model",
                                                                "costmap"}),
                    doctest::Contains("--lethal-above nan"));
}
