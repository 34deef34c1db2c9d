// The cost-map pipeline as a library (maps/pipeline.hpp), on small synthetic scenes: settings are
// plain structs here, no YAML.
#include "support.hpp"
#include <mmp/core/numbers.hpp>
#include "maps/training/training_support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/training/pipeline.hpp>
#include <mmp/maps/training/training_run.hpp>
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

namespace {

using test::scene;
using test::syntheticSettings;

}  // namespace

TEST_CASE("generated demonstrations are optimal under the behaviour's costs") {
  const PipelineSettings config = syntheticSettings();
  const TrainingData training = loadTrainingData(config);
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
  PipelineSettings config = syntheticSettings();
  const TrainingData training = loadTrainingData(config);
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
  PipelineSettings config = syntheticSettings();
  config.class_scores = true;
  const TrainingData training = loadTrainingData(config);
  const ClassScores* layer = training.stack.classScores();
  REQUIRE(layer != nullptr);
  CHECK(layer->classes.size() == 5);  // the synthetic scene's classes (Unlabeled does not occur)
  CHECK(training.regions[0].map->names() == training.stack.names());
  CHECK(training.stack.names().back() == "margin(" + layer->classes.back() + ")#4");
  CHECK(training.stack.baseFeatures() == training.stack.features() - 5 * 5);
  const std::optional<LinearClassifier> baseline = trainBaseline(training, config);
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

TEST_CASE("on the synthetic scene the learned planner beats uniform costs on held-out scenes" * doctest::test_suite("long")) {
  PipelineSettings config = syntheticSettings();
  SUBCASE("linear costs") {}
  SUBCASE("exponential costs") {
    config.learner.costs = CostForm::Exponential;
    config.learner.batch.steps = StepSchedule::constant(0.1);  // steps move log-costs: smaller ones
  }
  CAPTURE(describe(config.learner.costs));
  const TrainingData training = loadTrainingData(config);
  const TrainedCostModel trained = train(training, config);
  const TrainingReport& planner = trained.report;
  CHECK(planner.passes == 60);
  CHECK(planner.examples == 20);
  CHECK(planner.cost_range[0] > 0.0);
  CHECK(planner.cost_range[1] > planner.cost_range[0]);
  CHECK(trained.model.form() == config.learner.costs);
  if (config.learner.costs == CostForm::Linear) {
    CHECK(trained.model.weights().minCoeff() >= 0.0);  // the positive-cost set
    CHECK(planner.bias > 0.0);
    CHECK(planner.bias <= planner.bias_floor);
    CHECK(trained.model.weights()[kBiasIndex] == planner.bias);
  }
  const std::optional<LinearClassifier> classifier = trainBaseline(training, config);
  REQUIRE(classifier);
  std::vector<PlanScore> learned, uniform, classified;
  for (int i = 0; i < 2; ++i) {
    const HoldoutResult h = evaluateHoldout(config, i, trained.model, &*classifier);
    CHECK(h.references.size() == 20);
    learned.insert(learned.end(), h.scores.at(Method::Learned).begin(), h.scores.at(Method::Learned).end());
    uniform.insert(uniform.end(), h.scores.at(Method::Uniform).begin(), h.scores.at(Method::Uniform).end());
    classified.insert(classified.end(), h.scores.at(Method::Classifier).begin(), h.scores.at(Method::Classifier).end());
  }
  const MethodSummary l = summarise(learned), u = summarise(uniform);
  MESSAGE("holdout cost ratio: learned " << l.cost_ratio_mean << ", uniform " << u.cost_ratio_mean << ", classifier "
                                          << summarise(classified).cost_ratio_mean);
  CHECK(l.cost_ratio_mean >= 1.0);
  CHECK(l.cost_ratio_mean < u.cost_ratio_mean);
  CHECK(l.preferred_share > u.preferred_share);
  CHECK(l.dist_mean_px < u.dist_mean_px);
}

TEST_CASE("class means: every cell gets its true class's geometric mean, a map of perfect recognition") {
  const PipelineSettings config = syntheticSettings();
  const Region region = loadRegion(config.holdout[0], config);
  std::vector<double> learned(static_cast<std::size_t>(region.cells()));
  for (std::size_t s = 0; s < learned.size(); ++s) learned[s] = 1.0 + static_cast<double>(s % 7);
  learned[3] = std::numeric_limits<double>::infinity();  // no data: stays so, and counts in no mean
  const std::vector<double> means = classMeanCosts(region, learned);
  REQUIRE(means.size() == learned.size());
  CHECK(std::isinf(means[3]));
  std::map<int, std::pair<double, int>> logs;
  for (std::size_t s = 0; s < learned.size(); ++s) {
    if (s == 3) continue;
    logs[region.cell_labels[s]].first += std::log(learned[s]);
    ++logs[region.cell_labels[s]].second;
  }
  REQUIRE(logs.size() >= 2);  // more than one class, or the test could not tell a class from the map
  for (std::size_t s = 0; s < learned.size(); ++s) {
    if (s == 3) continue;
    const auto& [sum, count] = logs[region.cell_labels[s]];
    CHECK(means[s] == doctest::Approx(std::exp(sum / count)));
  }
  CHECK_THROWS_AS(classMeanCosts(region, std::vector<double>(5, 1.0)), InvalidArgument);
}

TEST_CASE("plan scores: a reference scores perfectly against itself, percentiles by nearest rank") {
  const PipelineSettings config = syntheticSettings();
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
  CHECK(self.mhd_px == 0.0);
  const PlanResult straight =
      planner.plan(std::vector<double>(static_cast<std::size_t>(region.cells()), 1.0), start, goal);
  const PlanScore other = scorer.score(straight.path);
  CHECK(other.cost_ratio >= 1.0);
  CHECK(self.impassable_px == 0.0);

  // Modified Hausdorff distance: a row of cells against the same row 3 rows lower, 4 px cells: every
  // cell is 12 px from the other path both ways.  A path that goes on past the reference's end is
  // farther on average from it than the reference is from it: the larger mean counts.
  Region flat = region;  // no impassable cells on the way
  std::fill(flat.true_costs.begin(), flat.true_costs.end(), 1.0);
  PlanScorer flat_scorer(flat, config.behaviour.preferred, 100.0, 4);
  const int cols = region.cols();
  std::vector<int> row, lower, longer;
  for (int c = 10; c < 30; ++c) row.push_back(10 * cols + c), lower.push_back(13 * cols + c);
  for (int c = 10; c < 50; ++c) longer.push_back(10 * cols + c);
  flat_scorer.setReference(row);
  CHECK(flat_scorer.score(lower).mhd_px == doctest::Approx(12.0));
  double beyond = 0.0;  // cells 30..49 lie 1..20 cells past the reference's end
  for (int k = 1; k <= 20; ++k) beyond += 4.0 * k;
  CHECK(flat_scorer.score(longer).mhd_px == doctest::Approx(beyond / 40.0));

  // A plan over impassable cells is infeasible and says how far it went on them: on the row with its
  // cells 15..19 made impassable, 4 steps between them and half of each step onto and off them (the
  // trapezoid rule): 5 cells of 4 px.
  Region walled = flat;
  for (int c = 15; c < 20; ++c) walled.true_costs[static_cast<std::size_t>(10 * cols + c)] = std::numeric_limits<double>::infinity();
  PlanScorer walled_scorer(walled, config.behaviour.preferred, 100.0, 4);
  walled_scorer.setReference(lower);
  const PlanScore crossing = walled_scorer.score(row);
  CHECK_FALSE(crossing.feasible);
  CHECK(crossing.impassable_px == doctest::Approx(5.0 * 4.0));
  CHECK(walled_scorer.score(lower).impassable_px == 0.0);

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
  CHECK(m.mhd_mean_px == doctest::Approx(other.mhd_px / 2));
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
  CHECK(std::string(verdict(c)) == "could be chance");
  CHECK(std::string(verdict(comparePaired(a, scores({1.5, 1.7, 2.0, 3.5, 1.6, 1.5, 2.5, 1.8})))) == "better");
  CHECK(std::string(verdict(comparePaired(scores({1.5, 1.7, 2.0, 3.5, 1.6, 1.5, 2.5, 1.8}), a))) == "worse");
  CHECK(comparePaired(a, scores({1.0, 1.0, 4.0, 1.0, 1.0, 1.0, 1.0, 1.0}), 10000, 1).low == c.low);  // seeded
  CHECK_THROWS_AS(comparePaired(a, scores({1.0})), InvalidArgument);
}

TEST_CASE("pair records: written and read back, and runs on other pairs refused by name") {
  test::TempDir dir;
  std::vector<PlanScore> learned(2), uniform(2);
  learned[0].cost_ratio = 1.25;
  learned[1].cost_ratio = 2.5;
  learned[1].feasible = false;
  learned[1].mhd_px = 17.5;
  learned[1].impassable_px = 6.0;
  uniform[0].cost_ratio = 3.0;
  uniform[1].cost_ratio = 1.0;
  std::vector<PairRecord> records;
  addPairRecords("tile", 10, {{3, 4, 15}, {27, 38}}, {{Method::Learned, learned}, {Method::Uniform, uniform}}, records);
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
  CHECK(back[1].mhd_px == 17.5);
  CHECK(back[1].impassable_px == 6.0);

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
                       doctest::Contains("a: no pair scored for the method 'classifier'; it has learned, uniform"), DataError);
  CHECK_THROWS_WITH_AS(matchPairs(records, records, "class_mean", "a", "b"),
                       doctest::Contains("(class_mean needs evaluation.class_mean: true)"), DataError);

  std::ofstream(dir.file("bad.csv")) << "region,pair\n";
  CHECK_THROWS_WITH_AS(readPairRecords(dir.file("bad.csv")), doctest::Contains("bad.csv: line 1 must be the header"),
                       DataError);
  std::ifstream in(dir.file("pairs.csv"));
  std::string header;
  std::getline(in, header);
  std::ofstream(dir.file("bad.csv")) << header << "\ntile,0,1,2,3,4,learned,x,1,0.5,0,0\n";
  CHECK_THROWS_WITH_AS(readPairRecords(dir.file("bad.csv")), doctest::Contains("bad.csv: line 2: cost_ratio 'x' is not a finite number > 0"),
                       DataError);
  // A pairs.csv written before the impassable_px column, or before mhd_px too, is still read; what
  // it lacks is unknown.
  const std::string before_impassable = header.substr(0, header.rfind(','));
  std::ofstream(dir.file("old.csv")) << before_impassable << "\ntile,0,1,2,3,4,learned,1.5,1,0.5,2\n";
  const std::vector<PairRecord> old = readPairRecords(dir.file("old.csv"));
  REQUIRE(old.size() == 1);
  CHECK(old[0].mhd_px == 2.0);
  CHECK(std::isnan(old[0].impassable_px));
  std::ofstream(dir.file("older.csv")) << before_impassable.substr(0, before_impassable.rfind(','))
                                      << "\ntile,0,1,2,3,4,learned,1.5,1,0.5\n";
  const std::vector<PairRecord> older = readPairRecords(dir.file("older.csv"));
  REQUIRE(older.size() == 1);
  CHECK(std::isnan(older[0].mhd_px));
  CHECK(std::isnan(older[0].impassable_px));
  std::ofstream(dir.file("bad.csv")) << header << "\ntile,0,1,2,3,4,learned,1.5,1,0.5,-1,0\n";
  CHECK_THROWS_WITH_AS(readPairRecords(dir.file("bad.csv")), doctest::Contains("line 2: mhd_px '-1' is not a finite distance >= 0"),
                       DataError);
  std::ofstream(dir.file("bad.csv")) << header << "\ntile,0,1,2,3,4,learned,1.5,0,0.5,1,inf\n";
  CHECK_THROWS_WITH_AS(readPairRecords(dir.file("bad.csv")),
                       doctest::Contains("line 2: impassable_px 'inf' is not a finite length >= 0"), DataError);
}

