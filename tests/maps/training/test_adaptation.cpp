// Teaching a trained model on a new site (adaptation.hpp): reproducible, pulled by its prior, exact
// undo, bad demonstrations refused by name with the teacher unchanged, LEARCH keeps its trees.
#include "maps/training/training_support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/training/adaptation.hpp>
#include <mmp/maps/training/adaptation_run.hpp>
#include <mmp/maps/training/pipeline.hpp>
#include <mmp/maps/training/regions.hpp>
#include <mmp/planning/grid_planner.hpp>

#include <doctest/doctest.h>

#include <cmath>

using namespace mmp;

namespace {

// A follow_road model trained on scenes 1 and 2 (the batch learner, or LEARCH), and scene 5 -- which
// training never saw -- with its behaviour's true costs per cell.
struct Site {
  CostModel model;
  Region region;
};

Site site(CostHypothesis hypothesis = CostHypothesis::Linear) {
  PipelineSettings s = test::syntheticSettings();
  s.learner.batch.stop.max_iterations = 20;
  s.learner.hypothesis = hypothesis;
  s.learner.learch.rounds = 3;
  s.learner.learch.threads = 1;
  const TrainingData data = loadTrainingData(s);
  return {train(data, s).model, loadRegion(test::scene(5), s)};
}

// The path the behaviour's true costs give between two cells: what a person on site would drive.
std::vector<int> demonstration(const Region& region, int cols, int start, int goal) {
  GridPlanner planner(static_cast<int>(region.true_costs.size()) / cols, cols);
  const PlanResult plan = planner.plan(region.true_costs, start, goal);
  REQUIRE(plan.status == PlanStatus::Success);
  return plan.path;
}

GeoImage geoImage(const Region& region) {
  GeoImage image;
  image.pixels = region.image;
  image.frame = region.frame;
  return image;
}

}  // namespace

TEST_CASE("adaptation: the same demonstrations give the same model bit for bit, and undo returns to the model before") {
  const Site s = site();
  AdaptationSettings settings;
  settings.epochs = 3;
  CostModelTeacher a(s.model, settings), b(s.model, settings);
  const int ia = a.addImage(geoImage(s.region), "scene 5"), ib = b.addImage(geoImage(s.region), "scene 5");
  const int cols = a.cols(ia);
  const std::vector<int> first = demonstration(s.region, cols, 2 * cols + 2, 60 * cols + 60);
  const std::vector<int> second = demonstration(s.region, cols, 60 * cols + 2, 3 * cols + 61);
  a.teach(ia, first);
  const Eigen::VectorXd after_one = a.model().weights();
  CHECK(after_one != s.model.weights());
  a.teach(ia, second);
  b.teach(ib, first);
  b.teach(ib, second);
  CHECK(a.model().weights() == b.model().weights());  // bit for bit
  const TeachingStep undone = a.undo();
  CHECK(undone.demonstrations == 1);
  CHECK(a.model().weights() == after_one);
  a.undo();
  CHECK(a.model().weights() == s.model.weights());
  CHECK_THROWS_AS(a.undo(), InvalidArgument);
}

TEST_CASE("adaptation: a demonstration the parent does not plan gets cheaper, and a strong prior keeps the parent") {
  const Site s = site();
  AdaptationSettings weak;
  weak.lambda = 1e-3;
  AdaptationSettings strong;
  strong.lambda = 1e6;
  CostModelTeacher loose(s.model, weak), firm(s.model, strong);
  const int image = loose.addImage(geoImage(s.region), "scene 5");
  firm.addImage(geoImage(s.region), "scene 5");
  const int cols = loose.cols(image);
  const std::vector<int> path = demonstration(s.region, cols, 2 * cols + 2, 60 * cols + 60);
  const TeachingStep step = loose.teach(image, path);
  CHECK(step.loss_after <= step.loss_before);
  CHECK(step.loss_before > 0.0);  // the parent did not already plan it
  firm.teach(image, path);
  const std::vector<double> parent = s.model.costs(s.region.image).costs, kept = firm.model().costs(s.region.image).costs;
  double largest = 0.0;
  for (std::size_t c = 0; c < parent.size(); ++c) {
    if (std::isfinite(parent[c])) largest = std::max(largest, std::abs(kept[c] - parent[c]) / parent[c]);
  }
  CHECK(largest < 1e-3);
  // the adapted model records what it learned from
  CHECK(loose.model().info().at("adapted_images") == "scene 5");
  CHECK(loose.model().info().count("adapted_demonstrations") == 1);
  CHECK(loose.model().info().count("adapted_from") == 1);
}

TEST_CASE("adaptation: bad demonstrations are refused by name and leave the teacher as it was") {
  const Site s = site();
  CostModelTeacher teacher(s.model);
  const int image = teacher.addImage(geoImage(s.region), "scene 5");
  const int cols = teacher.cols(image), cells = teacher.rows(image) * cols;
  CHECK_THROWS_WITH_AS(teacher.teach(1, {0, 1}), doctest::Contains("not one of the teacher's 1 images"), InvalidArgument);
  CHECK_THROWS_WITH_AS(teacher.teach(image, {5}), doctest::Contains("needs a start and a goal"), DataError);
  CHECK_THROWS_WITH_AS(teacher.teach(image, {cells - 1, cells}), doctest::Contains("scene 5"), DataError);
  CHECK_THROWS_WITH_AS(teacher.teach(image, {0, 2}), doctest::Contains("scene 5"), DataError);  // not neighbours
  // a cell the parent cannot price: pixels without data make it unknown (+inf)
  GeoImage holed = geoImage(s.region);
  holed.valid = cv::Mat(holed.pixels.size(), CV_8UC1, cv::Scalar(255));
  holed.valid(cv::Rect(40, 40, 4, 4)).setTo(0);  // cell (10, 10) of 4 px cells
  const int with_hole = teacher.addImage(holed, "scene 5 with a hole");
  CHECK_THROWS_WITH_AS(teacher.teach(with_hole, {10 * cols + 9, 10 * cols + 10, 10 * cols + 11}),
                       doctest::Contains("scene 5 with a hole"), DataError);
  CHECK(teacher.demonstrations().empty());
  CHECK(teacher.model().weights() == s.model.weights());
  // a path beside the hole is taught
  const TeachingStep step = teacher.teach(with_hole, {12 * cols + 9, 12 * cols + 10, 12 * cols + 11, 12 * cols + 12});
  CHECK(step.demonstrations == 1);
  CHECK(std::isfinite(step.loss_after));
}

