// Which demonstration to ask for next (suggestion.hpp): the "change" rule is reproducible bit for bit
// at any thread count, bad settings are refused by name, and it values a pair by how common on the
// image the ground its committee disputes is (where the "committee" rule cannot tell).
#include "maps/training/training_support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/feature_stack.hpp>
#include <mmp/maps/training/adaptation.hpp>
#include <mmp/maps/training/pipeline.hpp>
#include <mmp/maps/training/regions.hpp>
#include <mmp/planning/grid_planner.hpp>

#include <doctest/doctest.h>

#include <limits>

using namespace mmp;

namespace {

CostModel trainedModel(CostHypothesis hypothesis) {
  PipelineSettings s = test::syntheticSettings();
  s.learner.batch.stop.max_iterations = 20;
  s.learner.hypothesis = hypothesis;
  s.learner.learch.rounds = 3;
  s.learner.learch.threads = 1;
  return train(loadTrainingData(s), s).model;
}

}  // namespace

TEST_CASE("suggestion: the change rule gives the same values bit for bit at any thread count, linear and LEARCH") {
  PipelineSettings s = test::syntheticSettings();
  for (CostHypothesis hypothesis : {CostHypothesis::Linear, CostHypothesis::Learch}) {
    const CostModel model = trainedModel(hypothesis);
    const FeatureMap map = model.features().map(loadRegion(test::scene(5), s).image);
    const int cols = map.cols();
    const std::vector<std::pair<int, int>> pairs = {{2 * cols + 2, 60 * cols + 60}, {60 * cols + 2, 3 * cols + 61}, {5, 5 + cols}};
    SuggestionSettings settings;
    settings.rule = SuggestionRule::Change;
    const std::vector<double> one = demonstrationValues(model, map, pairs, settings);
    for (int threads : {2, 0}) {
      settings.threads = threads;
      CHECK(demonstrationValues(model, map, pairs, settings) == one);
    }
    CHECK(one[2] == 0.0);  // neighbouring cells: every copy plans the one step, nothing to teach
    CHECK(one[0] + one[1] > 0.0);
    // The cost change measured on the ground to be planned on: the image itself by default, another
    // image's map if given (then other values), a map of other features refused.
    CHECK(demonstrationValues(model, map, pairs, settings, {&map}) == one);
    const FeatureMap elsewhere = model.features().map(loadRegion(test::scene(6), s).image);
    const std::vector<double> there = demonstrationValues(model, map, pairs, settings, {&elsewhere});
    CHECK(there != one);
    CHECK(there[2] == 0.0);
    const FeatureMap other_features(2, 2, 3, std::vector<float>(12, 0.5f));
    CHECK_THROWS_WITH_AS(demonstrationValues(model, map, pairs, settings, {&other_features}),
                         doctest::Contains("every ground map must be made by the model's features"), InvalidArgument);
    settings.seed = 2;  // another committee, other values
    CHECK(demonstrationValues(model, map, pairs, settings) != one);
    SuggestionSearch search;
    search.n = 2;
    search.candidates = 20;
    search.min_separation_px = 40;
    settings.threads = 1;
    const std::vector<SuggestedPair> a = suggestDemonstrations(model, map, search, settings);
    settings.threads = 2;
    const std::vector<SuggestedPair> b = suggestDemonstrations(model, map, search, settings);
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) CHECK((a[i].start == b[i].start && a[i].goal == b[i].goal && a[i].value == b[i].value));
  }
}

TEST_CASE("suggestion: settings outside their range and unknown rules are refused by name") {
  const CostModel model = trainedModel(CostHypothesis::Linear);
  const FeatureMap map = model.features().map(loadRegion(test::scene(5), test::syntheticSettings()).image);
  const std::vector<std::pair<int, int>> pairs = {{0, 5}};
  const auto refused = [&](const SuggestionSettings& bad, const char* message) {
    CHECK_THROWS_WITH_AS(bad.validate(), doctest::Contains(message), InvalidArgument);
    CHECK_THROWS_WITH_AS(demonstrationValues(model, map, pairs, bad), doctest::Contains(message), InvalidArgument);
    CHECK_THROWS_WITH_AS(suggestDemonstrations(model, map, {}, bad), doctest::Contains(message), InvalidArgument);
  };
  // An unknown rule cannot be held (the rule is a SuggestionRule): its name is refused where it is read.
  CHECK_THROWS_WITH_AS(parseSuggestionRule("comittee"), doctest::Contains("suggest.rule: expected one of change, committee, got 'comittee'"),
                       InvalidArgument);
  CHECK(parseSuggestionRule("committee") == SuggestionRule::Committee);
  CHECK(describe(SuggestionRule::Change) == "change");
  SuggestionSettings bad;
  bad.members = 0;
  refused(bad, "suggest.members: expected a whole number 1..1000, got '0'");
  bad = {};
  bad.spread = 0.0;
  refused(bad, "suggest.spread");
  bad = {};
  bad.spread = 1e308;  // every pair valued 0 before it had a bound
  refused(bad, "suggest.spread: expected a number in (0, 5], got '1e+308'");
  bad = {};
  bad.threads = -1;
  refused(bad, "suggest.threads");
  bad = {};
  bad.threads = 100000;
  refused(bad, "suggest.threads: expected a whole number 0..256, got '100000'");
  bad = {};
  bad.sample_cells = 9;
  refused(bad, "suggest.sample_cells: expected a whole number 10..10000000, got '9'");
  CHECK_NOTHROW(SuggestionSettings{}.validate());
  // The search: a separation of 0 or less listed one pair several times; NaN found nothing.
  for (const double separation : {0.0, -5.0, std::numeric_limits<double>::quiet_NaN()}) {
    SuggestionSearch search;
    search.min_separation_px = separation;
    CAPTURE(separation);
    CHECK_THROWS_WITH_AS(search.validate(), doctest::Contains("suggest.min_separation_px: expected a number in (0, 10000000]"),
                         InvalidArgument);
    CHECK_THROWS_WITH_AS(suggestDemonstrations(model, map, search), doctest::Contains("suggest.min_separation_px"), InvalidArgument);
  }
  SuggestionSearch many;
  many.candidates = 1000000000;
  CHECK_THROWS_WITH_AS(suggestDemonstrations(model, map, many), doctest::Contains("suggest.candidates: expected a whole number 1..100000"),
                       InvalidArgument);
}