TEST_CASE("evaluation.training scores the training images as the holdout is, on pairs of their own") {
  PipelineSettings config = syntheticSettings();
  config.learner.batch.stop.max_iterations = 3;
  config.evaluation.pairs = 3;
  const TrainingRun plain = trainAndReport(config, nullptr);
  CHECK_FALSE(plain.training_fit);
  config.evaluation.training = true;
  const TrainingRun run = trainAndReport(config, nullptr);
  REQUIRE(run.training_fit);
  CHECK(run.training_fit->regions == std::vector<std::string>{"synthetic-1", "synthetic-2"});
  CHECK(run.training_fit->pairs == 6);
  for (const Method method : {Method::Learned, Method::Uniform, Method::Classifier}) {
    CHECK(run.training_fit->summary(method).pairs == 6);
  }
  CHECK(run.training_fit->scores.count(Method::ClassMean) == 0);  // only when asked for
  // What the learned map makes of each class: the geometric mean of its cells' costs over Road's.
  const std::map<std::string, double> class_costs = run.report.learnedClassCosts("Road");
  CHECK(class_costs.at("Road") == 1.0);
  const auto logMean = [&run](int index) {
    double sum = 0.0;
    long count = 0;
    for (const HoldoutResult& h : run.run.holdouts) {
      for (std::size_t s = 0; s < h.learned_costs.size(); ++s) {
        if (h.region.cell_labels[s] == index) sum += std::log(h.learned_costs[s]), ++count;
      }
    }
    REQUIRE(count > 0);
    return sum / static_cast<double>(count);
  };
  const auto index = [&config](const std::string& name) {
    for (const LabelClass& c : config.classes) {
      if (c.name == name) return c.index;
    }
    FAIL("no class " << name);
    return -1;
  };
  CHECK(class_costs.at("Water") == doctest::Approx(std::exp(logMean(index("Water")) - logMean(index("Road")))));
  CHECK(run.training_fit->learnedClassCosts("Road").at("Road") == 1.0);
  CHECK(run.report.learnedClassCosts("no such class").empty());

  // The holdout's figures do not change, and the training pairs are not the demonstrations.
  CHECK(run.report.summary(Method::Learned).cost_ratio_mean == plain.report.summary(Method::Learned).cost_ratio_mean);
  const Region& first = run.run.training.regions[0];
  const PairRecord& pair = run.training_fit->records.front();
  bool a_demonstration = false;
  for (const auto& d : first.demonstrations) {
    a_demonstration |= d.front() == pair.start_row * first.cols() + pair.start_col &&
                       d.back() == pair.goal_row * first.cols() + pair.goal_col;
  }
  CHECK_FALSE(a_demonstration);

  // evaluation.class_mean adds the plans on the class-mean map and changes no other method's.
  config.evaluation.class_mean = true;
  const HoldoutResult means = evaluateHoldout(config, 0, run.run.trained.model, nullptr);
  const HoldoutResult& before = run.run.holdouts[0];
  REQUIRE(means.scores.count(Method::ClassMean) == 1);
  REQUIRE(means.scores.at(Method::ClassMean).size() == before.scores.at(Method::Learned).size());
  for (std::size_t k = 0; k < before.scores.at(Method::Learned).size(); ++k) {
    CHECK(means.scores.at(Method::Learned)[k].cost_ratio == before.scores.at(Method::Learned)[k].cost_ratio);
  }
}

