// bench_planners: OMPL's sampling-based planners against the exact grid A* on learned cost maps (a
// benchmark, not a test).
//
// The cost maps are a trained model's (--model, e.g. out/follow_road/model.mmp from `mmp train
// configs/follow_road.yaml`) on the holdout parts of the config (or --images).  On each part: --pairs
// seeded start/goal pairs of passable cells at least the config's evaluation.min_separation_px apart
// that A* connects, the exact GridPlanner optimum for each, then every planner at every budget
// (planOmpl, OMPL seed 1 + pair index) from the same cell centres.  Both are scored by the same cost
// integral (cost_field.hpp), so cost / A* cost is the planner's excess over the 8-neighbour optimum;
// it may fall below 1 because a motion may take any angle.
//
// Car-like vehicles (--vehicles dubins,reeds-shepp --turning-radius R): each planner that can plan
// for a car (plannerFitsVehicle) also plans each pair as that car, headings towards the goal at both
// ends, under the same budget; its cost is reported over A*'s and over the same planner's (x, y)
// plan of the pair at the same budget ("vs point"), which is always run as the reference.
//
// Without the images (the Dubai data, ../shared/data/aerial/dubai_hitl) it says so and exits 0.
//
// Runs are serial: one planner at a time (PRM* and Lazy PRM* themselves run a second thread while
// they plan).  Budgets are wall clock, so on a shared machine every figure is under that machine's
// load.  Prints one line per run to stderr, a table per planner and budget, and, last, one JSON line.
#include <mmp/learners/learner.hpp>
#include <mmp/frontend/config.hpp>
#include <mmp/core/numbers.hpp>
#include <mmp/frontend/json_output.hpp>
#include <mmp/frontend/learner_config.hpp>
#include <mmp/frontend/train_config.hpp>

#include <mmp/core/random.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/imagery.hpp>
#include <mmp/planning/cost_field.hpp>
#include <mmp/planning/grid_planner.hpp>
#include <mmp/planning/ompl_planning.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

