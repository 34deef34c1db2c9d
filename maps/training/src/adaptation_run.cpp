#include <mmp/maps/training/adaptation_run.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/model_file.hpp>
#include <mmp/maps/training/evaluation.hpp>
#include <mmp/maps/training/regions.hpp>
#include <mmp/planning/grid_planner.hpp>
#include <mmp/planning/path.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>

namespace mmp {
namespace {

// The modified Hausdorff distance of two cell paths, in pixels (evaluation.hpp's MHD, without labels).
double pathMhd(const std::vector<int>& a, const std::vector<int>& b, int cols, int cell_size) {
  const auto directed = [cols](const std::vector<int>& from, const std::vector<int>& to) {
    double sum = 0.0;
    for (int s : from) {
      double nearest = std::numeric_limits<double>::infinity();
      for (int t : to) nearest = std::min(nearest, std::hypot(s / cols - t / cols, s % cols - t % cols));
      sum += nearest;
    }
    return sum / static_cast<double>(from.size());
  };
  return cell_size * std::max(directed(a, b), directed(b, a));
}

// How `model` plans between the ends of `demo` on `map` (its costs `costs`), against `demo`.
struct Fit {
  bool planned = false;
  double loss = 0.0, mhd_px = 0.0, cost_ratio = 1.0;
};

Fit fitOf(const CostGrid& grid, const PathExample& example, const std::vector<int>& demo, int cell_size) {
  GridPlanner planner(grid.rows, grid.cols);
  const PlanResult plan = planner.plan(grid.costs, demo.front(), demo.back());
  Fit fit;
  if (plan.status != PlanStatus::Success) return fit;
  fit.planned = true;
  fit.loss = example.predictionLoss(plan.path);
  fit.mhd_px = pathMhd(plan.path, demo, grid.cols, cell_size);
  const double plan_cost = pathIntegral(plan.path, grid.cols, grid.costs);
  fit.cost_ratio = plan_cost > 0.0 ? pathIntegral(demo, grid.cols, grid.costs) / plan_cost : 1.0;
  return fit;
}

// Leave one demonstration out: for each, the model taught on the others plans between its ends.
HeldOutReport heldOut(const CostModel& parent, const AdaptationRunSettings& settings,
                      const std::vector<std::shared_ptr<const FeatureMap>>& maps, const std::vector<TeachingRecord>& taught,
                      const StageCallback& progress) {
  HeldOutReport report;
  const int n = static_cast<int>(taught.size());
  if (!settings.held_out || n < 2) return report;
  const int cell_size = parent.features().settings().cell_size;
  const PathExample::Params params = adaptationExampleParams(settings.adapt, parent);
  std::vector<CostGrid> parent_grids;
  for (const auto& map : maps) parent_grids.push_back(parent.costs(*map));
  std::vector<PlanScore> parent_scores, adapted_scores;
  const auto add = [](HeldOutFit& sum, const Fit& fit, std::vector<double>& losses) {
    losses.push_back(fit.planned ? fit.loss : std::numeric_limits<double>::quiet_NaN());
    if (!fit.planned) {
      ++sum.unplanned;
      return;
    }
    sum.loss += fit.loss, sum.mhd_px += fit.mhd_px, sum.cost_ratio += fit.cost_ratio;
  };
  for (int d = 0; d < n; ++d) {
    if (progress) progress("scoring each demonstration held out", d, n, taught[static_cast<std::size_t>(d)].name);
    const TeachingRecord& held = taught[static_cast<std::size_t>(d)];
    CostModelTeacher teacher(parent, settings.adapt);
    for (std::size_t i = 0; i < maps.size(); ++i) teacher.addImage(maps[i], "image " + std::to_string(i));
    std::vector<TaughtDemonstration> others;
    for (int o = 0; o < n; ++o) {
      if (o != d) others.push_back({taught[static_cast<std::size_t>(o)].image, taught[static_cast<std::size_t>(o)].cells});
    }
    teacher.teach(others);
    const auto& map = maps[static_cast<std::size_t>(held.image)];
    const PathExample example(map, held.cells, params);
    const Fit before = fitOf(parent_grids[static_cast<std::size_t>(held.image)], example, held.cells, cell_size);
    const Fit after = fitOf(teacher.model().costs(*map), example, held.cells, cell_size);
    add(report.parent, before, report.parent_loss);
    add(report.adapted, after, report.adapted_loss);
    if (before.planned && after.planned) {  // paired: both planned
      PlanScore p, a;
      p.cost_ratio = before.loss;
      a.cost_ratio = after.loss;
      parent_scores.push_back(p);
      adapted_scores.push_back(a);
    }
  }
  if (progress) progress("scoring each demonstration held out", n, n, "");
  report.demonstrations = n;
  for (HeldOutFit* fit : {&report.parent, &report.adapted}) {
    const double planned = n - fit->unplanned;
    if (planned > 0) fit->loss /= planned, fit->mhd_px /= planned, fit->cost_ratio /= planned;
  }
  if (!adapted_scores.empty()) report.gain = comparePaired(adapted_scores, parent_scores);
  return report;
}

}  // namespace

AdaptationRun adaptAndReport(const CostModel& parent, const AdaptationRunSettings& settings, const TeachingProgress& teaching,
                             const StageCallback& progress) {
  if (settings.train.empty()) throw ConfigError(prefix(settings) + "teach: give at least one image to teach on");
  settings.adapt.validate();
  PipelineSettings s = settings;
  s.features = parent.features().settings();  // the parent's grid: cells of its size
  for (const RegionSpec& spec : settings.train) {
    if (spec.hasLabels() && s.behaviour.preferred < 0) {
      throw ConfigError(prefix(settings) + spec.where + ": demonstrations generated on labels need classes and a behaviour");
    }
  }
  if (!settings.holdout.empty() && s.behaviour.preferred < 0) {
    throw ConfigError(prefix(settings) + "holdout: scoring needs classes and a behaviour (its true costs)");
  }

  AdaptationRun run{parent, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
  std::vector<std::shared_ptr<const FeatureMap>> maps;
  std::vector<std::string> fingerprints;
  for (std::size_t i = 0; i < settings.train.size(); ++i) {
    const RegionSpec& spec = settings.train[i];
    if (progress) progress("loading teach images", static_cast<long>(i), static_cast<long>(settings.train.size()), spec.name);
    Region region = loadRegion(spec, s);
    addDemonstrations(region, s, static_cast<int>(i));
    region.map = regionMap(parent.features(), region);
    std::vector<float>().swap(region.raw.values);  // the map holds what teaching needs
    maps.push_back(region.map);
    fingerprints.push_back(spec.image.empty() ? "" : fileChecksum(spec.image));
    for (std::size_t d = 0; d < region.demonstrations.size(); ++d) {
      const std::string name = d < spec.demonstrations.size() && !spec.demonstrations[d].name.empty()
                                   ? spec.name + " path '" + spec.demonstrations[d].name + "'"
                                   : spec.name + " demonstration " + std::to_string(d + 1);
      run.taught.push_back({static_cast<int>(i), name, region.demonstrations[d], {}});
    }
    run.teach_regions.push_back(std::move(region));
  }
  const int n = static_cast<int>(run.taught.size());
  if (n == 0) throw DataError(prefix(settings) + "teach: no demonstration on any image");

  AdaptationRunSettings chosen = settings;
  run.lambda = settings.adapt.lambda;
  if (settings.lambdas.size() > 1) {
    if (!parent.trees().empty()) {
      run.selection_note = "adapt.lambda applies to linear models; a LEARCH model adapts with adapt.learch_rounds";
    } else if (n < AdaptationRunSettings::kSelectionDemonstrations) {
      run.selection_note = std::to_string(n) + " demonstration(s) are too few to choose adapt.lambda on (" +
                           std::to_string(AdaptationRunSettings::kSelectionDemonstrations) + " or more): " +
                           numberText(run.lambda) + " kept";
    } else {
      chosen.held_out = true;
      double best = std::numeric_limits<double>::infinity();
      std::optional<HeldOutReport> best_report;
      for (double lambda : settings.lambdas) {
        chosen.adapt.lambda = lambda;
        chosen.adapt.validate();
        const HeldOutReport r = heldOut(parent, chosen, maps, run.taught, progress);
        const double loss = r.adapted.unplanned > 0 ? std::numeric_limits<double>::infinity() : r.adapted.loss;
        run.lambda_selection.push_back({lambda, loss});
        if (!best_report || loss < best || (loss == best && lambda > run.lambda)) {
          best = loss, run.lambda = lambda, best_report = r;
        }
      }
      if (settings.held_out) run.held_out = *best_report;
    }
  }
  chosen.adapt.lambda = run.lambda;
  chosen.held_out = settings.held_out;

  CostModelTeacher teacher(parent, chosen.adapt);
  for (std::size_t i = 0; i < maps.size(); ++i) teacher.addImage(maps[i], settings.train[i].name, fingerprints[i]);
  for (int k = 0; k < n; ++k) {
    TeachingRecord& record = run.taught[static_cast<std::size_t>(k)];
    try {
      record.step = teacher.teach(record.image, record.cells);
    } catch (const Error& e) {
      throw DataError(prefix(settings) + record.name + ": " + e.what());
    }
    if (teaching) teaching(k + 1, n, record);
  }
  run.model = teacher.model();
  if (run.lambda_selection.empty()) run.held_out = heldOut(parent, chosen, maps, run.taught, progress);

  for (std::size_t i = 0; i < settings.holdout.size(); ++i) {
    const std::string name = settings.holdout[i].name;
    if (progress) progress("scoring the holdout", static_cast<long>(i), static_cast<long>(settings.holdout.size()), name);
    const HoldoutImage image = loadHoldout(s, static_cast<int>(i), parent.features());
    run.holdouts.push_back(scoreHoldout(s, image, run.model, nullptr));
    run.parent_holdouts.push_back(scoreHoldout(s, image, parent, nullptr));
  }
  if (!run.holdouts.empty()) {
    run.report = reportHoldouts(run.holdouts, s.classes);
    run.parent_report = reportHoldouts(run.parent_holdouts, s.classes);
    run.versus_parent =
        comparePaired(run.report.scores.at(Method::Learned), run.parent_report.scores.at(Method::Learned));
  }
  return run;
}

}  // namespace mmp