TEST_CASE("learner.cost_exponent raises the trained model's costs, and one that spreads them past CostLimits is refused") {
  PipelineSettings config = syntheticSettings();
  config.learner.batch.stop.max_iterations = 3;
  config.evaluation.pairs = 3;
  const TrainingData training = loadTrainingData(config);
  const TrainedCostModel plain = train(training, config);
  config.learner.cost_exponent = 2.0;
  const TrainedCostModel raised = train(training, config);
  CHECK(raised.model.costExponent() == 2.0);
  CHECK(raised.model.weights() == plain.model.weights());  // training itself is the same
  CHECK(raised.report.cost_range[0] == std::pow(plain.report.cost_range[0], 2.0));
  CHECK(raised.report.cost_range[1] == std::pow(plain.report.cost_range[1], 2.0));
  const HoldoutResult p = evaluateHoldout(config, 0, plain.model, nullptr), r = evaluateHoldout(config, 0, raised.model, nullptr);
  REQUIRE(p.learned_costs.size() == r.learned_costs.size());
  for (std::size_t s = 0; s < p.learned_costs.size(); ++s) {  // libm's pow against the compiler's x * x
    CHECK(r.learned_costs[s] == doctest::Approx(p.learned_costs[s] * p.learned_costs[s]).epsilon(1e-15));
  }

  // With a margin of 1000 (and the bias left at its floor) every cost is above 1000: to the 16th
  // power, above the highest cost a model may give.
  config.loss.scale = 1000.0;
  config.learner.calibrate_bias = false;
  config.learner.cost_exponent = 16.0;
  CHECK_THROWS_WITH_AS(train(training, config),
                       doctest::Contains("learner.cost_exponent 16: on the training cells the costs range from"), Error);
}

