// Leave-one-area-out validation and the settings selection (maps/settings_selection.hpp) on small
// synthetic scenes and on scenes written to files.
#include "support.hpp"
#include <mmp/core/numbers.hpp>
#include "maps/training/training_support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/training/network_training.hpp>
#include <mmp/maps/training/pipeline.hpp>
#include <mmp/maps/training/settings_selection.hpp>

#include <doctest/doctest.h>
#include <opencv2/imgcodecs.hpp>

#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

using namespace mmp;

namespace {


RegionSpec scene(std::uint64_t seed, const std::string& area) {
  RegionSpec r = RegionSpec::scene(seed);
  r.synthetic->rows = r.synthetic->cols = 160;
  r.synthetic->roads = 3;
  r.synthetic->buildings = 10;
  r.area = area;
  return r;
}

// A scene written to image and label files, as a user's imagery would be.
RegionSpec sceneFiles(std::uint64_t seed, const test::TempDir& dir) {
  SyntheticSceneParams p;
  p.seed = seed;
  p.rows = p.cols = 160;
  const SyntheticScene s = makeSyntheticScene(p);
  RegionSpec r;
  r.name = "scene" + std::to_string(seed);
  r.where = "holdout (" + r.name + ")";
  r.image = dir.file(r.name + ".png");
  r.labels = dir.file(r.name + "_labels.png");
  REQUIRE(cv::imwrite(r.image, s.image));
  REQUIRE(cv::imwrite(r.labels, s.labels));
  return r;
}

// Four training scenes in two areas, a small fast learner.
PipelineSettings twoAreaSettings() {
  PipelineSettings s;
  s.behaviour = Behaviour::make("follow_road", s.classes,
                                {{"Road", 1}, {"Land", 6}, {"Vegetation", 8}, {"Water", kInf}, {"Building", 40}}, "Road");
  s.train = {scene(1, "east"), scene(2, "west"), scene(3, "east"), scene(4, "west")};
  s.holdout = {scene(9, "north")};
  s.features.blur_sigmas = {0, 8};
  s.features.texture_windows = {7};
  s.features.bins = 5;
  s.features.complements = false;
  s.demonstrations.per_region = 4;
  s.demonstrations.min_separation_px = 80.0;
  s.demonstrations.seed = 1;
  s.learner.kind = LearnerKind::Batch;
  s.learner.batch.stop.max_iterations = 15;
  s.learner.batch.steps = StepSchedule::constant(1.0);
  s.learner.batch.threads = 1;
  s.evaluation.pairs = 6;
  s.evaluation.min_separation_px = 80;
  s.classifier.enabled = false;
  return s;
}

// The exhaustive coordinate search: every candidate at its full passes, the lowest mean kept.
SelectionSpace exhaustive(std::vector<SelectionKey> keys) {
  SelectionSpace space;
  space.keys = std::move(keys);
  space.rule = SelectionRule::Lowest;
  space.rungs = 1;
  return space;
}

// A candidate scored on `ratios` (one pair each), of the given simplicity.
SelectionCandidate scored(const std::vector<double>& ratios, std::vector<long> simplicity) {
  SelectionCandidate c;
  c.simplicity = std::move(simplicity);
  double sum = 0.0;
  for (double r : ratios) {
    PlanScore p;
    p.cost_ratio = r;
    c.pairs.push_back(p);
    sum += r;
  }
  c.score = c.cost_ratio_mean = sum / static_cast<double>(ratios.size());
  c.area_pairs = {ratios.size()};
  return c;
}

// A candidate scored on areas of pairs (one vector of ratios an area), by `score`.
SelectionCandidate scoredByArea(const std::vector<std::vector<double>>& areas, SelectionScore score) {
  std::vector<double> all;
  std::vector<std::size_t> sizes;
  for (const std::vector<double>& area : areas) {
    all.insert(all.end(), area.begin(), area.end());
    sizes.push_back(area.size());
  }
  SelectionCandidate c = scored(all, {0, 1, 0, 0});
  c.area_pairs = sizes;
  c.score = selectionScore(c.pairs, c.area_pairs, score);
  return c;
}

}  // namespace

