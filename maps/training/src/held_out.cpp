#include <mmp/maps/training/held_out.hpp>

#include <mmp/core/error.hpp>
#include <mmp/maps/training/regions.hpp>
#include <mmp/planning/grid_planner.hpp>
#include <mmp/planning/path.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mmp {
namespace {

// The modified Hausdorff distance of two cell paths, in pixels (evaluation.hpp's MHD, without labels).
double pathMhd(const std::vector<int>& a, const std::vector<int>& b, int cols, int cell_size) {
  const auto directed = [cols](const std::vector<int>& from, const std::vector<int>& to) {
    double sum = 0.0;
    for (int s : from) sum += nearestCellDistance(s, to, cols);
    return sum / static_cast<double>(from.size());
  };
  return cell_size * std::max(directed(a, b), directed(b, a));
}

}  // namespace

HeldOutPlan scoreHeldOut(const CostGrid& grid, const PathExample& example, int cell_size) {
  const std::vector<int>& demo = example.demonstration();
  GridPlanner planner(grid.rows, grid.cols);
  const PlanResult plan = planner.plan(grid.costs, demo.front(), demo.back());
  HeldOutPlan fit;
  if (plan.status != PlanStatus::Success) return fit;
  fit.planned = true;
  fit.loss = example.predictionLoss(plan.path);
  fit.mhd_px = pathMhd(plan.path, demo, grid.cols, cell_size);
  const double plan_cost = pathIntegral(plan.path, grid.cols, grid.costs);
  fit.cost_ratio = plan_cost > 0.0 ? pathIntegral(demo, grid.cols, grid.costs) / plan_cost : 1.0;
  return fit;
}

void HeldOutTally::add(const HeldOutPlan& baseline, const HeldOutPlan& model) {
  const auto count = [](HeldOutFit& sum, const HeldOutPlan& fit, std::vector<double>& losses) {
    losses.push_back(fit.planned ? fit.loss : std::numeric_limits<double>::quiet_NaN());
    if (!fit.planned) {
      ++sum.unplanned;
      return;
    }
    sum.loss += fit.loss, sum.mhd_px += fit.mhd_px, sum.cost_ratio += fit.cost_ratio;
  };
  count(report_.baseline, baseline, report_.baseline_loss);
  count(report_.model, model, report_.model_loss);
  ++report_.demonstrations;
  if (baseline.planned && model.planned) {  // paired: both planned
    baseline_.push_back(baseline);
    model_.push_back(model);
  }
}

HeldOutPathReport HeldOutTally::finish() {
  for (HeldOutFit* fit : {&report_.baseline, &report_.model}) {
    const double planned = report_.demonstrations - fit->unplanned;
    if (planned > 0) fit->loss /= planned, fit->mhd_px /= planned, fit->cost_ratio /= planned;
  }
  if (!model_.empty()) {
    const auto paired = [this](double HeldOutPlan::*statistic) {
      std::vector<double> model, baseline;
      for (const HeldOutPlan& p : model_) model.push_back(p.*statistic);
      for (const HeldOutPlan& p : baseline_) baseline.push_back(p.*statistic);
      return comparePairedValues(model, baseline);
    };
    report_.gain = paired(&HeldOutPlan::loss);
    report_.mhd_gain = paired(&HeldOutPlan::mhd_px);
    report_.ratio_gain = paired(&HeldOutPlan::cost_ratio);
  }
  return report_;
}

HeldOutPathReport crossValidateDemonstrations(const PipelineSettings& settings, int folds, const StageCallback& progress) {
  struct Ref {
    std::size_t region, path;
  };
  std::vector<Ref> refs;
  for (std::size_t r = 0; r < settings.train.size(); ++r) {
    for (std::size_t p = 0; p < settings.train[r].demonstrations.size(); ++p) refs.push_back({r, p});
  }
  if (refs.size() < 2 || folds < 2) {
    throw InvalidArgument(prefix(settings) + "holding demonstrations out needs at least 2 demonstrations (" +
                          std::to_string(refs.size()) + " given) and 2 folds");
  }
  const std::size_t k = std::min(static_cast<std::size_t>(folds), refs.size());
  std::vector<std::pair<HeldOutPlan, HeldOutPlan>> plans(refs.size());
  for (std::size_t f = 0; f < k; ++f) {
    if (progress) progress("holding demonstrations out", static_cast<long>(f), static_cast<long>(k), "fold " + std::to_string(f + 1));
    PipelineSettings s = settings;
    s.holdout.clear();
    s.train.clear();
    for (std::size_t r = 0, index = 0; r < settings.train.size(); ++r) {
      RegionSpec spec = settings.train[r];
      spec.demonstrations.clear();
      for (const PixelPath& path : settings.train[r].demonstrations) {
        if (index++ % k != f) spec.demonstrations.push_back(path);
      }
      const bool taught = !spec.demonstrations.empty() || (settings.train[r].demonstrations.empty() && spec.hasLabels());
      if (taught) s.train.push_back(std::move(spec));
    }
    const TrainingData data = loadTrainingData(s);
    const TrainedCostModel trained = train(data, s);
    const PathExample::Params params = exampleParams(s);
    const int cell_size = s.features.cell_size;
    for (std::size_t r = 0; r < settings.train.size(); ++r) {
      std::shared_ptr<const FeatureMap> map;
      Region region;
      CostGrid grid, uniform;
      for (std::size_t i = 0; i < refs.size(); ++i) {
        if (i % k != f || refs[i].region != r) continue;
        if (!map) {  // the image under this fold's model, once
          region = loadRegion(settings.train[r], s);
          map = regionMap(trained.model.features(), region);
          region.map = map;
          grid = regionCosts(trained.model, region);
          uniform = grid;
          for (double& c : uniform.costs) c = std::isfinite(c) ? 1.0 : c;
        }
        const RegionSpec& spec = settings.train[r];
        const std::vector<int> cells = pathCells(spec.demonstrations[refs[i].path], cell_size, region.rows(), region.cols(),
                                                 prefix(s) + spec.where + ".demonstrations", region.frame);
        const PathExample example(map, cells, params);
        plans[i] = {scoreHeldOut(uniform, example, cell_size), scoreHeldOut(grid, example, cell_size)};
      }
    }
  }
  if (progress) progress("holding demonstrations out", static_cast<long>(k), static_cast<long>(k), "");
  HeldOutTally tally;
  for (const auto& [baseline, model] : plans) tally.add(baseline, model);
  return tally.finish();
}

}  // namespace mmp