TEST_CASE("a holdout image is mapped with the model's feature settings, whatever the config's") {
  // What `mmp info --config` gives back is the config before select:; a selected feature setting
  // lives in the model only.
  PipelineSettings config = syntheticSettings();
  config.learner.batch.stop.max_iterations = 3;
  config.evaluation.pairs = 3;
  config.features.texture_windows = {7, 31};
  const TrainedCostModel trained = train(loadTrainingData(config), config);
  const HoldoutResult as_trained = evaluateHoldout(config, 0, trained.model, nullptr);
  config.features.texture_windows = {7};
  const HoldoutResult read_back = evaluateHoldout(config, 0, trained.model, nullptr);
  CHECK(read_back.learned_costs == as_trained.learned_costs);
  CHECK(read_back.scores.at(Method::Learned).size() == as_trained.scores.at(Method::Learned).size());
}

TEST_CASE("training images may bring demonstrations instead of labels") {
  test::TempDir dir;
  SyntheticSceneParams p;
  p.seed = 5;
  p.rows = p.cols = 160;
  REQUIRE(cv::imwrite(dir.file("train.png"), makeSyntheticScene(p).image));
  PipelineSettings config = syntheticSettings();
  config.behaviour = Behaviour::make("follow_road", config.classes,
                                     {{"Road", 1}, {"Land", 6}, {"Vegetation", 8}, {"Water", 30}, {"Building", 40}}, "Road");
  RegionSpec image;
  image.name = image.where = "train";
  image.image = dir.file("train.png");
  image.demonstrations = {{"1", {{10, 10}, {150, 12}, {150, 150}}}, {"2", {{5, 140}, {80, 80}}}};
  config.train = {image};
  config.holdout = {scene(6, 160)};
  config.features.cell_size = 8;
  config.features.blur_sigmas = {0};
  config.features.bins = 3;
  config.learner.batch.stop.max_iterations = 5;
  config.evaluation.pairs = 3;
  config.evaluation.min_separation_px = 40;
  const TrainingData training = loadTrainingData(config);
  const Region& r = training.regions[0];
  REQUIRE(r.demonstrations.size() == 2);
  CHECK(r.demonstrations[0].front() == 1 * r.cols() + 1);
  CHECK(r.demonstrations[0].back() == 18 * r.cols() + 18);
  CHECK(r.demonstrations[1].back() == 10 * r.cols() + 10);
  CHECK(r.true_costs.empty());
  CHECK_FALSE(trainBaseline(training, config));  // the classifier needs labels
  const TrainedCostModel trained = train(training, config);
  CHECK(trained.report.examples == 2);
  const HoldoutResult h = evaluateHoldout(config, 0, trained.model, nullptr);
  CHECK(h.scores.count(Method::Classifier) == 0);
  CHECK(h.scores.at(Method::Learned).size() == h.references.size());

  // Without labels no training image can be scored in-sample: refused before training.
  config.evaluation.training = true;
  CHECK_THROWS_WITH_AS(validate(config), doctest::Contains("evaluation.training: no training image has labels"), ConfigError);
  config.evaluation.training = false;

  // A point off the image is refused, naming the region and the path.
  config.train[0].demonstrations[1].points.push_back({170, 10});
  CHECK_THROWS_WITH_AS(loadTrainingData(config), doctest::Contains("train.demonstrations: path 2, point 3"), DataError);
}