namespace {

using mmp::kInf;
using mmp::secondsSince;  // learners/learner.hpp

using Clock = std::chrono::steady_clock;


struct Pair {
  int start = 0, goal = 0;
  double astar_cost = 0.0, astar_ms = 0.0;
};

// Seeded pairs of passable cells at least min_separation cells apart that A* connects.
std::vector<Pair> drawPairs(const mmp::CostGrid& grid, int count, double min_separation, std::uint64_t seed) {
  mmp::Random rng(seed);
  mmp::GridPlanner planner(grid.rows, grid.cols);
  std::vector<Pair> pairs;
  const auto n = static_cast<std::uint64_t>(grid.cells());
  for (long attempt = 0; static_cast<int>(pairs.size()) < count; ++attempt) {
    if (attempt > 1000L * count) throw std::runtime_error("cannot draw " + std::to_string(count) + " connected pairs");
    Pair p;
    p.start = static_cast<int>(rng.below(n));
    p.goal = static_cast<int>(rng.below(n));
    if (grid.blocked(p.start) || grid.blocked(p.goal)) continue;
    if (std::hypot(p.start / grid.cols - p.goal / grid.cols, p.start % grid.cols - p.goal % grid.cols) < min_separation) continue;
    const auto t0 = Clock::now();
    const mmp::PlanResult plan = planner.plan(grid.costs, p.start, p.goal);
    p.astar_ms = 1e3 * secondsSince(t0);
    if (plan.status != mmp::PlanStatus::Success) continue;
    p.astar_cost = plan.cost;
    // The same integral scores both planners: A*'s path as a polyline must cost what A* says.
    const double rescored = mmp::polylineCost(grid, mmp::cellCentres(plan.path, grid.cols));
    if (std::abs(rescored - plan.cost) > 1e-9 * plan.cost) throw std::runtime_error("A* path rescored differently");
    pairs.push_back(p);
  }
  return pairs;
}

struct Cell {  // one planner for one vehicle at one budget, over every part and pair
  int runs = 0, successes = 0, approximate = 0, below_astar = 0;
  std::vector<double> ratios;        // successes only
  std::vector<double> point_ratios;  // a car's cost over the point plan's, both successes
  double seconds = 0.0;
  long iterations = 0, iteration_runs = 0, states = 0;
};

double mean(const std::vector<double>& v) {
  return v.empty() ? NAN : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_planners: OMPL planners against exact grid A* on learned cost maps of Dubai parts"};
  std::string model_path, config_path = "configs/follow_road.yaml", data_root;
  std::vector<std::string> images, planner_names, vehicle_names = {"point"};
  double turning_radius = 0.0;
  std::vector<double> budgets = {1.0, 5.0, 20.0};
  int pair_count = 20;
  std::uint64_t seed = 7;
  double min_separation_px = -1.0;
  bool no_simplify = false;
  app.add_option("--model", model_path, "trained model file, e.g. out/follow_road/model.mmp")->required();
  app.add_option("--config", config_path, "train config whose holdout parts are planned on")->capture_default_str();
  app.add_option("--data-root", data_root, "folder holding aerial/dubai_hitl (default: the config's)");
  app.add_option("--images", images, "images to plan on instead of the config's holdout parts")->delimiter(',');
  app.add_option("--pairs", pair_count, "start/goal pairs per part")->capture_default_str();
  app.add_option("--budgets", budgets, "time budgets per OMPL run, seconds (e.g. 1,5,20)")->delimiter(',')->capture_default_str();
  app.add_option("--planners", planner_names, "OMPL planners, e.g. rrtstar,bitstar (default: all)")->delimiter(',');
  app.add_option("--seed", seed, "seed of the start/goal pairs")->capture_default_str();
  app.add_option("--min-separation-px", min_separation_px, "smallest start-goal distance (default: the config's evaluation one)");
  app.add_flag("--no-simplify", no_simplify, "report the planners' paths without the cost-checked shortcut");
  app.add_option("--vehicles", vehicle_names, "point and/or cars: dubins, reeds-shepp (point always runs, as the cars' "
                                              "reference)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--turning-radius", turning_radius, "the cars' turning radius, pixels (world units for images with a "
                                                     "world frame)")
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  try {
    const auto skip = [](const std::string& missing) {
      std::printf("bench_planners: skipped: no %s (the Dubai data: see aerial/dubai_hitl/README.md of the data folder; "
                  "--data-root DIR)\n", missing.c_str());
      return 0;
    };
    const std::string root = mmp::tools::resolveDataRoot(data_root, mmp::tools::ConfigNode::load(config_path));
    if (images.empty() && !std::filesystem::exists(root + "/aerial/dubai_hitl")) return skip(root + "/aerial/dubai_hitl");
    for (const std::string& image : images) {
      if (!std::filesystem::exists(image)) return skip("image " + image);
    }
    const mmp::tools::TrainConfig config = mmp::tools::loadTrainConfig(config_path, data_root);
    if (images.empty()) {
      for (const mmp::RegionSpec& h : config.holdout) images.push_back(h.image);
    }
    if (min_separation_px < 0.0) min_separation_px = config.evaluation.min_separation_px;
    std::vector<mmp::Vehicle> vehicles = {mmp::Vehicle::Point};
    for (const std::string& name : vehicle_names) {
      const mmp::Vehicle vehicle = mmp::parseVehicleName(name);
      if (vehicle != mmp::Vehicle::Point) vehicles.push_back(vehicle);
    }
    if (vehicles.size() > 1 && turning_radius == 0.0) throw std::runtime_error("--vehicles with a car needs --turning-radius");
    std::vector<mmp::OmplPlanner> planners;
    for (const std::string& name : planner_names) planners.push_back(mmp::parsePlannerName(name));
    if (planners.empty()) planners = mmp::omplPlanners();
    for (double b : budgets) {
      if (!(b > 0.0)) throw std::runtime_error("--budgets must be > 0");
    }
    const mmp::CostModel model = mmp::CostModel::load(model_path);

    std::map<std::tuple<int, int, int>, Cell> cells;  // (planner index, vehicle index, budget index)
    std::vector<double> astar_ms;
    mmp::tools::Json parts = mmp::tools::Json::array();
    std::fprintf(stderr, "%-28s %4s %-16s %-12s %7s %-16s %12s %12s %8s %8s %10s\n", "part", "pair", "planner", "vehicle",
                 "budget", "status", "cost", "A* cost", "ratio", "s", "iterations");
    for (std::size_t part = 0; part < images.size(); ++part) {
      const auto t0 = Clock::now();
      const mmp::CostGrid grid = model.costs(mmp::loadImage(images[part]));
      const double costs_s = secondsSince(t0);
      const std::string name = std::filesystem::path(images[part]).stem().string();
      const std::vector<Pair> pairs = drawPairs(grid, pair_count, min_separation_px / grid.cell_size, seed + part);
      for (const Pair& p : pairs) astar_ms.push_back(p.astar_ms);
      parts.push_back({{"name", name}, {"rows", grid.rows}, {"cols", grid.cols}, {"costs_s", costs_s}});
      for (std::size_t k = 0; k < pairs.size(); ++k) {
        const Pair& p = pairs[k];
        const mmp::CellPoint start{p.start % grid.cols + 0.5, p.start / grid.cols + 0.5};
        const mmp::CellPoint goal{p.goal % grid.cols + 0.5, p.goal / grid.cols + 0.5};
        for (std::size_t i = 0; i < planners.size(); ++i) {
          for (std::size_t j = 0; j < budgets.size(); ++j) {
            double point_cost = NAN;  // the point's plan at this budget: the cars' reference (vehicles[0] is the point)
            for (std::size_t v = 0; v < vehicles.size(); ++v) {
              if (!mmp::plannerFitsVehicle(planners[i], vehicles[v])) continue;
              mmp::OmplSettings settings;
              settings.planner = planners[i];
              settings.budget_seconds = budgets[j];
              settings.seed = static_cast<std::uint32_t>(1 + k);
              settings.simplify = !no_simplify;
              settings.vehicle = vehicles[v];
              if (v > 0) settings.turning_radius = grid.cellsOfLength(turning_radius);
              const mmp::OmplResult r = mmp::planOmpl(grid, start, goal, settings);
              Cell& cell = cells[{static_cast<int>(i), static_cast<int>(v), static_cast<int>(j)}];
              ++cell.runs;
              cell.seconds += r.seconds;
              cell.states += r.states;
              if (r.iterations >= 0) cell.iterations += r.iterations, ++cell.iteration_runs;
              const double ratio = r.status == mmp::OmplStatus::Success ? r.cost / p.astar_cost : NAN;
              if (r.status == mmp::OmplStatus::Success) {
                ++cell.successes;
                cell.ratios.push_back(ratio);
                cell.below_astar += ratio < 1.0;
                if (v == 0) point_cost = r.cost;
                if (v > 0 && !std::isnan(point_cost)) cell.point_ratios.push_back(r.cost / point_cost);
              }
              cell.approximate += r.status == mmp::OmplStatus::ApproximateOnly;
              std::fprintf(stderr, "%-28s %4zu %-16s %-12s %7g %-16s %12.2f %12.2f %8.4f %8.2f %10ld\n", name.c_str(), k,
                           mmp::plannerName(planners[i]), mmp::vehicleName(vehicles[v]), budgets[j], mmp::describe(r.status),
                           r.cost, p.astar_cost, ratio, r.seconds, r.iterations);
            }
          }
        }
      }
    }

    std::printf("bench_planners: %zu parts x %d pairs, serial runs (PRM*/LazyPRM* use a second thread), wall-clock budgets "
                "on a shared machine: timings are under its load; %s\n",
                images.size(), pair_count, no_simplify ? "raw planner paths" : "paths shortcut when that lowers their cost");
    std::printf("A* (exact, 8 neighbours): mean %.1f ms per pair\n", mean(astar_ms));
    if (vehicles.size() > 1) {
      std::printf("cars: turning radius %g (pixels, or world units of a framed image), headings towards the goal; "
                  "\"vs point\": cost over the same planner's (x, y) plan at the same budget\n", turning_radius);
    }
    std::printf("%-16s %-12s %7s %6s %8s %7s %11s %13s %10s %9s %14s %16s %8s %11s %9s\n", "planner", "vehicle", "budget",
                "runs", "success", "approx", "ratio mean", "ratio median", "ratio min", "below A*", "vs point mean",
                "vs point median", "mean s", "iterations", "states");
    mmp::tools::Json results = mmp::tools::Json::array();
    for (const auto& [key, c] : cells) {  // in order of planner, vehicle, budget
      const auto [i, v, j] = key;
      const double success = static_cast<double>(c.successes) / c.runs;
      const double ratio_min = c.ratios.empty() ? NAN : *std::min_element(c.ratios.begin(), c.ratios.end());
      const double iterations = c.iteration_runs ? static_cast<double>(c.iterations) / c.iteration_runs : NAN;
      std::printf("%-16s %-12s %7g %6d %7.0f%% %7d %11.4f %13.4f %10.4f %9d %14.4f %16.4f %8.2f %11.0f %9.0f\n",
                  mmp::plannerName(planners[i]), mmp::vehicleName(vehicles[v]), budgets[j], c.runs, 100.0 * success,
                  c.approximate, mean(c.ratios), median(c.ratios), ratio_min, c.below_astar, mean(c.point_ratios),
                  median(c.point_ratios), c.seconds / c.runs, iterations, static_cast<double>(c.states) / c.runs);
      results.push_back({{"planner", mmp::plannerName(planners[i])},
                         {"vehicle", mmp::vehicleName(vehicles[v])},
                         {"budget_s", budgets[j]},
                         {"runs", c.runs},
                         {"success_rate", success},
                         {"approximate", c.approximate},
                         {"ratio_mean", mean(c.ratios)},
                         {"ratio_median", median(c.ratios)},
                         {"ratio_min", ratio_min},
                         {"below_astar", c.below_astar},
                         {"ratio_point_mean", mean(c.point_ratios)},
                         {"ratio_point_median", median(c.point_ratios)},
                         {"mean_s", c.seconds / c.runs}});
    }
    const mmp::tools::Json line = {{"parts", parts},
                                   {"pairs_per_part", pair_count},
                                   {"min_separation_px", min_separation_px},
                                   {"simplify", !no_simplify},
                                   {"turning_radius", turning_radius},
                                   {"parallel_runs", 1},
                                   {"astar_mean_ms", mean(astar_ms)},
                                   {"results", results}};
    std::printf("%s\n", mmp::tools::jsonText(line, -1).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_planners: %s\n", e.what());
    return 1;
  }
  return 0;
}