TEST_CASE("adaptation: a LEARCH model keeps its trees and adds new ones fitted to the new demonstrations") {
  const Site s = site(CostHypothesis::Learch);
  REQUIRE(!s.model.trees().empty());
  AdaptationSettings settings;
  settings.learch_rounds = 2;
  CostModelTeacher teacher(s.model, settings);
  const int image = teacher.addImage(geoImage(s.region), "scene 5");
  const int cols = teacher.cols(image);
  const TeachingStep step = teacher.teach(image, demonstration(s.region, cols, 2 * cols + 2, 60 * cols + 60));
  CHECK(step.loss_after <= step.loss_before);
  const TreeEnsemble& trees = teacher.model().trees();
  REQUIRE(trees.size() >= s.model.trees().size());
  CHECK(trees.size() <= s.model.trees().size() + 2);
  for (std::size_t t = 0; t < s.model.trees().size(); ++t) CHECK(trees.steps()[t] == s.model.trees().steps()[t]);
}

TEST_CASE("adaptation: settings outside their range are refused by name") {
  const Site s = site();
  AdaptationSettings bad;
  bad.lambda = 0.0;
  CHECK_THROWS_WITH_AS(CostModelTeacher(s.model, bad), doctest::Contains("adapt.lambda"), InvalidArgument);
  bad = {};
  bad.epochs = 0;
  CHECK_THROWS_WITH_AS(CostModelTeacher(s.model, bad), doctest::Contains("adapt.epochs"), InvalidArgument);
}

TEST_CASE("demonstration values: seeded, zero when the copies cannot move the plan, larger with a wider spread") {
  const Site s = site();
  const FeatureMap map = s.model.features().map(s.region.image);
  const int cols = map.cols();
  const std::vector<std::pair<int, int>> pairs = {{2 * cols + 2, 60 * cols + 60}, {60 * cols + 2, 3 * cols + 61}, {5, 5 + cols}};
  SuggestionSettings settings;
  const std::vector<double> a = demonstrationValues(s.model, map, pairs, settings);
  CHECK(a == demonstrationValues(s.model, map, pairs, settings));  // the same seed, the same values
  settings.threads = 2;
  CHECK(a == demonstrationValues(s.model, map, pairs, settings));  // whatever the thread count
  CHECK(a[2] == 0.0);  // neighbouring cells: every copy plans the one step
  settings.spread = 1e-9;
  for (double v : demonstrationValues(s.model, map, pairs, settings)) CHECK(v == doctest::Approx(0.0));
  settings.spread = 2.0;
  const std::vector<double> wide = demonstrationValues(s.model, map, pairs, settings);
  CHECK(wide[0] + wide[1] >= a[0] + a[1]);
  settings.members = 0;
  CHECK_THROWS_AS(demonstrationValues(s.model, map, pairs, settings), InvalidArgument);
}

TEST_CASE("adaptation run: teaches generated demonstrations, scores each held out and the holdout, reproducibly") {
  const Site s = site();
  AdaptationRunSettings settings;
  static_cast<PipelineSettings&>(settings) = test::syntheticSettings();
  settings.train = {test::scene(5)};
  settings.holdout = {test::scene(6)};
  settings.demonstrations.per_region = 3;
  settings.evaluation.pairs = 4;
  settings.adapt.epochs = 3;
  int reported = 0;
  const AdaptationRun a = adaptAndReport(s.model, settings, [&](int k, int n, const TeachingRecord&) {
    CHECK(k == ++reported);
    CHECK(n == 3);
  });
  REQUIRE(a.taught.size() == 3);
  CHECK(reported == 3);
  CHECK(a.held_out.demonstrations == 3);
  CHECK(a.held_out.baseline_loss.size() == 3);
  CHECK(a.report.pairs == 4);
  CHECK(a.parent_report.pairs == 4);
  CHECK(a.versus_parent.pairs == 4);
  // the same as a teacher given the same demonstrations, and bit for bit from run to run
  CostModelTeacher teacher(s.model, settings.adapt);
  teacher.addImage(a.teach_regions[0].map, "scene 5");
  for (const TeachingRecord& r : a.taught) teacher.teach(0, r.cells);
  CHECK(teacher.model().weights() == a.model.weights());
  const AdaptationRun b = adaptAndReport(s.model, settings);
  CHECK(b.model.weights() == a.model.weights());
  CHECK(b.held_out.model.loss == a.held_out.model.loss);

  settings.held_out = false;
  CHECK(adaptAndReport(s.model, settings).held_out.demonstrations == 0);
  AdaptationRunSettings unlabelled;  // paths alone: no behaviour for labels or a holdout
  unlabelled.train = {test::scene(5)};
  CHECK_THROWS_WITH_AS(adaptAndReport(s.model, unlabelled), doctest::Contains("need classes and a behaviour"), ConfigError);
  CHECK_THROWS_WITH_AS(adaptAndReport(s.model, AdaptationRunSettings{}), doctest::Contains("at least one image"), ConfigError);
}