TEST_CASE("training is bitwise reproducible: the same weights run after run and with 1 or 2 threads" * doctest::test_suite("long")) {
  PipelineSettings config = syntheticSettings();
  config.train = {scene(1, 160), scene(2, 160)};
  config.class_scores = true;  // the class-score layer's SVM trains in parallel too
  config.classifier.iterations = 20;
  config.learner.batch.stop.max_iterations = 15;
  config.learner.online.stop.max_iterations = 3;
  SUBCASE("batch") { config.learner.kind = LearnerKind::Batch; }
  SUBCASE("online") { config.learner.kind = LearnerKind::Online; }
  CAPTURE(describe(config.learner.kind));
  auto weights = [&](int threads) {
    PipelineSettings s = config;
    s.threads = threads;
    s.learner.batch.threads = threads;
    return train(loadTrainingData(s), s).model.weights();
  };
  // (It fails if, for one, Objective::evaluate adds its terms in the order the threads finish.)
  const Eigen::VectorXd first = weights(1);
  for (const int threads : {1, 2, 3}) {
    CAPTURE(threads);
    const Eigen::VectorXd again = weights(threads);
    REQUIRE(again.size() == first.size());
    CHECK(std::memcmp(first.data(), again.data(), sizeof(double) * static_cast<std::size_t>(first.size())) == 0);
  }
}

