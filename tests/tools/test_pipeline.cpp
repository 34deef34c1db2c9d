#include "maps/maps_support.hpp"

#include "commands.hpp"
#include "demonstration_file.hpp"
#include "json_output.hpp"
#include "pipeline.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/model_file.hpp>
#include <mmp/maps/imagery.hpp>
#include <mmp/planning/grid_planner.hpp>
#include <mmp/planning/path.hpp>

#include <doctest/doctest.h>
#include <opencv2/imgcodecs.hpp>

#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <set>

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

TEST_CASE("generated demonstrations are optimal under the behaviour's costs") {
  test::TempDir dir;
  const TrainConfig config = syntheticConfig(dir);
  const Training training = loadTrainingRegions(config);
  REQUIRE(training.regions.size() == 2);
  for (const Region& r : training.regions) {
    REQUIRE(r.demonstrations.size() == 10);
    GridPlanner planner(r.rows(), r.cols());
    for (const std::vector<int>& demo : r.demonstrations) {
      CHECK(pathLength(demo, r.cols()) >= 100.0 / 4 - 1e-9);
      planner.plan(r.true_costs, demo.front(), -1);  // Dijkstra from the start over the whole grid
      const double cost = pathIntegral(demo, r.cols(), r.true_costs);
      CHECK(std::isfinite(cost));
      CHECK(cost == doctest::Approx(planner.distance(demo.back())).epsilon(1e-9));
    }
  }
  // The scaled feature maps of the training images stay in [0, 1] and carry the stack's names.
  const FeatureMap& map = *training.regions[0].map;
  CHECK(map.names() == training.stack.names());
  for (float v : map.values()) REQUIRE((v >= 0.0f && v <= 1.0f));
}

TEST_CASE("the class-weighted loss factor is 0 on the cheapest class, 1 on the dearest and on impassable cells") {
  test::TempDir dir;
  TrainConfig config = syntheticConfig(dir);
  const Training training = loadTrainingRegions(config);
  const Region& r = training.regions[0];
  CHECK(classLossWeights(r, config) == nullptr);
  config.loss.by_class = true;
  const auto weights = classLossWeights(r, config);
  REQUIRE(weights != nullptr);
  REQUIRE(weights->size() == static_cast<std::size_t>(r.cells()));
  // Costs Road 1, Land 6, Vegetation 8, Building 40, Water inf: factors 0, 5/39, 7/39, 1, 1.
  const std::map<int, double> expected = {{2, 0.0}, {1, 5.0 / 39.0}, {3, 7.0 / 39.0}, {0, 1.0}, {4, 1.0}};
  std::set<int> seen;
  for (int s = 0; s < r.cells(); ++s) {
    const int label = r.cell_labels[static_cast<std::size_t>(s)];
    REQUIRE(expected.count(label) == 1);
    seen.insert(label);
    REQUIRE((*weights)[static_cast<std::size_t>(s)] == doctest::Approx(expected.at(label)));
  }
  CHECK(seen.size() == 5);
  // loss.impassable_factor k: the passable classes' factors divided by k, impassable (water) still 1.
  config.loss.impassable_factor = 4.0;
  const auto scaled = classLossWeights(r, config);
  for (int s = 0; s < r.cells(); ++s) {
    const int label = r.cell_labels[static_cast<std::size_t>(s)];
    REQUIRE((*scaled)[static_cast<std::size_t>(s)] == doctest::Approx(label == 4 ? 1.0 : expected.at(label) / 4.0));
  }
}