TEST_CASE("validation folds leave a whole area out: its images are scored, never trained on") {
  const PipelineSettings s = twoAreaSettings();
  REQUIRE(trainingAreas(s) == std::vector<std::string>{"east", "west"});
  const PipelineSettings fold = validationFold(s, 1);
  REQUIRE(fold.train.size() == 2);
  REQUIRE(fold.holdout.size() == 2);
  for (const RegionSpec& r : fold.train) CHECK(r.area == "east");
  for (const RegionSpec& r : fold.holdout) CHECK(r.area == "west");

  PipelineSettings one_area = s;
  for (RegionSpec& r : one_area.train) r.area = "east";
  CHECK_THROWS_WITH_AS(validationFold(one_area, 0), doctest::Contains("at least two areas"), InvalidArgument);
  PipelineSettings no_areas = s;  // without areas every image is an area of its own
  for (RegionSpec& r : no_areas.train) r.area.clear();
  CHECK(trainingAreas(no_areas).size() == 4);

  PipelineSettings overlap = s;
  overlap.holdout[0].area = "west";
  CHECK_THROWS_WITH_AS(validate(overlap), doctest::Contains("area 'west' is in training too"), ConfigError);
}

TEST_CASE("applySetting sets each key of the search space and names what is valid") {
  PipelineSettings s = twoAreaSettings();
  applySetting(s, "learner.kind", "learch");
  CHECK(s.learner.hypothesis == CostHypothesis::Learch);
  applySetting(s, "learner.kind", "online");
  CHECK(s.learner.kind == LearnerKind::Online);
  CHECK(s.learner.hypothesis == CostHypothesis::Linear);
  applySetting(s, "learner.costs", "exponential");
  CHECK(s.learner.costs == CostForm::Exponential);
  applySetting(s, "learner.lambda", "0.25");
  CHECK(s.learner.online.lambda == 0.25);
  CHECK(s.learner.batch.lambda == 0.25);
  applySetting(s, "learner.passes", "7");
  CHECK(s.learner.passes() == 7);
  applySetting(s, "loss.scale", "3");
  CHECK(s.loss.scale == 3.0);
  applySetting(s, "features.bins", "0");
  CHECK(s.features.bins == 0);
  CHECK(s.features.complements);
  CHECK_FALSE(settingApplies(s, "learner.learch.step"));
  CHECK(settingApplies(s, "learner.costs"));
  applySetting(s, "learner.kind", "learch");
  applySetting(s, "learner.learch.rounds", "12");
  applySetting(s, "learner.learch.step", "0.25");
  applySetting(s, "learner.learch.depth", "4");
  CHECK(s.learner.learch.rounds == 12);
  CHECK(s.learner.learch.step == 0.25);
  CHECK(s.learner.learch.depth == 4);
  CHECK(settingApplies(s, "learner.learch.step"));
  CHECK_FALSE(settingApplies(s, "learner.costs"));
  CHECK_FALSE(settingApplies(s, "learner.lambda"));  // from uniform costs: no linear learner runs
  applySetting(s, "learner.learch.start", "batch");
  CHECK(s.learner.learch.from_linear);
  CHECK(s.learner.kind == LearnerKind::Batch);
  CHECK(settingApplies(s, "learner.lambda"));
  CHECK_THROWS_WITH_AS(applySetting(s, "learner.learch.depth", "17"), doctest::Contains("learner.learch.depth: expected a whole number 1..16, got '17'"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(applySetting(s, "learner.speed", "1"), doctest::Contains("unknown setting 'learner.speed'; the settings are features.cell_size"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(applySetting(s, "learner.costs", "cubic"), doctest::Contains("expected one of linear, exponential, got 'cubic'"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(applySetting(s, "learner.passes", "2.5"), doctest::Contains("whole number"), InvalidArgument);
  CHECK_THROWS_WITH_AS(applySetting(s, "loss.scale", "-1"), doctest::Contains("loss.scale: expected a number > 0, got '-1'"),
                       InvalidArgument);
}

TEST_CASE("settings selection: coordinate search by leave-one-area-out validation, never reading a holdout image") {
  test::TempDir dir;
  PipelineSettings s = twoAreaSettings();
  s.holdout = {sceneFiles(9, dir)};
  const SelectionSpace space = exhaustive({{"learner.lambda", {"1e-4", "10"}}, {"loss.scale", {"1", "2"}}});
  CHECK_THROWS_WITH_AS(selectSettings(s, exhaustive({{"loss.scale", {"1"}}, {"loss.scale", {"2"}}})),
                       doctest::Contains("given twice"), InvalidArgument);
  CHECK_THROWS_WITH_AS(selectSettings(s, exhaustive({{"loss.scale", {"1", "x"}}})), doctest::Contains("got 'x'"), InvalidArgument);

  // The holdout files are gone: selection and training must not need them.
  std::filesystem::remove(s.holdout[0].image);
  std::filesystem::remove(s.holdout[0].labels);
  std::set<std::string> left_out;
  const SelectionResult result = selectSettings(
      s, space, [&](int, const std::map<std::string, std::string>&, const std::string& area, const std::string&, long, long) {
        left_out.insert(area);
      });
  CHECK(left_out == std::set<std::string>{"east", "west"});
  // Start (1e-4, 1); then lambda 10; then loss scale 2 at the better lambda: three assignments.
  REQUIRE(result.candidates.size() == 3);
  CHECK(result.candidates[0].values == std::map<std::string, std::string>{{"learner.lambda", "1e-4"}, {"loss.scale", "1"}});
  CHECK(result.candidates[1].values.at("learner.lambda") == "10");
  CHECK(result.candidates[2].values.at("loss.scale") == "2");
  for (const SelectionCandidate& c : result.candidates) {
    CHECK(c.cost_ratio_mean >= 1.0);
    CHECK(c.area_cost_ratio.size() == 2);
    CHECK(result.candidates[result.chosen].cost_ratio_mean <= c.cost_ratio_mean);
  }
  // A lambda of 10 flattens the costs: the search must not prefer it to 1e-4 here.
  CHECK(result.candidates[result.chosen].values.at("learner.lambda") == "1e-4");
  const std::string chosen_lambda = result.candidates[result.chosen].values.at("learner.lambda");
  CHECK(result.settings.learner.batch.lambda == std::stod(chosen_lambda));

  const TrainingData training = loadTrainingData(result.settings);
  const TrainedCostModel trained = train(training, result.settings);
  CHECK(trained.model.weights().size() == training.stack.features());
}

TEST_CASE("settings selection skips a key that does not apply at the current choice") {
  PipelineSettings s = twoAreaSettings();
  s.learner.learch.rounds = 4;
  s.learner.learch.samples = 2000;
  s.learner.learch.threads = 1;
  // A linear learner: LEARCH's step changes nothing, so only the start is scored.
  const SelectionResult linear = selectSettings(s, exhaustive({{"learner.kind", {"batch"}}, {"learner.learch.step", {"0.5", "1"}}}));
  CHECK(linear.candidates.size() == 1);
  // LEARCH: the linear cost form changes nothing, its step does.
  const SelectionResult learch =
      selectSettings(s, exhaustive({{"learner.kind", {"learch"}}, {"learner.costs", {"linear", "exponential"}}, {"learner.learch.step", {"0.5", "1"}}}));
  REQUIRE(learch.candidates.size() == 2);
  CHECK(learch.candidates[1].values.at("learner.learch.step") == "1");
  CHECK(learch.candidates[1].values.at("learner.costs") == "linear");
  CHECK(learch.settings.learner.hypothesis == CostHypothesis::Learch);
}

TEST_CASE("settings selection can choose the network, whose own keys apply to it alone") {
  if (!networkTrainingAvailable()) return;
  PipelineSettings s = twoAreaSettings();
  s.learner.network.shape.channels = 4;
  s.learner.network.shape.dilations = {1, 2};
  s.learner.network.epochs = 2;
  s.learner.network.threads = 1;
  const SelectionResult r = selectSettings(
      s, exhaustive({{"learner.kind", {"batch", "network"}}, {"learner.costs", {"linear", "exponential"}},
                     {"learner.network.step", {"0.003", "0.01"}}}));
  // batch, then network; then the cost form if batch won (it changes no network), or the network's
  // step if the network won (it changes no linear model).
  REQUIRE(r.candidates.size() == 3);
  CHECK(r.candidates[1].values.at("learner.kind") == "network");
  for (const auto& c : r.candidates) CHECK(std::isfinite(c.cost_ratio_mean));
  if (r.settings.learner.hypothesis == CostHypothesis::Network) {
    CHECK(r.candidates[2].values.at("learner.network.step") == "0.01");
  } else {
    CHECK(r.candidates[2].values.at("learner.costs") == "exponential");
  }
}

TEST_CASE("a candidate whose training fails is kept with its failure and the search goes on") {
  const PipelineSettings s = twoAreaSettings();
  // A training that throws, as one whose costs overflow in a way no learner can recover from would.
  const SelectionProgress failing = [](int, const std::map<std::string, std::string>& values, const std::string& area,
                                       const std::string&, long, long) {
    if (values.at("learner.costs") == "exponential" && area == "west") throw InvalidArgument("simulated failure");
  };
  const SelectionResult result =
      selectSettings(s, exhaustive({{"learner.costs", {"linear", "exponential"}}, {"learner.lambda", {"1e-4"}}}), failing);
  REQUIRE(result.candidates.size() == 2);
  const SelectionCandidate& failed = result.candidates[1];
  CHECK(failed.failure == "without west: simulated failure");
  CHECK(failed.cost_ratio_mean == kInf);
  CHECK(result.chosen == 0);
  CHECK(result.settings.learner.costs == CostForm::Linear);
  // With only the failing candidate there is nothing to choose.
  CHECK_THROWS_WITH_AS(selectSettings(s, exhaustive({{"learner.costs", {"exponential"}}}), failing),
                       doctest::Contains("no candidate could be trained; the first: without west: simulated failure"),
                       InvalidArgument);
}

TEST_CASE("the paired rule keeps the simpler candidate unless the other is better beyond noise") {
  const std::vector<long> linear = {0, 30, 0, 0}, exponential = {1, 30, 0, 0}, learch = {2, 30, 0, 3};
  const std::vector<long> fewer_epochs = {0, 10, 0, 0};
  const std::vector<double> ratios = {1.2, 3.0, 1.0, 2.5, 1.1, 4.0, 1.3, 1.0};
  std::vector<double> slightly_lower = ratios, clearly_lower = ratios;
  slightly_lower[1] -= 0.5;  // one pair better: could be chance
  for (double& r : clearly_lower) r -= 0.1;
  std::vector<SelectionCandidate> c = {scored(ratios, learch), scored(ratios, linear), scored(slightly_lower, exponential),
                                       scored(clearly_lower, learch), scored(ratios, fewer_epochs)};
  // Equal scores: the simpler, whatever the order or the current choice; the lowest rule keeps the current one.
  CHECK(pickCandidate(c, {0, 1}, 0, SelectionRule::Paired, SelectionScore::Pooled) == 1);
  CHECK(pickCandidate(c, {1, 0}, kNoCandidate, SelectionRule::Paired, SelectionScore::Pooled) == 1);
  CHECK(pickCandidate(c, {0, 1}, 0, SelectionRule::Lowest, SelectionScore::Pooled) == 0);
  CHECK(pickCandidate(c, {1, 0}, kNoCandidate, SelectionRule::Lowest, SelectionScore::Pooled) == 1);
  // Fewer passes are cheaper (early stopping).
  CHECK(pickCandidate(c, {1, 4}, 1, SelectionRule::Paired, SelectionScore::Pooled) == 4);
  // A lower mean within noise does not replace the simpler; a lower mean on every pair does.
  CHECK(pickCandidate(c, {1, 2}, 1, SelectionRule::Paired, SelectionScore::Pooled) == 1);
  CHECK(pickCandidate(c, {1, 2}, 1, SelectionRule::Lowest, SelectionScore::Pooled) == 2);
  CHECK(pickCandidate(c, {1, 2, 3}, 1, SelectionRule::Paired, SelectionScore::Pooled) == 3);
  // The current choice does not outrank a simpler one; a failed candidate is never picked.
  CHECK(pickCandidate(c, {1, 4, 0}, 0, SelectionRule::Paired, SelectionScore::Pooled) == 4);
  c[4].score = c[4].cost_ratio_mean = kInf;
  CHECK(pickCandidate(c, {1, 4}, 1, SelectionRule::Paired, SelectionScore::Pooled) == 1);
  CHECK(pickCandidate(c, {4}, 4, SelectionRule::Paired, SelectionScore::Pooled) == kNoCandidate);
}

TEST_CASE("the area-median score: the middle area's mean, so one area's long detours do not decide alone") {
  // Three areas of four pairs.  `steady` is a little worse than `tailed` on two areas; `tailed`
  // has two very long detours on the third, which rule its pooled mean.
  const std::vector<std::vector<double>> steady = {{1.3, 1.4, 1.2, 1.5}, {2.1, 2.0, 2.2, 1.9}, {3.0, 3.2, 2.8, 3.0}};
  const std::vector<std::vector<double>> tailed = {{1.1, 1.2, 1.0, 1.3}, {1.9, 1.8, 2.0, 1.7}, {2.8, 3.0, 14.0, 12.0}};
  std::vector<SelectionCandidate> median = {scoredByArea(steady, SelectionScore::AreaMedian),
                                            scoredByArea(tailed, SelectionScore::AreaMedian)};
  std::vector<SelectionCandidate> pooled = {scoredByArea(steady, SelectionScore::Pooled),
                                            scoredByArea(tailed, SelectionScore::Pooled)};
  CHECK(median[0].score == doctest::Approx(2.05));  // the areas' means 1.35, 2.05, 3.0
  CHECK(median[1].score == doctest::Approx(1.85));  // 1.15, 1.85, 7.95
  CHECK(pooled[0].score == doctest::Approx(pooled[0].cost_ratio_mean));
  CHECK(pickCandidate(median, {0, 1}, 0, SelectionRule::Lowest, SelectionScore::AreaMedian) == 1);
  CHECK(pickCandidate(pooled, {0, 1}, 0, SelectionRule::Lowest, SelectionScore::Pooled) == 0);
  // Better by 0.2 on every pair of the median area, beyond noise whatever the pairs drawn.
  const PairedComparison gain = compareScores(median[1], median[0], SelectionScore::AreaMedian);
  CHECK(gain.gain == doctest::Approx(0.2));
  CHECK(gain.low > 0.0);
  CHECK(pickCandidate(median, {0, 1}, 0, SelectionRule::Paired, SelectionScore::AreaMedian) == 1);
  // Even areas: the mean of the middle two.
  CHECK(selectionScore(median[0].pairs, {4, 8}, SelectionScore::AreaMedian) == doctest::Approx((1.35 + 2.525) / 2.0));
  // Groupings that do not match the pairs are refused.
  CHECK_THROWS_WITH_AS(selectionScore(median[0].pairs, {4, 4}, SelectionScore::AreaMedian),
                       doctest::Contains("12 pairs in 2 areas do not add up"), InvalidArgument);
  CHECK_THROWS_AS(selectionScore(median[0].pairs, {0, 12}, SelectionScore::AreaMedian), InvalidArgument);
  SelectionCandidate regrouped = median[1];
  regrouped.area_pairs = {6, 6};
  CHECK_THROWS_WITH_AS(compareScores(regrouped, median[0], SelectionScore::AreaMedian),
                       doctest::Contains("not scored on the same pairs"), InvalidArgument);
  CHECK(parseSelectionScore("pooled") == SelectionScore::Pooled);
  CHECK_THROWS_WITH_AS(parseSelectionScore("mean"), doctest::Contains("pooled, area_median"), InvalidArgument);
}

TEST_CASE("the paired rule's order: linear < exponential < LEARCH < network, then fewer passes") {
  PipelineSettings s = twoAreaSettings();
  const std::vector<long> linear = simplicityKey(s);
  applySetting(s, "learner.costs", "exponential");
  const std::vector<long> exponential = simplicityKey(s);
  applySetting(s, "learner.kind", "learch");
  const std::vector<long> learch = simplicityKey(s);
  applySetting(s, "learner.learch.depth", "5");
  const std::vector<long> deeper = simplicityKey(s);
  applySetting(s, "learner.kind", "network");
  const std::vector<long> network = simplicityKey(s);
  CHECK(linear < exponential);
  CHECK(exponential < learch);
  CHECK(learch < deeper);
  CHECK(deeper < network);
  // A cost exponent further from 1 comes after, at any hypothesis.
  PipelineSettings raised = twoAreaSettings();
  applySetting(raised, "learner.cost_exponent", "2");
  CHECK(linear < simplicityKey(raised));
  CHECK(simplicityKey(raised) < exponential);
  applySetting(raised, "learner.cost_exponent", "0.5");
  const std::vector<long> lowered = simplicityKey(raised);
  applySetting(raised, "learner.cost_exponent", "4");
  CHECK(lowered < simplicityKey(raised));
  PipelineSettings fewer = twoAreaSettings();
  setBudgetPasses(fewer, 5);
  CHECK(budgetPasses(fewer) == 5);
  CHECK(simplicityKey(fewer) < linear);
  // LEARCH from the linear learner: its rounds are the budget, the linear start shrinks in proportion.
  applySetting(fewer, "learner.kind", "learch");
  applySetting(fewer, "learner.learch.start", "batch");
  fewer.learner.learch.rounds = 30;
  fewer.learner.setPasses(60);
  setBudgetPasses(fewer, 10);
  CHECK(fewer.learner.learch.rounds == 10);
  CHECK(fewer.learner.passes() == 20);
}

TEST_CASE("successive halving: budgets by rung, and a budget that keeps every candidate is the exhaustive search") {
  PipelineSettings s = twoAreaSettings();
  s.learner.batch.stop.max_iterations = 8;
  const std::vector<SelectionKey> keys = {{"learner.lambda", {"1e-4", "10"}}, {"loss.scale", {"1", "2"}}};
  const SelectionResult full = selectSettings(s, exhaustive(keys));
  SelectionSpace keep_all = exhaustive(keys);
  keep_all.rungs = 3;
  keep_all.eta = 1;  // every rung the full passes, every candidate goes on
  const SelectionResult halving = selectSettings(s, keep_all);
  REQUIRE(halving.candidates.size() == full.candidates.size());
  CHECK(halving.candidates[halving.chosen].values == full.candidates[full.chosen].values);
  CHECK(halving.candidates[halving.chosen].cost_ratio_mean == full.candidates[full.chosen].cost_ratio_mean);
  CHECK(halving.settings.learner.passes() == 8);

  SelectionSpace halve = exhaustive(keys);
  halve.rungs = 2;
  halve.eta = 2;
  const SelectionResult r = selectSettings(s, halve);
  // The search at 4 iterations scores three assignments; two go on at 8.
  REQUIRE(r.candidates.size() == 5);
  for (std::size_t i = 0; i < 3; ++i) CHECK(r.candidates[i].passes == 4);
  for (std::size_t i = 3; i < 5; ++i) CHECK(r.candidates[i].passes == 8);
  CHECK(r.candidates[3].rung == 1);
  CHECK(r.settings.learner.passes() == r.candidates[r.chosen].passes);
  for (const SelectionCandidate& c : r.candidates) {
    if (c.passes == 4) continue;
    // the candidates that went on are the 4-iteration search's choice and the next lowest
    bool scored_before = false;
    for (std::size_t i = 0; i < 3; ++i) scored_before = scored_before || r.candidates[i].values == c.values;
    CHECK(scored_before);
  }
  CHECK_THROWS_WITH_AS(selectSettings(s, [&] { SelectionSpace b = halve; b.rungs = 0; return b; }()),
                       doctest::Contains("select.rungs: must be >= 1, got 0"), InvalidArgument);
  CHECK_THROWS_WITH_AS(selectSettings(s, [&] { SelectionSpace b = halve; b.eta = 0; return b; }()),
                       doctest::Contains("select.eta: must be >= 1, got 0"), InvalidArgument);
}

TEST_CASE("settings selection does not depend on the thread count, and takes its pairs' seed and number") {
  PipelineSettings s = twoAreaSettings();
  s.learner.batch.stop.max_iterations = 4;
  SelectionSpace space;
  space.keys = {{"learner.lambda", {"1e-4", "10"}}};
  space.rungs = 2;
  space.eta = 2;
  space.threads = 1;
  const SelectionResult one = selectSettings(s, space);
  space.threads = 3;
  const SelectionResult three = selectSettings(s, space);
  REQUIRE(one.candidates.size() == three.candidates.size());
  CHECK(one.chosen == three.chosen);
  for (std::size_t i = 0; i < one.candidates.size(); ++i) {
    CHECK(one.candidates[i].cost_ratio_mean == three.candidates[i].cost_ratio_mean);
    // Scored by the default score, the mean over every pair, with each fold's pairs counted.
    CHECK(one.candidates[i].area_pairs.size() == 2);
    CHECK(one.candidates[i].score ==
          selectionScore(one.candidates[i].pairs, one.candidates[i].area_pairs, SelectionScore::Pooled));
    CHECK(one.candidates[i].score == one.candidates[i].cost_ratio_mean);
    REQUIRE(one.candidates[i].pairs.size() == three.candidates[i].pairs.size());
    for (std::size_t k = 0; k < one.candidates[i].pairs.size(); ++k) {
      CHECK(one.candidates[i].pairs[k].cost_ratio == three.candidates[i].pairs[k].cost_ratio);
    }
  }
  space.pairs_seed = s.evaluation.seed + 100;
  const SelectionResult other_pairs = selectSettings(s, space);
  CHECK(other_pairs.candidates[0].cost_ratio_mean != one.candidates[0].cost_ratio_mean);
  // The number of validation pairs per left-out image is its own too.
  space.pairs = 2 * s.evaluation.pairs;
  const SelectionResult more_pairs = selectSettings(s, space);
  CHECK(more_pairs.candidates[0].pairs.size() > one.candidates[0].pairs.size());
  space.pairs = 0;
  CHECK_THROWS_WITH_AS(selectSettings(s, space), doctest::Contains("select.pairs: must be >= 1, got 0"), InvalidArgument);
}

TEST_CASE("an after-training key is scored on each trained model, training once, as training with its value would") {
  PipelineSettings s = twoAreaSettings();
  s.learner.batch.stop.max_iterations = 6;
  std::set<int> trained;  // the candidates whose folds report progress: those that trained
  const SelectionProgress progress = [&](int candidate, const std::map<std::string, std::string>&, const std::string&,
                                         const std::string&, long, long) { trained.insert(candidate); };
  const SelectionResult r = selectSettings(
      s, exhaustive({{"learner.cost_exponent", {"1", "3"}}, {"learner.lambda", {"1e-4", "10"}}}), progress);
  // Each lambda with each exponent; one training per lambda.
  REQUIRE(r.candidates.size() == 4);
  CHECK(r.candidates[1].values.at("learner.cost_exponent") == "3");
  CHECK(r.candidates[2].values.at("learner.lambda") == "10");
  CHECK(trained == std::set<int>{1, 3});
  CHECK(r.settings.learner.cost_exponent == std::stod(r.candidates[r.chosen].values.at("learner.cost_exponent")));
  // The exponent's candidates score what a selection that trains with it scores.
  PipelineSettings cubed = s;
  cubed.learner.cost_exponent = 3.0;
  const SelectionResult separately = selectSettings(cubed, exhaustive({{"learner.lambda", {"1e-4", "10"}}}));
  REQUIRE(separately.candidates.size() == 2);
  CHECK(separately.candidates[0].cost_ratio_mean == r.candidates[1].cost_ratio_mean);
  CHECK(separately.candidates[1].cost_ratio_mean == r.candidates[3].cost_ratio_mean);
  CHECK(r.candidates[0].cost_ratio_mean != r.candidates[1].cost_ratio_mean);

  // Halving: a share of the trained assignments goes on, each with every exponent.
  SelectionSpace halve = exhaustive({{"learner.lambda", {"1e-4", "10"}}, {"learner.cost_exponent", {"1", "3"}}});
  halve.rungs = 2;
  halve.eta = 2;
  const SelectionResult h = selectSettings(s, halve);
  REQUIRE(h.candidates.size() == 6);
  CHECK(h.candidates[4].passes == 6);
  CHECK(h.candidates[4].values.at("learner.lambda") == h.candidates[5].values.at("learner.lambda"));
  CHECK(h.candidates[4].values.at("learner.cost_exponent") != h.candidates[5].values.at("learner.cost_exponent"));
}