TEST_CASE("CostModel: saved and loaded it gives the same cost map, and weights outside the positive-cost set are refused") {
  test::TempDir dir;
  PipelineSettings config = syntheticSettings();
  config.train = {scene(1, 128)};
  config.features.cell_size = 8;
  config.learner.batch.stop.max_iterations = 5;
  const TrainingData data = loadTrainingData(config);
  const TrainedCostModel trained = train(data, config);
  trained.model.save(dir.file("m.mmp"));
  const CostModel loaded = CostModel::load(dir.file("m.mmp"));
  CHECK(loaded.form() == CostForm::Linear);
  CHECK(loaded.info().at("behaviour") == "follow_road");
  CHECK(loaded.info().at("trained_on") == "synthetic-1");

  SyntheticSceneParams other;
  other.seed = 7;
  other.rows = other.cols = 96;
  const cv::Mat image = makeSyntheticScene(other).image;
  const CostGrid a = trained.model.costs(image), b = loaded.costs(image);
  CHECK(a.rows == 12);
  CHECK(a.cols == 12);
  CHECK(a.cell_size == 8);
  CHECK(a.costs == b.costs);  // bit for bit
  std::vector<double> expected;
  trained.model.features().map(image).costs(trained.model.weights(), expected);
  CHECK(a.costs == expected);
  for (int s = 0; s < a.cells(); ++s) REQUIRE((a.costs[static_cast<std::size_t>(s)] > 0.0 && !a.blocked(s)));
  CHECK(a.cellAt(0, 0) == 0);
  CHECK(a.cellAt(95.5, 8) == 1 * 12 + 11);
  CHECK(a.cellAt(96, 0) == -1);
  CHECK(a.cellAt(-0.5, 3) == -1);

  Eigen::VectorXd negative = trained.model.weights();
  negative[1] = -0.5;
  CHECK_THROWS_WITH_AS(CostModel(trained.model.features(), negative, CostForm::Linear),
                       doctest::Contains("a linear-cost model needs every weight >= 0"), InvalidArgument);
  CHECK_NOTHROW(CostModel(trained.model.features(), negative, CostForm::Exponential));  // exp(w . f) > 0 for any w
  CHECK_THROWS_AS(CostModel::load(dir.file("missing.mmp")), ModelFileError);
}

TEST_CASE("validate refuses settings that do not fit together, naming the setting") {
  PipelineSettings config = syntheticSettings();
  config.source = "mine";
  CHECK_NOTHROW(validate(config));
  PipelineSettings same = config;
  same.holdout.push_back(scene(2));
  CHECK_THROWS_WITH_AS(loadTrainingData(same), doctest::Contains("mine: synthetic-2: the same image as synthetic-2; never train on a holdout image"),
                       ConfigError);
  PipelineSettings context = config;
  context.class_context_px = {16};
  CHECK_THROWS_WITH_AS(validate(context), doctest::Contains("mine: features.class_context_px: context radii need"), ConfigError);
  PipelineSettings factor = config;
  factor.loss.impassable_factor = 2;
  CHECK_THROWS_WITH_AS(validate(factor), doctest::Contains("mine: loss.impassable_factor: applies to the class-weighted loss only"),
                       ConfigError);
  PipelineSettings unlabelled = config;
  unlabelled.loss.by_class = true;
  RegionSpec drawn;
  drawn.where = "train[1]";
  drawn.image = "drawn.png";
  drawn.demonstrations = {{"1", {{0, 0}, {9, 9}}}};
  unlabelled.train[1] = drawn;
  CHECK_THROWS_WITH_AS(validate(unlabelled), doctest::Contains("mine: loss.by_class: needs labels on every training image; train[1]"),
                       ConfigError);
  PipelineSettings none = config;
  none.train.clear();
  CHECK_THROWS_WITH_AS(validate(none), doctest::Contains("mine: train: the list is empty"), ConfigError);
}