TEST_CASE("class scores: the multiclass layer fitted on the training labels tells the classes apart on a held-out scene") {
  test::TempDir dir;
  TrainConfig config = syntheticConfig(dir);
  config.class_scores = true;
  const Training training = loadTrainingRegions(config);
  const ClassScores* layer = training.stack.classScores();
  REQUIRE(layer != nullptr);
  CHECK(layer->classes.size() == 5);  // the synthetic scene's classes (Unlabeled does not occur)
  CHECK(training.regions[0].map->names() == training.stack.names());
  CHECK(training.stack.names().back() == "margin(" + layer->classes.back() + ")#4");
  CHECK(training.stack.baseFeatures() == training.stack.features() - 5 * 5);
  const std::optional<LinearClassifier> baseline = trainBaseline(training, config, 1);
  REQUIRE(baseline);
  CHECK(baseline->direction.size() == training.stack.baseFeatures());  // the baseline never sees the class scores

  // On a held-out scene the class of the highest score is the cell's label far more often than the
  // most frequent class alone would be.
  Region holdout = loadRegion(config.holdout[0], config);
  const FeatureMap map = training.stack.map(holdout.raw);
  std::map<int, int> count;
  int right = 0;
  const Eigen::Index base = layer->weights.cols();
  for (int s = 0; s < map.cells(); ++s) {
    const Eigen::VectorXd f = map.cellVector(s).head(base).cast<double>();
    Eigen::Index best = 0;
    (layer->weights * f).maxCoeff(&best);
    const int label = holdout.cell_labels[static_cast<std::size_t>(s)];
    ++count[label];
    for (const LabelClass& c : config.classes) {
      if (c.index == label) right += layer->classes[static_cast<std::size_t>(best)] == c.name;
    }
  }
  int most = 0;
  for (const auto& [label, n] : count) most = std::max(most, n);
  const double accuracy = static_cast<double>(right) / map.cells(), majority = static_cast<double>(most) / map.cells();
  MESSAGE("class-score accuracy on a held-out scene " << accuracy << ", most frequent class " << majority
                                                       << ", on the drawn training cells " << training.class_score_accuracy);
  CHECK(accuracy > majority + 0.2);
}

TEST_CASE("on the synthetic scene the learned planner beats uniform costs on held-out scenes") {
  test::TempDir dir;
  TrainConfig config = syntheticConfig(dir);
  SUBCASE("linear costs") {}
  SUBCASE("exponential costs") {
    config.learner.costs = CostForm::Exponential;
    config.learner.batch.steps = StepSchedule::constant(0.1);  // steps move log-costs: smaller ones
  }
  CAPTURE(describe(config.learner.costs));
  const Training training = loadTrainingRegions(config);
  const TrainedPlanner planner = trainPlanner(training, config, 1);
  CHECK(planner.epochs == 60);
  CHECK(planner.examples == 20);
  CHECK(planner.cost_range[0] > 0.0);
  CHECK(planner.cost_range[1] > planner.cost_range[0]);
  if (config.learner.costs == CostForm::Linear) {
    CHECK(planner.weights.minCoeff() >= 0.0);  // the positive-cost set
    CHECK(planner.bias > 0.0);
    CHECK(planner.bias <= planner.bias_floor);
  }
  const std::optional<LinearClassifier> classifier = trainBaseline(training, config, 1);
  REQUIRE(classifier);
  std::vector<PlanScore> learned, uniform, classified;
  for (int i = 0; i < 2; ++i) {
    const HoldoutResult h = evaluateHoldout(config, i, training.stack, planner.weights, &*classifier);
    CHECK(h.references.size() == 20);
    learned.insert(learned.end(), h.scores.at("learned").begin(), h.scores.at("learned").end());
    uniform.insert(uniform.end(), h.scores.at("uniform").begin(), h.scores.at("uniform").end());
    classified.insert(classified.end(), h.scores.at("classifier").begin(), h.scores.at("classifier").end());
  }
  const MethodSummary l = summarise(learned), u = summarise(uniform);
  MESSAGE("holdout cost ratio: learned " << l.cost_ratio_mean << ", uniform " << u.cost_ratio_mean << ", classifier "
                                          << summarise(classified).cost_ratio_mean);
  CHECK(l.cost_ratio_mean >= 1.0);
  CHECK(l.cost_ratio_mean < u.cost_ratio_mean);
  CHECK(l.preferred_share > u.preferred_share);
  CHECK(l.dist_mean_px < u.dist_mean_px);
}

