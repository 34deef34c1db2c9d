// bench_maxent: what one Maximum Entropy IRL expectation call costs beside one A* call (issue 30,
// item 3), on the Dubai part the issue names (tile 8 part 004), and what the region margin of
// MaxEntPlanner changes (a benchmark, not a test).
//
//   For each of the part's generated demonstrations (configs/follow_road.yaml's demonstration
//   settings), on the behaviour's true cell costs times --cost-scale (by default 2, so the cheapest
//   class costs 2 > kMaxEntSafeCost and the model is normalisable; the costs a MaxEnt-trained model
//   approximates up to such a scale): one A* search start -> goal, and one MaxEntPlanner::solve
//   (both passes and the visits) on the full grid and with region margins --margins.  Reports the
//   median over --repeats of each call's mean milliseconds, the sweeps and region size, and against
//   the full grid: the largest |log Z error| and the largest total-variation share of the expected
//   visits, sum |visits - visits_full| / sum visits_full.
// Prints a table and, last, one JSON line.
#include <mmp/frontend/json_output.hpp>
#include <mmp/frontend/train_config.hpp>

#include <mmp/maps/training/pipeline.hpp>
#include <mmp/planning/grid_planner.hpp>
#include <mmp/planning/maxent_planner.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

double msSince(Clock::time_point t0) { return 1e3 * std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Row {
  std::string name;
  double ms = 0.0, sweeps = 0.0, cells = 0.0, log_z_error = 0.0, visit_tv = 0.0;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_maxent: one MaxEnt IRL expectation call beside one A* call on Dubai tile 8 part 004"};
  std::string config_path = "configs/follow_road.yaml", data_root;
  double cost_scale = 2.0;
  int repeats = 3;
  std::vector<double> margins = {40.0, 20.0, 10.0};
  app.add_option("--config", config_path, "a whole-area config (its behaviour and demonstration settings)")->capture_default_str();
  app.add_option("--data-root", data_root, "folder holding aerial/dubai_hitl (default: the config's)");
  app.add_option("--cost-scale", cost_scale, "factor on the behaviour's true costs")->capture_default_str();
  app.add_option("--margins", margins, "region margins to time beside the full grid")->capture_default_str();
  app.add_option("--repeats", repeats, "passes over the demonstrations (the median is reported)")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    mmp::tools::TrainConfig config = mmp::tools::loadTrainConfig(config_path, data_root, "", {});
    const fs::path images = fs::path(config.data_root) / "aerial/dubai_hitl/images";
    mmp::RegionSpec part;
    part.name = "tile8_image_part_004";
    part.where = "train";
    part.image = (images / (part.name + ".jpg")).string();
    part.labels = (fs::path(config.data_root) / "aerial/dubai_hitl/labels_index" / (part.name + ".png")).string();
    // Tile 8 is a holdout tile of the shipped configs: nothing is trained here, the part only gives
    // a cost grid and start/goal pairs.
    mmp::PipelineSettings one = config;
    one.train = {part};
    one.holdout.clear();
    const mmp::TrainingData data = mmp::loadTrainingData(one);
    const mmp::Region& region = data.regions.at(0);
    std::vector<double> costs = region.true_costs;
    for (double& c : costs) c *= cost_scale;
    const int rows = region.rows(), cols = region.cols();

    std::vector<Row> rows_out;
    Row astar{"A* (one oracle search)"};
    std::vector<double> astar_ms;
    mmp::GridPlanner planner(rows, cols);
    double expansions = 0.0;
    for (int repeat = 0; repeat < repeats; ++repeat) {
      const auto t0 = Clock::now();
      for (const std::vector<int>& demo : region.demonstrations) {
        const mmp::PlanResult plan = planner.plan(costs, demo.front(), demo.back());
        if (repeat == 0) expansions += static_cast<double>(plan.expansions) / region.demonstrations.size();
      }
      astar_ms.push_back(msSince(t0) / region.demonstrations.size());
    }
    astar.ms = median(astar_ms);
    astar.cells = expansions;
    rows_out.push_back(astar);

    std::vector<std::vector<double>> full_visits;
    std::vector<double> full_log_z;
    std::vector<double> all_margins = {std::numeric_limits<double>::infinity()};
    all_margins.insert(all_margins.end(), margins.begin(), margins.end());
    for (double margin : all_margins) {
      mmp::MaxEntPlanner::Params params;
      params.region_margin = margin;
      mmp::MaxEntPlanner soft(rows, cols, params);
      Row row{std::isinf(margin) ? std::string("MaxEnt, full grid") : "MaxEnt, region margin " + std::to_string(margin).substr(0, 4)};
      std::vector<double> ms;
      for (int repeat = 0; repeat < repeats; ++repeat) {
        double total = 0.0;
        for (std::size_t i = 0; i < region.demonstrations.size(); ++i) {
          const std::vector<int>& demo = region.demonstrations[i];
          const auto t0 = Clock::now();
          const mmp::SoftPlanResult r = soft.solve(costs, demo.front(), demo.back());
          total += msSince(t0);
          if (r.status != mmp::SoftPlanStatus::Success) {
            throw std::runtime_error(std::string("maxent planner: ") + mmp::describe(r.status) + ": " + r.message);
          }
          if (repeat > 0) continue;
          const double n = static_cast<double>(region.demonstrations.size());
          row.sweeps += (r.backward_sweeps + r.forward_sweeps) / n;
          row.cells += static_cast<double>(r.region_cells) / n;
          if (std::isinf(margin)) {
            full_visits.push_back(r.visits);
            full_log_z.push_back(r.log_partition);
            continue;
          }
          double diff = 0.0, mass = 0.0;
          for (std::size_t s = 0; s < r.visits.size(); ++s) {
            diff += std::abs(r.visits[s] - full_visits[i][s]);
            mass += full_visits[i][s];
          }
          row.visit_tv = std::max(row.visit_tv, diff / mass);
          row.log_z_error = std::max(row.log_z_error, std::abs(r.log_partition - full_log_z[i]));
        }
        ms.push_back(total / region.demonstrations.size());
      }
      row.ms = median(ms);
      rows_out.push_back(row);
    }

    std::printf("tile 8_004: %d x %d cells, %zu demonstrations, true costs x %g\n", rows, cols,
                region.demonstrations.size(), cost_scale);
    std::printf("%-34s %10s %10s %12s %12s %12s\n", "call", "ms", "sweeps", "cells", "|dlogZ|", "visits TV");
    mmp::tools::Json line;
    line["rows"] = rows;
    line["cols"] = cols;
    line["demonstrations"] = region.demonstrations.size();
    line["cost_scale"] = cost_scale;
    line["astar_ms"] = astar.ms;
    line["astar_expansions"] = astar.cells;
    for (std::size_t k = 0; k < rows_out.size(); ++k) {
      const Row& r = rows_out[k];
      std::printf("%-34s %10.2f %10.1f %12.0f %12.3g %12.3g\n", r.name.c_str(), r.ms, r.sweeps, r.cells, r.log_z_error,
                  r.visit_tv);
      if (k == 0) continue;
      mmp::tools::Json entry;
      entry["margin"] = all_margins[k - 1];
      entry["ms"] = r.ms;
      entry["sweeps"] = r.sweeps;
      entry["region_cells"] = r.cells;
      entry["log_z_error"] = r.log_z_error;
      entry["visits_tv"] = r.visit_tv;
      line["maxent"].push_back(entry);
    }
    std::printf("%s\n", mmp::tools::jsonText(line, -1).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_maxent: %s\n", e.what());
    return 1;
  }
  return 0;
}
