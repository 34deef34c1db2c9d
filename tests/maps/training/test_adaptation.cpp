// Teaching a trained model on a new site (adaptation.hpp): reproducible, pulled by its prior, exact
// undo, bad demonstrations refused by name with the teacher unchanged, LEARCH keeps its trees.
#include "maps/training/training_support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/training/adaptation.hpp>
#include <mmp/maps/training/adaptation_run.hpp>
#include <mmp/maps/training/network_training.hpp>
#include <mmp/maps/training/pipeline.hpp>
#include <mmp/maps/training/regions.hpp>
#include <mmp/planning/grid_planner.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>

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

// A tenth of the site's passable cells off the path, those the site's model prices dearest (or cheapest),
// in cell order: ground for a mark.
std::vector<int> tenthByCost(const Site& s, const std::vector<int>& path, bool dearest) {
  const std::vector<double> costs = s.model.costs(s.region.image).costs;
  std::vector<int> passable;
  for (int c = 0; c < static_cast<int>(costs.size()); ++c) {
    if (std::isfinite(costs[c]) && std::find(path.begin(), path.end(), c) == path.end()) passable.push_back(c);
  }
  std::sort(passable.begin(), passable.end(), [&](int x, int y) { return dearest ? costs[x] > costs[y] : costs[x] < costs[y]; });
  std::vector<int> cells(passable.begin(), passable.begin() + static_cast<long>(passable.size() / 10));
  std::sort(cells.begin(), cells.end());
  REQUIRE(cells.size() > 10);
  return cells;
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

TEST_CASE("adaptation: the same set of demonstrations in any order gives the same model bit for bit") {
  const Site s = site();
  AdaptationSettings settings;

  CostModelTeacher a(s.model, settings), b(s.model, settings), c(s.model, settings);
  const int ia = a.addImage(geoImage(s.region), "scene 5");
  b.addImage(geoImage(s.region), "scene 5");
  c.addImage(geoImage(s.region), "scene 5");
  const int cols = a.cols(ia);
  const std::vector<std::vector<int>> paths = {demonstration(s.region, cols, 2 * cols + 2, 60 * cols + 60),
                                               demonstration(s.region, cols, 60 * cols + 2, 3 * cols + 61),
                                               demonstration(s.region, cols, 30 * cols + 1, 31 * cols + 62)};
  for (const int k : {0, 1, 2}) a.teach(ia, paths[k]);
  for (const int k : {2, 0, 1}) b.teach(ia, paths[k]);
  c.teach({{ia, paths[1], {}}, {ia, paths[2], {}}, {ia, paths[0], {}}});
  CHECK(a.model().weights() != s.model.weights());
  CHECK(a.model().weights() == b.model().weights());
  CHECK(a.model().weights() == c.model().weights());
  // undo drops the last one taught: b without paths[1] is a after paths[0] and paths[2]
  CostModelTeacher d(s.model, settings);
  d.addImage(geoImage(s.region), "scene 5");
  d.teach({{ia, paths[2], {}}, {ia, paths[0], {}}});
  b.undo();
  CHECK(b.model().weights() == d.model().weights());
}

TEST_CASE("unshown moves: dear ground made cheaper relative to the taught cells is found, by percentile, and nothing else") {
  std::vector<double> parent(101), adapted(101);
  for (int s = 0; s < 100; ++s) parent[s] = adapted[s] = 0.01 * s;  // percentile p: cell p - 1
  parent[100] = adapted[100] = std::numeric_limits<double>::infinity();  // blocked: left out
  const std::vector<int> taught = {3, 4, 15};
  CHECK(unshownMoves(parent, adapted, taught).empty());
  for (int s = 0; s < 100; ++s) adapted[s] += 0.3;  // everything dearer alike: no move relative to the paths
  CHECK(unshownMoves(parent, adapted, taught).empty());
  for (int s = 80; s < 100; ++s) adapted[s] -= std::log(2.0);  // the dearest fifth now half as dear relative to them
  const std::vector<UnshownMove> moves = unshownMoves(parent, adapted, taught);
  REQUIRE(moves.size() == 1);
  CHECK(moves[0].dear);
  CHECK(moves[0].first_percentile == 81);
  CHECK(moves[0].last_percentile == 100);
  CHECK(moves[0].share == doctest::Approx(0.2));
  CHECK(moves[0].factor == doctest::Approx(0.5));
  CHECK(describeUnshownMove(moves[0], "site.tif").find("'site.tif': ground the parent priced dearer") == 0);
  CHECK(describeUnshownMove(moves[0], "site.tif").find("percentiles 81-100, 20 % of the image") != std::string::npos);
  CHECK(describeUnshownMove(moves[0], "site.tif").find("2x less") != std::string::npos);
  // A path through one dear cell does not hide the dear ground beside it: the taught ground is bounded by
  // nine tenths of the taught cells (the decile rule before it stopped looking above the dearest taught cell).
  std::vector<int> with_odd_cell;
  for (int s = 0; s < 30; ++s) with_odd_cell.push_back(s);
  with_odd_cell.push_back(95);
  const std::vector<UnshownMove> still = unshownMoves(parent, adapted, with_odd_cell);
  REQUIRE(still.size() == 1);
  CHECK(still[0].share == doctest::Approx(0.19));  // the dearest fifth but the taught cell
  // A pond: the dearest hundredth alone made cheaper is found, where a tenth's mean would hide it
  for (int s = 80; s < 100; ++s) adapted[s] += std::log(2.0);
  adapted[99] -= std::log(4.0);
  const std::vector<UnshownMove> pond = unshownMoves(parent, adapted, taught);
  REQUIRE(pond.size() == 1);
  CHECK(pond[0].first_percentile == 100);
  CHECK(pond[0].factor == doctest::Approx(0.25));
  adapted[99] += std::log(4.0);
  // cheap ground made dearer is the other warning
  for (int s = 80; s < 100; ++s) adapted[s] -= std::log(2.0);
  for (int s = 20; s < 30; ++s) adapted[s] += std::log(3.0);
  const std::vector<UnshownMove> both = unshownMoves(parent, adapted, {55, 61});
  REQUIRE(both.size() == 2);
  CHECK_FALSE(both[1].dear);
  CHECK(both[1].first_percentile == 21);
  CHECK(both[1].last_percentile == 30);
  CHECK(both[1].factor == doctest::Approx(3.0));
}

TEST_CASE("adaptation: an avoid mark keeps its ground dearer than the taught paths', and undo drops it exactly") {
  const Site s = site();
  AdaptationSettings settings;
  settings.lambda = 1e-2;  // a weak prior: the paths alone move the model a long way
  CostModelTeacher plain(s.model, settings), marked(s.model, settings);
  const int image = plain.addImage(geoImage(s.region), "scene 5");
  marked.addImage(geoImage(s.region), "scene 5");
  const int cols = plain.cols(image);
  const std::vector<int> path = demonstration(s.region, cols, 2 * cols + 2, 60 * cols + 60);
  plain.teach(image, path);
  marked.teach(image, path);
  const Eigen::VectorXd paths_only = marked.model().weights();
  // the mark: the cells the behaviour finds dearest (passable), none on the path
  std::vector<int> cells;
  double dearest = 0.0;
  for (const double c : s.region.true_costs) {
    if (std::isfinite(c)) dearest = std::max(dearest, c);
  }
  for (int c = 0; c < static_cast<int>(s.region.true_costs.size()); ++c) {
    if (s.region.true_costs[c] == dearest && std::find(path.begin(), path.end(), c) == path.end()) cells.push_back(c);
  }
  REQUIRE(cells.size() > 10);
  const TeachingStep step = marked.avoid(image, cells);
  CHECK(step.demonstrations == 1);
  CHECK(marked.marks().size() == 1);
  CHECK(marked.model().info().count("adapted_avoid") == 1);
  // the marked ground's mean log-cost over the path's, under each model
  const auto gap = [&](const CostModel& m) {
    std::vector<double> log_costs;
    m.logCosts(*marked.image(image).map, log_costs);
    double mark = 0.0, taught = 0.0;
    for (const int c : cells) mark += log_costs[c];
    for (const int c : path) taught += log_costs[c];
    return mark / static_cast<double>(cells.size()) - taught / static_cast<double>(path.size());
  };
  CHECK(gap(marked.model()) > gap(plain.model()));
  CHECK(gap(marked.model()) >= std::min(gap(s.model), std::log(kAvoidMargin)) - 0.05);
  marked.undo();
  CHECK(marked.marks().empty());
  CHECK(marked.model().weights() == paths_only);  // the working sets the paths ended with: bit for bit
  CHECK_THROWS_AS(marked.avoid(image, {-1}), DataError);
  CHECK(marked.model().weights() == paths_only);  // refused: nothing changed
}

TEST_CASE("adaptation: a prefer mark brings dear ground down to the taught paths' cost, in any order, and undo drops it exactly") {
  const Site s = site();
  AdaptationSettings settings;
  settings.lambda = 1e-2;
  CostModelTeacher a(s.model, settings), b(s.model, settings);
  const int image = a.addImage(geoImage(s.region), "scene 5");
  b.addImage(geoImage(s.region), "scene 5");
  const int cols = a.cols(image);
  const std::vector<int> path = demonstration(s.region, cols, 2 * cols + 2, 60 * cols + 60);
  const std::vector<int> cells = tenthByCost(s, path, true);  // the mark
  // the marked ground's mean cost over the path's under a model
  const auto ratio = [&](const CostModel& m) {
    const std::vector<double> costs = m.costs(s.region.image).costs;
    double mark = 0.0, taught = 0.0;
    for (const int c : cells) mark += costs[c];
    for (const int c : path) taught += costs[c];
    return (mark / static_cast<double>(cells.size())) / (taught / static_cast<double>(path.size()));
  };
  REQUIRE(ratio(s.model) > 1.5);  // the parent has the ground dear: the mark must move it
  a.teach(image, path);
  const Eigen::VectorXd paths_only = a.model().weights();
  CHECK(ratio(a.model()) > 1.2);  // the path alone does not bring it down
  const TeachingStep step = a.prefer(image, cells);
  CHECK(step.demonstrations == 1);
  REQUIRE(a.marks().size() == 1);
  CHECK(a.marks()[0].kind == MarkKind::Prefer);
  CHECK(ratio(a.model()) <= kPreferMargin * (1.0 + 1e-6));
  CHECK(a.model().info().count("adapted_prefer") == 1);
  CHECK(a.model().info().count("adapted_avoid") == 0);
  // the mark first, then the path: the same optimum (the steps start from other working sets, so to
  // rounding: 1e-14 relative measured, 1e-9 is the contract)
  b.teach({}, {{image, cells, MarkKind::Prefer}});
  b.teach(image, path);
  CHECK((b.model().weights() - a.model().weights()).cwiseAbs().maxCoeff() <= 1e-9 * a.model().weights().cwiseAbs().maxCoeff());
  a.undo();
  CHECK(a.marks().empty());
  CHECK(a.model().weights() == paths_only);
}

TEST_CASE("adaptation with the prior on the site's costs: order-free, another model than the weights' prior, and a strong one keeps the costs") {
  const Site s = site();
  AdaptationSettings costs;
  costs.prior = AdaptationPrior::Costs;
  AdaptationSettings weights = costs;
  weights.prior = AdaptationPrior::Weights;
  AdaptationSettings strong = costs;
  strong.lambda = 1e6;
  CostModelTeacher a(s.model, costs), b(s.model, costs), w(s.model, weights), firm(s.model, strong);
  const int image = a.addImage(geoImage(s.region), "scene 5");
  for (CostModelTeacher* t : {&b, &w, &firm}) t->addImage(geoImage(s.region), "scene 5");
  const int cols = a.cols(image);
  const std::vector<std::vector<int>> paths = {demonstration(s.region, cols, 2 * cols + 2, 60 * cols + 60),
                                               demonstration(s.region, cols, 60 * cols + 2, 3 * cols + 61)};
  a.teach({{image, paths[0], {}}, {image, paths[1], {}}});
  b.teach({{image, paths[1], {}}, {image, paths[0], {}}});
  w.teach({{image, paths[0], {}}, {image, paths[1], {}}});
  firm.teach({{image, paths[0], {}}, {image, paths[1], {}}});
  CHECK(a.model().weights() != s.model.weights());
  CHECK(a.model().weights() == b.model().weights());
  CHECK(a.model().weights() != w.model().weights());
  CHECK(a.model().info().at("adapted_by").find("toward the parent's costs, lambda 10") != std::string::npos);
  const std::vector<double> parent = s.model.costs(s.region.image).costs, kept = firm.model().costs(s.region.image).costs;
  double largest = 0.0;
  for (std::size_t c = 0; c < parent.size(); ++c) {
    if (std::isfinite(parent[c])) largest = std::max(largest, std::abs(kept[c] - parent[c]) / parent[c]);
  }
  CHECK(largest < 1e-2);
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

TEST_CASE("adaptation: a LEARCH model's new trees raise an avoid mark's ground, the same in any order, and undo drops it exactly") {
  const Site s = site(CostHypothesis::Learch);
  AdaptationSettings settings;
  settings.learch_rounds = 4;
  CostModelTeacher a(s.model, settings), b(s.model, settings);
  const int image = a.addImage(geoImage(s.region), "scene 5");
  b.addImage(geoImage(s.region), "scene 5");
  const int cols = a.cols(image);
  const std::vector<int> path = demonstration(s.region, cols, 2 * cols + 2, 60 * cols + 60);
  // the mark: the cheapest tenth, so that the margin (kAvoidMargin times the path's cost) is not met at the start
  const std::vector<int> cells = tenthByCost(s, path, false);
  const auto gap = [&](const CostModel& m) {  // the mark's mean log-cost over the path's
    std::vector<double> log_costs;
    m.logCosts(*a.image(image).map, log_costs);
    double mark = 0.0, taught = 0.0;
    for (const int c : cells) mark += log_costs[c];
    for (const int c : path) taught += log_costs[c];
    return mark / static_cast<double>(cells.size()) - taught / static_cast<double>(path.size());
  };
  REQUIRE(gap(s.model) < std::log(kAvoidMargin));
  a.teach(image, path);
  const std::vector<double> paths_only = a.model().costs(s.region.image).costs;
  const double before = gap(a.model());
  const TeachingStep step = a.avoid(image, cells);
  REQUIRE(a.marks().size() == 1);
  CHECK(a.model().info().count("adapted_avoid") == 1);
  CHECK(gap(a.model()) > before + 0.05);  // the new trees raised the marked ground
  // kept, or said not to be
  const bool warned = std::any_of(step.warnings.begin(), step.warnings.end(),
                                  [](const std::string& w) { return w.find("avoid mark") != std::string::npos; });
  CHECK((gap(a.model()) >= std::log(kAvoidMargin) - 1e-9 || warned));
  // the mark alone first leaves the parent; then the path gives the same trees
  const TeachingStep alone = b.avoid(image, cells);
  CHECK(alone.message.find("marks alone") != std::string::npos);
  CHECK(b.model().costs(s.region.image).costs == s.model.costs(s.region.image).costs);
  b.teach(image, path);
  CHECK(b.model().costs(s.region.image).costs == a.model().costs(s.region.image).costs);
  a.undo();
  CHECK(a.marks().empty());
  CHECK(a.model().costs(s.region.image).costs == paths_only);
}

TEST_CASE("adaptation: the teaching map gives the image's costs bit for bit (mmp suggest plans on it)") {
  for (const CostHypothesis kind : {CostHypothesis::Linear, CostHypothesis::Learch}) {
    const Site s = site(kind);
    const GeoImage image = geoImage(s.region);
    const CostGrid from_image = s.model.costs(image), from_map = s.model.costs(*teachingMap(s.model, image));
    CHECK(from_map.rows == from_image.rows);
    CHECK(from_map.cols == from_image.cols);
    CHECK(from_map.costs == from_image.costs);
  }
}

TEST_CASE("adaptation: settings outside their range are refused by name") {
  const Site s = site();
  AdaptationSettings bad;
  bad.lambda = 0.0;
  CHECK_THROWS_WITH_AS(CostModelTeacher(s.model, bad), doctest::Contains("adapt.lambda"), InvalidArgument);
  bad = {};
  bad.epochs = 0;
  CHECK_THROWS_WITH_AS(CostModelTeacher(s.model, bad), doctest::Contains("adapt.epochs"), InvalidArgument);
  // The bounds of the settings table's rows, the same as a config's (and a flag's): no run that never
  // ends, no thread count that cannot be started.
  bad = {};
  bad.epochs = 2000000000;
  CHECK_THROWS_WITH_AS(CostModelTeacher(s.model, bad), doctest::Contains("adapt.epochs: expected a whole number 1..100000, got '2000000000'"),
                       InvalidArgument);
  bad = {};
  bad.threads = 100000;
  CHECK_THROWS_WITH_AS(CostModelTeacher(s.model, bad), doctest::Contains("adapt.threads: expected a whole number 0..256, got '100000'"),
                       InvalidArgument);
  bad = {};
  bad.loss.radius_px = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH_AS(CostModelTeacher(s.model, bad), doctest::Contains("adapt.loss.radius_px: expected a number in (0, 1000000], got 'nan'"),
                       InvalidArgument);
  CHECK_NOTHROW(AdaptationSettings{}.validate());
}

TEST_CASE("demonstration values: seeded, zero when the copies cannot move the plan, larger with a wider spread") {
  const Site s = site();
  const FeatureMap map = s.model.features().map(s.region.image);
  const int cols = map.cols();
  const std::vector<std::pair<int, int>> pairs = {{2 * cols + 2, 60 * cols + 60}, {60 * cols + 2, 3 * cols + 61}, {5, 5 + cols}};
  SuggestionSettings settings;
  settings.rule = SuggestionRule::Committee;  // the change rule: test_suggestion.cpp
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

TEST_CASE("adaptation run: a teach image's avoid strokes are one mark, taught with the paths and kept held out") {
  const Site s = site();
  AdaptationRunSettings settings;
  static_cast<PipelineSettings&>(settings) = test::syntheticSettings();
  settings.train = {test::scene(5)};
  settings.train[0].avoid_file = "lake.csv";
  PixelPath stroke;
  stroke.name = "lake";
  stroke.points = {{100.0, 20.0}, {140.0, 60.0}};
  settings.train[0].avoid = {stroke};
  settings.demonstrations.per_region = 3;

  const AdaptationRun run = adaptAndReport(s.model, settings);
  REQUIRE(run.marks.size() == 1);
  CHECK(run.marks[0].cells.size() >= 10);  // every cell the stroke crosses (cells of 4 px)
  CHECK(run.mark_files[0].find("lake.csv") != std::string::npos);
  CHECK(run.model.info().count("adapted_avoid") == 1);
  CostModelTeacher teacher(s.model, settings.adapt);  // the same as a teacher given the paths and the mark
  teacher.addImage(run.teach_regions[0].map, "scene 5");
  std::vector<TaughtDemonstration> paths;
  for (const TeachingRecord& r : run.taught) paths.push_back({0, r.cells, {}});
  teacher.teach(paths, run.marks);
  CHECK(teacher.model().weights() == run.model.weights());
  // a LEARCH parent takes them too (its new trees hold them)
  const AdaptationRun learch = adaptAndReport(site(CostHypothesis::Learch).model, settings);
  CHECK(learch.marks.size() == 1);
  CHECK(learch.model.info().count("adapted_avoid") == 1);
}

TEST_CASE("adaptation run: teaches generated demonstrations, scores each held out and the holdout, reproducibly") {
  const Site s = site();
  AdaptationRunSettings settings;
  static_cast<PipelineSettings&>(settings) = test::syntheticSettings();
  settings.train = {test::scene(5)};
  settings.holdout = {test::scene(6)};
  settings.demonstrations.per_region = 3;
  settings.evaluation.pairs = 4;

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

  settings.adapt.held_out = false;
  CHECK(adaptAndReport(s.model, settings).held_out.demonstrations == 0);
  AdaptationRunSettings unlabelled;  // paths alone: no behaviour for labels or a holdout
  unlabelled.train = {test::scene(5)};
  CHECK_THROWS_WITH_AS(adaptAndReport(s.model, unlabelled), doctest::Contains("need classes and a behaviour"), ConfigError);
  CHECK_THROWS_WITH_AS(adaptAndReport(s.model, AdaptationRunSettings{}), doctest::Contains("at least one image"), ConfigError);
}

// ---- network models (fineTuneNetwork, in libtorch's module): these skip, saying so, when the module
// cannot be loaded (a build without libtorch, or the module missing).

namespace {

// Whether libtorch's module loads in this process.
bool torchLoads() {
  if (!networkTrainingAvailable()) {
    MESSAGE("this build has no libtorch: network adaptation not tested");
    return false;
  }
  try {
    NetworkShape shape;
    shape.channels = 1;
    shape.dilations = {1};
    torchLogCosts(CostNetwork(shape, {networkLayers(shape)}), std::vector<float>(6, 0.0f), 1, 1);
    return true;
  } catch (const Error& e) {
    MESSAGE("libtorch's module does not load (" << e.what() << "): network adaptation not tested");
    return false;
  }
}

// A small network model of follow_road trained on scenes 1 and 2, and scene 5, which it never saw.
Site networkSite() {
  PipelineSettings s = test::syntheticSettings();
  s.train = {test::scene(1, 128), test::scene(2, 128)};
  s.train[1].area = "second";
  s.demonstrations.per_region = 6;
  s.learner.hypothesis = CostHypothesis::Network;
  NetworkTrainingSettings& n = s.learner.network;
  n.shape.channels = 6;
  n.shape.dilations = {1, 2, 4};
  n.epochs = 3;
  n.step = 1e-2;
  n.threads = 1;
  const TrainingData data = loadTrainingData(s);
  return {train(data, s).model, loadRegion(test::scene(5, 128), s)};
}

// The largest |a - b| over every parameter of two networks of one shape.
double largestDifference(const CostNetwork& a, const CostNetwork& b, std::size_t first_layer = 0) {
  double largest = 0.0;
  for (std::size_t m = 0; m < a.members().size(); ++m) {
    for (std::size_t l = first_layer; l < a.members()[m].size(); ++l) {
      const ConvLayer &x = a.members()[m][l], &y = b.members()[m][l];
      for (std::size_t i = 0; i < x.weights.size(); ++i) largest = std::max(largest, std::abs(double(x.weights[i]) - y.weights[i]));
      for (std::size_t i = 0; i < x.bias.size(); ++i) largest = std::max(largest, std::abs(double(x.bias[i]) - y.bias[i]));
    }
  }
  return largest;
}

bool sameNetwork(const CostNetwork& a, const CostNetwork& b) {
  if (a.members().size() != b.members().size()) return false;
  for (std::size_t m = 0; m < a.members().size(); ++m) {
    for (std::size_t l = 0; l < a.members()[m].size(); ++l) {
      if (a.members()[m][l].weights != b.members()[m][l].weights || a.members()[m][l].bias != b.members()[m][l].bias) return false;
    }
  }
  return true;
}

}  // namespace

TEST_CASE("adaptation of a network model: bit for bit at a fixed thread count, undo exact, the head alone if asked") {
  if (!torchLoads()) return;
  const Site s = networkSite();
  REQUIRE(!s.model.network().empty());
  AdaptationSettings settings;
  settings.network_epochs = 4;
  settings.network_step = 1e-2;
  settings.threads = 1;
  CostModelTeacher a(s.model, settings), b(s.model, settings);
  const int ia = a.addImage(geoImage(s.region), "scene 5"), ib = b.addImage(geoImage(s.region), "scene 5");
  const int cols = a.cols(ia);
  const std::vector<int> first = demonstration(s.region, cols, 2 * cols + 2, 28 * cols + 28);
  const std::vector<int> second = demonstration(s.region, cols, 28 * cols + 2, 3 * cols + 29);
  const TeachingStep one = a.teach(ia, first);
  CHECK(one.info == Info::Success);
  CHECK(one.message == "ran 4 epochs");
  const CostNetwork after_one = a.model().network();
  CHECK(!sameNetwork(after_one, s.model.network()));
  CHECK(a.model().weights() == s.model.weights());  // the linear part stays the parent's
  CHECK(a.model().costExponent() == s.model.costExponent());
  CHECK(a.model().info().at("adapted_by").find("network fine-tuned toward the parent") == 0);
  a.teach(ia, second);
  b.teach(ib, first);
  b.teach(ib, second);
  CHECK(sameNetwork(a.model().network(), b.model().network()));  // bit for bit
  const std::vector<double> ca = a.model().costs(geoImage(s.region)).costs, cb = b.model().costs(geoImage(s.region)).costs;
  CHECK(ca == cb);
  a.undo();
  CHECK(sameNetwork(a.model().network(), after_one));
  a.undo();
  CHECK(sameNetwork(a.model().network(), s.model.network()));

  // an ensemble: each member fine-tuned alone from its own parameters, as training trains them
  NetworkShape two = s.model.network().shape();
  two.members = 2;
  const CostModel ensemble(s.model.features(), s.model.weights(),
                           CostNetwork(two, {s.model.network().members()[0], s.model.network().members()[0]}));
  CostModelTeacher pair(ensemble, settings);
  pair.teach(pair.addImage(geoImage(s.region), "scene 5"), first);
  REQUIRE(pair.model().network().members().size() == 2);
  for (const std::vector<ConvLayer>& member : pair.model().network().members()) {
    for (std::size_t l = 0; l < member.size(); ++l) CHECK(member[l].weights == after_one.members()[0][l].weights);
  }

  // the head alone: every layer before the last stays the parent's
  settings.network_head_only = true;
  CostModelTeacher head(s.model, settings);
  const int ih = head.addImage(geoImage(s.region), "scene 5");
  head.teach(ih, first);
  const std::size_t last = s.model.network().members()[0].size() - 1;
  CHECK(largestDifference(head.model().network(), s.model.network()) > 0.0);
  CHECK(largestDifference(head.model().network(), s.model.network(), last) > 0.0);
  for (std::size_t l = 0; l < last; ++l) {
    CHECK(head.model().network().members()[0][l].weights == s.model.network().members()[0][l].weights);
    CHECK(head.model().network().members()[0][l].bias == s.model.network().members()[0][l].bias);
  }
}

TEST_CASE("adaptation of a network model: an avoid mark raises its ground against the paths', in any order, and undo drops it") {
  if (!torchLoads()) return;
  const Site s = networkSite();
  AdaptationSettings settings;
  settings.network_epochs = 20;
  settings.network_step = 5e-2;
  settings.threads = 1;
  const GeoImage image = geoImage(s.region);
  CostModelTeacher paths(s.model, settings), marked(s.model, settings), other(s.model, settings);
  const int i = paths.addImage(image, "scene 5");
  marked.addImage(image, "scene 5");
  other.addImage(image, "scene 5");
  const int cols = paths.cols(i);
  const std::vector<int> path = demonstration(s.region, cols, 2 * cols + 2, 28 * cols + 28);
  const std::vector<int> cheap = tenthByCost(s, path, false);
  // The mark's mean log-cost over the path's, under a model.
  const auto gap = [&](const CostModel& model) {
    std::vector<double> log_costs;
    teachingLogCosts(model, paths.image(i), log_costs);
    double on_path = 0.0, on_mark = 0.0;
    for (const int c : path) on_path += log_costs[static_cast<std::size_t>(c)];
    for (const int c : cheap) on_mark += log_costs[static_cast<std::size_t>(c)];
    return on_mark / static_cast<double>(cheap.size()) - on_path / static_cast<double>(path.size());
  };
  const TeachingStep alone = marked.avoid(i, cheap);  // marks alone: held against the paths, so the parent
  CHECK(alone.message.find("marks alone") == 0);
  CHECK(sameNetwork(marked.model().network(), s.model.network()));
  paths.teach(i, path);
  const TeachingStep with = marked.teach(i, path);
  MESSAGE("mark's gap: parent " << gap(s.model) << ", path alone " << gap(paths.model()) << ", with the mark " << gap(marked.model()));
  // This small network moves little in 20 steps: the mark raises its ground (about three times what the
  // path alone moved it), short of its margin, and the step says so.
  CHECK(gap(marked.model()) > 2.0 * gap(paths.model()));
  CHECK(gap(marked.model()) < std::log(kAvoidMargin));
  REQUIRE(with.warnings.size() == 1);
  CHECK(with.warnings[0].find("is not kept after 20 epochs") != std::string::npos);
  other.teach(i, path);
  other.avoid(i, cheap);
  CHECK(sameNetwork(other.model().network(), marked.model().network()));  // the same set, the same network
  other.undo();
  CHECK(sameNetwork(other.model().network(), paths.model().network()));
}

TEST_CASE("adaptation of a network model: the proximal prior pulls toward the parent") {
  if (!torchLoads()) return;
  const Site s = networkSite();
  AdaptationSettings loose, firm;
  loose.network_lambda = 1e-3;
  loose.network_step = 1e-2;
  firm = loose;
  firm.network_lambda = 1e12;
  CostModelTeacher a(s.model, loose), b(s.model, firm);
  const int ia = a.addImage(geoImage(s.region), "scene 5");
  b.addImage(geoImage(s.region), "scene 5");
  const int cols = a.cols(ia);
  const std::vector<int> path = demonstration(s.region, cols, 2 * cols + 2, 28 * cols + 28);
  a.teach(ia, path);
  b.teach(ia, path);
  const double moved = largestDifference(a.model().network(), s.model.network());
  const double held = largestDifference(b.model().network(), s.model.network());
  CHECK(moved > 1e-3);  // ten Adam steps of 0.01 move some parameter
  CHECK(held < 1e-9);   // each step's deviation shrunk by 1 / (1 + 0.01 * 1e12)
  const std::vector<double> parent = s.model.costs(geoImage(s.region)).costs, kept = b.model().costs(geoImage(s.region)).costs;
  double largest = 0.0;
  for (std::size_t c = 0; c < parent.size(); ++c) largest = std::max(largest, std::abs(kept[c] - parent[c]) / parent[c]);
  CHECK(largest < 1e-6);
}

TEST_CASE("adaptation of a network model: bad demonstrations are refused by name, the parent untouched, costs kept in range") {
  if (!torchLoads()) return;
  const Site s = networkSite();
  const CostNetwork parent_network = s.model.network();
  CostModelTeacher teacher(s.model);
  const int image = teacher.addImage(geoImage(s.region), "scene 5");
  const int cols = teacher.cols(image);
  CHECK_THROWS_WITH_AS(teacher.teach(image, {0, 2}), doctest::Contains("scene 5"), DataError);  // not neighbours
  CHECK_THROWS_WITH_AS(teacher.teach(image, {5}), doctest::Contains("needs a start and a goal"), DataError);
  CHECK(teacher.demonstrations().empty());
  CHECK(sameNetwork(teacher.model().network(), parent_network));
  CHECK(sameNetwork(teacher.parent().network(), parent_network));
  // a network reads the pixels: a map alone is refused
  CHECK_THROWS_WITH_AS(teacher.addImage(teachingMap(s.model, geoImage(s.region)), "scene 5 map"),
                       doctest::Contains("a network model reads the image's pixels"), InvalidArgument);
  // a network whose imagery has a ground resolution is not taught on an image at another one (its pixels
  // would not be the ground it learned): refused by name
  FeatureSettings metric = s.model.features().settings();
  metric.ground_resolution = 0.5;
  const CostModel at_half(FeatureStack(metric, s.model.features().scaling()), s.model.weights(), parent_network);
  CostModelTeacher metric_teacher(at_half);
  GeoImage coarse = geoImage(s.region);
  coarse.frame = WorldFrame::located(coarse.pixels.rows, coarse.pixels.cols, 1.0, {320000.0, 2777000.0});
  CHECK_THROWS_WITH_AS(metric_teacher.addImage(coarse, "coarse"),
                       doctest::Contains("taught on images at its own resolution (0.5 m per pixel) and this image is at 1 m"),
                       InvalidArgument);
  // a segmenter does not adapt to demonstrations
  NetworkShape shape = parent_network.shape();
  shape.classes = 2;
  const CostModel segmenter(s.model.features(), s.model.weights(), CostNetwork(shape, {networkLayers(shape)}));
  CHECK_THROWS_WITH_AS(CostModelTeacher(segmenter, AdaptationSettings{}), doctest::Contains("segmenter"), InvalidArgument);
  AdaptationSettings bad;
  bad.network_step = 0.0;
  CHECK_THROWS_WITH_AS(CostModelTeacher(s.model, bad), doctest::Contains("adapt.network_step"), InvalidArgument);

  // A linear part that spreads the image's costs close to CostLimits' ratio: large steps of the network
  // push them beyond, and the last good network is kept, the message saying so.
  const std::shared_ptr<const FeatureMap> map = teachingMap(s.model, geoImage(s.region));
  Eigen::Index widest = 0;
  double spread = 0.0;
  for (Eigen::Index f = 0; f < map->features(); ++f) {
    double lo = 1e300, hi = -1e300;
    for (int c = 0; c < map->cells(); ++c) {
      const double v = map->value(c, static_cast<int>(f));
      lo = std::min(lo, v), hi = std::max(hi, v);
    }
    if (hi - lo > spread) spread = hi - lo, widest = f;
  }
  REQUIRE(spread > 0.5);
  Eigen::VectorXd w = Eigen::VectorXd::Zero(map->features());
  w[widest] = std::log(0.5 * CostLimits::kMaxRatio) / spread;
  const CostModel wide(s.model.features(), w, parent_network);
  AdaptationSettings large;
  large.network_step = 0.5;
  large.network_epochs = 10;
  large.network_lambda = 1e-6;
  CostModelTeacher risky(wide, large);
  const int ir = risky.addImage(geoImage(s.region), "scene 5");
  const TeachingStep step = risky.teach(ir, demonstration(s.region, cols, 2 * cols + 2, 28 * cols + 28));
  CHECK(step.info == Info::NumericalIssue);
  CHECK(step.message.find("the costs range from") != std::string::npos);
  CHECK(step.message.find("kept the model of") != std::string::npos);
  const std::vector<double> costs = risky.model().costs(geoImage(s.region)).costs;
  const auto [lo, hi] = std::minmax_element(costs.begin(), costs.end());
  CHECK(*hi <= CostLimits::kMaxRatio * *lo);
}

TEST_CASE("adaptation of a linear model reaches its optimum, and says so when its pass budget stops it short") {
  const Site s = site();
  CostModelTeacher teacher(s.model);
  const int image = teacher.addImage(geoImage(s.region), "scene 5");
  const int cols = teacher.cols(image);
  const TeachingStep step = teacher.teach(image, demonstration(s.region, cols, 2 * cols + 2, 60 * cols + 60));
  CAPTURE(step.message);
  CHECK(step.info == Info::Success);
  CHECK(step.message.find("no oracle answer lies outside its working set") != std::string::npos);
  CHECK(step.warnings.empty());
  AdaptationSettings one_pass;
  one_pass.epochs = 1;
  CostModelTeacher hurried(s.model, one_pass);
  hurried.addImage(geoImage(s.region), "scene 5");
  const TeachingStep short_step = hurried.teach(image, demonstration(s.region, cols, 2 * cols + 2, 60 * cols + 60));
  CHECK(short_step.info == Info::NoConvergence);
  REQUIRE(short_step.warnings.size() == 1);
  CHECK(short_step.warnings[0].find("stopped short of its optimum") != std::string::npos);
}