TEST_CASE("plan scores: a reference scores perfectly against itself, percentiles by nearest rank") {
  test::TempDir dir;
  const TrainConfig config = syntheticConfig(dir);
  Region region = loadRegion(config.holdout[0], config);
  GridPlanner planner(region.rows(), region.cols());
  const int start = 5 * region.cols() + 5, goal = (region.rows() - 6) * region.cols() + region.cols() - 6;
  const PlanResult best = planner.plan(region.true_costs, start, goal);
  REQUIRE(best.status == PlanStatus::Success);
  PlanScorer scorer(region, config.behaviour.preferred, 100.0, 4);
  scorer.setReference(best.path);
  const PlanScore self = scorer.score(best.path);
  CHECK(self.cost_ratio == doctest::Approx(1.0));
  CHECK(self.feasible);
  for (double d : self.distances_px) CHECK(d == 0.0);
  const PlanResult straight =
      planner.plan(std::vector<double>(static_cast<std::size_t>(region.cells()), 1.0), start, goal);
  const PlanScore other = scorer.score(straight.path);
  CHECK(other.cost_ratio >= 1.0);

  CHECK(percentile({}, 0.95) == 0.0);
  CHECK(percentile({3, 1, 2}, 0.0) == 1.0);
  CHECK(percentile({3, 1, 2}, 0.5) == 2.0);
  std::vector<double> hundred;
  for (int i = 1; i <= 100; ++i) hundred.push_back(i);
  CHECK(percentile(hundred, 0.95) == 95.0);
  const MethodSummary m = summarise({self, other});
  CHECK(m.pairs == 2);
  CHECK(m.cost_ratio_mean == doctest::Approx((1.0 + other.cost_ratio) / 2));
  CHECK(m.feasible_share <= 1.0);
}

TEST_CASE("paired comparisons: the gain is the mean difference, its bootstrap interval brackets it") {
  auto scores = [](std::vector<double> ratios) {
    std::vector<PlanScore> out(ratios.size());
    for (std::size_t k = 0; k < ratios.size(); ++k) out[k].cost_ratio = ratios[k];
    return out;
  };
  const std::vector<PlanScore> a = scores({1.0, 1.2, 1.5, 3.0, 1.1, 1.0, 2.0, 1.3});
  PairedComparison c = comparePaired(a, a);
  CHECK(c.gain == 0.0);
  CHECK(c.low == 0.0);
  CHECK(c.high == 0.0);
  c = comparePaired(a, scores({1.5, 1.7, 2.0, 3.5, 1.6, 1.5, 2.5, 1.8}));  // every pair 0.5 worse
  CHECK(c.gain == doctest::Approx(0.5));
  CHECK(c.low == doctest::Approx(0.5));
  CHECK(c.high == doctest::Approx(0.5));
  c = comparePaired(a, scores({1.0, 1.0, 4.0, 1.0, 1.0, 1.0, 1.0, 1.0}));  // one big win, many small losses
  CHECK(c.gain == doctest::Approx((0.0 - 0.2 + 2.5 - 2.0 - 0.1 + 0.0 - 1.0 - 0.3) / 8));
  CHECK(c.low < c.gain);
  CHECK(c.high > c.gain);
  CHECK(c.low < 0.0);  // eight pairs cannot tell this apart from chance
  CHECK(comparePaired(a, scores({1.0, 1.0, 4.0, 1.0, 1.0, 1.0, 1.0, 1.0}), 10000, 1).low == c.low);  // seeded
  CHECK_THROWS_AS(comparePaired(a, scores({1.0})), InvalidArgument);
}

TEST_CASE("mmp plan and mmp costmap use a saved model on a new image") {
  test::TempDir dir;
  const TrainConfig config = syntheticConfig(dir);
  const Training training = loadTrainingRegions(config);
  Model model;
  model.weights = Eigen::VectorXd::Zero(training.stack.features());
  model.weights[kBiasIndex] = 1.0;
  model.weights[3] = 2.0;
  training.stack.store(model);
  saveModel(dir.file("m.mmp"), model);
  SyntheticSceneParams p;
  p.seed = 9;
  p.rows = p.cols = 128;
  REQUIRE(cv::imwrite(dir.file("scene.png"), makeSyntheticScene(p).image));

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
  CHECK(cv::imread(dir.file("plan.png")).size() == cv::Size(128, 128));

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
  CHECK_THROWS_AS(app3.parse(std::vector<std::string>{"900,4", "--goal", "3,4", "--start", dir.file("scene.png"),
                                                      "--image", dir.file("m.mmp"), "--model", "plan"}),
                  InvalidArgument);
}

TEST_CASE("mmp train --validate leaves each training image out in turn and writes no model") {
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
}