// A 60 x 30 cell map of open ground (bias only) whose rows 0-29 hold a patch of ground "a" across the
// way between two cells, its cost near the break-even with the detour around it, so the committee's
// plans split between crossing and going round; row 30 is blocked, and rows 31-59 -- which no plan
// reaches -- are open ground on one map and ground "a" on the other.
TEST_CASE("suggestion: the change rule values more the pair whose disputed ground is common on the image, where committee cannot tell") {
  const CostModel trained = trainedModel(CostHypothesis::Linear);
  const int d = trained.features().features(), rows = 60, cols = 30, a = 1;
  REQUIRE(d >= 2);
  Eigen::VectorXd w = Eigen::VectorXd::Zero(d);
  w[kBiasIndex] = 1.0;
  w[a] = 0.9;  // crossing the 10 cells of the patch costs about what the detour round its top adds
  const CostModel model(trained.features(), w, CostForm::Linear);
  const auto makeMap = [&](bool common) {
    std::vector<float> values(static_cast<std::size_t>(rows * cols * d), 0.0f);
    std::vector<std::uint8_t> blocked(static_cast<std::size_t>(rows * cols), 0);
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) {
        const std::size_t s = static_cast<std::size_t>(r * cols + c);
        values[s * d + kBiasIndex] = 1.0f;
        const bool patch = r >= 5 && r < 30 && c >= 10 && c < 20;
        if (patch || (common && r > 30)) values[s * d + a] = 1.0f;
        if (r == 30) blocked[s] = 1;
      }
    }
    FeatureMap map(rows, cols, d, std::move(values));
    map.setBlocked(std::move(blocked));
    return map;
  };
  const FeatureMap rare = makeMap(false), common = makeMap(true);
  const std::vector<std::pair<int, int>> pairs = {{15 * cols + 2, 15 * cols + 27}};
  SuggestionSettings settings;
  settings.rule = SuggestionRule::Committee;
  settings.members = 16;
  const std::vector<double> committee_rare = demonstrationValues(model, rare, pairs, settings);
  const std::vector<double> committee_common = demonstrationValues(model, common, pairs, settings);
  REQUIRE(committee_rare[0] > 0.0);  // the committee disputes the pair: some copies cross, some go round
  CHECK(committee_rare == committee_common);  // the same plans: committee cannot tell the maps apart
  settings.rule = SuggestionRule::Change;
  const double change_rare = demonstrationValues(model, rare, pairs, settings)[0];
  const double change_common = demonstrationValues(model, common, pairs, settings)[0];
  CHECK(change_rare > 0.0);
  // ground "a" on 250 of 1770 passable cells (sd 0.35) against 1120 (sd 0.48): a demonstration there
  // would move the costs of more of the image
  CHECK(change_common > 1.2 * change_rare);
}

TEST_CASE("suggestion: pairs inside the region, none in or through an excluded box, none along taught ground") {
  PipelineSettings s = test::syntheticSettings();
  const CostModel model = trainedModel(CostHypothesis::Linear);
  const FeatureMap map = model.features().map(loadRegion(test::scene(5), s).image);
  const int rows = map.rows(), cols = map.cols();
  SuggestionSearch search;
  search.n = 3;
  search.candidates = 60;
  search.min_separation_px = 60.0;
  const std::vector<SuggestedPair> free = suggestDemonstrations(model, map, search);
  REQUIRE_FALSE(free.empty());

  SuggestionArea area;
  area.region = {0, 0, rows, cols / 2};                    // the left half
  area.excluded = {{0, 0, rows / 3, cols / 2}};            // its top third kept for checking
  const std::vector<SuggestedPair> inside = suggestDemonstrations(model, map, search, {}, nullptr, {}, area);
  REQUIRE_FALSE(inside.empty());
  GridPlanner planner(rows, cols);
  const std::vector<double> costs = model.costs(map).costs;
  for (const SuggestedPair& p : inside) {
    for (const int end : {p.start, p.goal}) {
      CHECK(area.region.contains(end, cols));
      CHECK_FALSE(area.excluded[0].contains(end, cols));
    }
    const PlanResult plan = planner.plan(costs, p.start, p.goal);
    REQUIRE(plan.status == PlanStatus::Success);
    for (const int cell : plan.path) CHECK_FALSE(area.excluded[0].contains(cell, cols));
  }

  // the first free suggestion's plan taught: it is not suggested again
  SuggestionArea taught;
  taught.taught = planner.plan(costs, free[0].start, free[0].goal).path;
  const std::vector<SuggestedPair> after = suggestDemonstrations(model, map, search, {}, nullptr, {}, taught);
  for (const SuggestedPair& p : after) CHECK_FALSE((p.start == free[0].start && p.goal == free[0].goal));

  SuggestionArea off;
  off.region = {0, 0, rows + 1, cols};
  CHECK_THROWS_WITH_AS(suggestDemonstrations(model, map, search, {}, nullptr, {}, off), doctest::Contains("the region (cell rows 0.."),
                       InvalidArgument);
}