TEST_CASE("pair records: written and read back; runs on other pairs are refused by name") {
  test::TempDir dir;
  std::vector<PlanScore> learned(2), uniform(2);
  learned[0].cost_ratio = 1.25;
  learned[1].cost_ratio = 2.5;
  learned[1].feasible = false;
  uniform[0].cost_ratio = 3.0;
  uniform[1].cost_ratio = 1.0;
  std::vector<PairRecord> records;
  addPairRecords("tile", 10, {{3, 4, 15}, {27, 38}}, {{"learned", learned}, {"uniform", uniform}}, records);
  REQUIRE(records.size() == 4);
  writePairRecords(dir.file("pairs.csv"), records);
  const std::vector<PairRecord> back = readPairRecords(dir.file("pairs.csv"));
  REQUIRE(back.size() == 4);
  CHECK(back[1].region == "tile");
  CHECK(back[1].pair == 1);
  CHECK(back[1].start_row == 2);  // cell 27 of a 10-column grid
  CHECK(back[1].start_col == 7);
  CHECK(back[1].goal_row == 3);
  CHECK(back[1].goal_col == 8);
  CHECK(back[1].method == "learned");
  CHECK(back[1].cost_ratio == 2.5);
  CHECK_FALSE(back[1].feasible);

  const MatchedPairs same = matchPairs(back, records, "learned", "a", "b");
  REQUIRE(same.at("tile").second.size() == 2);
  CHECK(same.at("tile").second[1].cost_ratio == 2.5);
  std::vector<PairRecord> moved = records;
  moved[0].goal_col = 6;
  CHECK_THROWS_WITH_AS(matchPairs(records, moved, "learned", "a", "b"),
                       doctest::Contains("pair 0 of region 'tile' starts or ends at another cell in b than in a"), DataError);
  CHECK_THROWS_WITH_AS(matchPairs(records, {records[0], records[2]}, "learned", "a", "b"),
                       doctest::Contains("a scored 2 pairs, b 1: not the same pairs"), DataError);
  CHECK_THROWS_WITH_AS(matchPairs(records, records, "classifier", "a", "b"),
                       doctest::Contains("a: no pair scored for the method 'classifier'"), DataError);

  std::ofstream(dir.file("bad.csv")) << "region,pair\n";
  CHECK_THROWS_WITH_AS(readPairRecords(dir.file("bad.csv")), doctest::Contains("bad.csv: line 1 must be the header"),
                       DataError);
  std::ifstream in(dir.file("pairs.csv"));
  std::string header;
  std::getline(in, header);
  std::ofstream(dir.file("bad.csv")) << header << "\ntile,0,1,2,3,4,learned,x,1,0.5\n";
  CHECK_THROWS_WITH_AS(readPairRecords(dir.file("bad.csv")), doctest::Contains("bad.csv: line 2: cost_ratio 'x' is not a number"),
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

}  // namespace

TEST_CASE("training images may bring demonstrations from a file instead of labels") {
  test::TempDir dir;
  const TrainConfig config = demonstrationFileConfig(dir);
  REQUIRE(config.train[0].demonstrations == dir.file("paths.csv"));
  const Training training = loadTrainingRegions(config);
  const Region& r = training.regions[0];
  REQUIRE(r.demonstrations.size() == 2);
  CHECK(r.demonstrations[0].front() == 1 * r.cols() + 1);
  CHECK(r.demonstrations[0].back() == 18 * r.cols() + 18);
  CHECK(r.demonstrations[1].back() == 10 * r.cols() + 10);
  CHECK(r.true_costs.empty());
  CHECK_FALSE(trainBaseline(training, config, 1));  // the classifier needs labels
  const TrainedPlanner planner = trainPlanner(training, config, 1);
  CHECK(planner.examples == 2);
  const HoldoutResult h = evaluateHoldout(config, 0, training.stack, planner.weights, nullptr);
  CHECK(h.scores.count("classifier") == 0);
  CHECK(h.scores.at("learned").size() == h.references.size());
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

  // The same training in this process gives the same numbers; the file holds them bit for bit.
  const Training training = loadTrainingRegions(config);
  const TrainedPlanner planner = trainPlanner(training, config, 1);
  CHECK(metrics["objective"].get<double>() == planner.objective);
  CHECK(metrics["bias"].get<double>() == planner.bias);
  CHECK(metrics["epochs"].get<long>() == planner.epochs);
  REQUIRE(planner.trace.size() == 5);
  REQUIRE(metrics["trace"].size() == planner.trace.size());
  for (std::size_t i = 0; i < planner.trace.size(); ++i) {
    CHECK(metrics["trace"][i]["iteration"].get<long>() == planner.trace[i].iteration);
    CHECK(metrics["trace"][i]["value"].get<double>() == planner.trace[i].value);
    CHECK(metrics["trace"][i]["weight_norm"].get<double>() == planner.trace[i].weight_norm);
  }
}
