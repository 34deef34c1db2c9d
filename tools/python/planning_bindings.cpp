// mmp.plan: exact grid A* (GridPlanner) or one of OMPL's optimizing planners (planOmpl) on a CostGrid or
// a 2-D cost array, between (row, col) cells or, given a frame, world points.  Expected outcomes (no
// path, the budget ran out) are statuses; bad input raises InvalidArgument.
#include "bindings.hpp"

#include <mmp/core/error.hpp>
#include <mmp/planning/grid_planner.hpp>
#include <mmp/planning/ompl_planning.hpp>

#include <pybind11/stl.h>

#include <chrono>
#include <cmath>

namespace mmp::python {
namespace {

struct Plan {
  py::array path;      ///< N x 2 (row, col): int64 cells (A*), float64 positions (OMPL)
  py::object world = py::none();  ///< N x 2 (x, y) in the frame, or None
  double cost = 0.0;
  std::string status, message, planner;
  double seconds = 0.0;
  long expansions = 0;  ///< A*: cells taken off the open list
  long states = 0;      ///< OMPL: states in the planner's graph
  py::object headings = py::none();  ///< a car-like vehicle's heading at each point (radians), or None
};

// A car-like vehicle for OMPL: its kind, turning radius (cells, or world units with a frame) and headings.
struct VehicleArgs {
  std::string vehicle = "point";
  std::optional<double> turning_radius, start_heading, goal_heading;
};

std::array<double, 2> pointOf(const py::object& point, const char* name) {
  std::vector<double> p;
  try {
    p = point.cast<std::vector<double>>();
  } catch (const py::cast_error&) {
  }
  if (p.size() != 2 || !std::isfinite(p[0]) || !std::isfinite(p[1])) {
    throw InvalidArgument(std::string(name) + ": expected two finite numbers, (row, col) or with a frame (x, y), got " +
                          py::repr(point).cast<std::string>());
  }
  return {p[0], p[1]};
}

std::string pointText(const char* name, const std::array<double, 2>& p, bool world) {
  return std::string(name) + (world ? " (x " : " (row ") + numberText(p[0]) + (world ? ", y " : ", col ") + numberText(p[1]) + ")";
}

// The cell A* starts or ends in.
int cellOf(const CostGrid& grid, const std::array<double, 2>& p, bool world, const char* name) {
  if (world) {
    const int cell = grid.frame.cellAt(WorldPoint{p[0], p[1]});
    if (cell < 0) throw InvalidArgument(pointText(name, p, true) + " lies outside the grid (" + grid.frame.extentText() + ")");
    return cell;
  }
  if (p[0] != std::floor(p[0]) || p[1] != std::floor(p[1])) {
    throw InvalidArgument(pointText(name, p, false) + ": A* plans between cells; give whole (row, col)");
  }
  if (!(p[0] >= 0 && p[0] < grid.rows && p[1] >= 0 && p[1] < grid.cols)) {
    throw InvalidArgument(pointText(name, p, false) + " lies outside the " + std::to_string(grid.rows) + " x " +
                          std::to_string(grid.cols) + " cells");
  }
  return static_cast<int>(p[0]) * grid.cols + static_cast<int>(p[1]);
}

Plan planAstar(const CostGrid& grid, const std::array<double, 2>& from, const std::array<double, 2>& to, bool world,
               std::optional<double> budget, int connectivity) {
  if (connectivity != 4 && connectivity != 8) {
    throw InvalidArgument("connectivity " + std::to_string(connectivity) + ": expected 4 or 8");
  }
  if (budget && !(*budget > 0.0)) throw InvalidArgument("budget " + numberText(*budget) + ": expected seconds > 0, or None");
  const int start = cellOf(grid, from, world, "start"), goal = cellOf(grid, to, world, "goal");
  const Interrupts interrupts;
  const auto begin = std::chrono::steady_clock::now();
  GridPlanner::Params params;
  params.connectivity = connectivity == 4 ? Connectivity::Four : Connectivity::Eight;
  params.keep_going = [&](long) {
    interrupts.poll("plan", 0, 0, "");  // Ctrl-C: raises KeyboardInterrupt
    return !budget || std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() < *budget;
  };
  PlanResult result;
  {
    py::gil_scoped_release release;
    GridPlanner planner(grid.rows, grid.cols, params);
    result = planner.plan(grid.costs, start, goal);
  }
  Plan plan;
  plan.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  plan.planner = "astar";
  plan.message = result.message;
  plan.expansions = result.expansions;
  switch (result.status) {
    case PlanStatus::Success: plan.status = "success"; break;
    case PlanStatus::NoPath: plan.status = "no_path"; break;
    case PlanStatus::Cancelled: plan.status = "cancelled"; break;
    case PlanStatus::InvalidInput: throw InvalidArgument("plan: " + result.message);
  }
  plan.cost = result.status == PlanStatus::Success ? result.cost : std::numeric_limits<double>::infinity();
  py::array_t<std::int64_t> cells({static_cast<py::ssize_t>(result.path.size()), py::ssize_t{2}});
  std::int64_t* c = cells.mutable_data();
  for (std::size_t i = 0; i < result.path.size(); ++i) c[2 * i] = result.path[i] / grid.cols, c[2 * i + 1] = result.path[i] % grid.cols;
  plan.path = cells;
  if (world) {
    py::array_t<double> points({static_cast<py::ssize_t>(result.path.size()), py::ssize_t{2}});
    double* q = points.mutable_data();
    for (std::size_t i = 0; i < result.path.size(); ++i) {
      const WorldPoint w = grid.frame.cellCentre(result.path[i] / grid.cols, result.path[i] % grid.cols);
      q[2 * i] = w.x, q[2 * i + 1] = w.y;
    }
    plan.world = points;
  }
  return plan;
}

Plan planWithOmpl(const CostGrid& grid, const std::array<double, 2>& from, const std::array<double, 2>& to, bool world,
                  const std::string& name, std::optional<double> budget, std::uint32_t seed, bool simplify, double range,
                  const VehicleArgs& car) {
  OmplSettings settings;
  try {
    settings.planner = parsePlannerName(name);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string("planner: ") + e.what() + "; or astar, the exact grid A*");
  }
  if (budget) settings.budget_seconds = *budget;
  settings.seed = seed;
  settings.simplify = simplify;
  settings.range = range;
  settings.vehicle = parseVehicleName(car.vehicle);
  if (settings.vehicle == Vehicle::Point) {
    if (car.turning_radius || car.start_heading || car.goal_heading) {
      throw InvalidArgument("turning_radius, start_heading and goal_heading are for vehicle=\"dubins\" or \"reeds-shepp\"; "
                            "a point has none");
    }
  } else {
    if (!car.turning_radius) {
      throw InvalidArgument(std::string("vehicle ") + vehicleName(settings.vehicle) +
                            " needs turning_radius (> 0: cells, or world units with a frame)");
    }
    settings.turning_radius = world ? grid.cellsOfLength(*car.turning_radius) : *car.turning_radius;
    settings.start_heading = car.start_heading;
    settings.goal_heading = car.goal_heading;
  }
  const auto cellPoint = [&](const std::array<double, 2>& p) {
    return world ? grid.frame.toCell({p[0], p[1]}) : CellPoint{p[1] + 0.5, p[0] + 0.5};
  };
  OmplResult result;
  {
    py::gil_scoped_release release;
    result = planOmpl(grid, cellPoint(from), cellPoint(to), settings);
  }
  Plan plan;
  plan.planner = plannerName(settings.planner);
  plan.seconds = result.seconds;
  plan.message = result.message;
  plan.states = result.states;
  plan.cost = result.cost;
  switch (result.status) {
    case OmplStatus::Success: plan.status = "success"; break;
    case OmplStatus::ApproximateOnly: plan.status = "approximate_only"; break;
    case OmplStatus::NoSolution: plan.status = "no_solution"; break;
    case OmplStatus::InvalidInput: throw InvalidArgument("plan: " + result.message);
  }
  py::array_t<double> positions({static_cast<py::ssize_t>(result.path.size()), py::ssize_t{2}});
  double* q = positions.mutable_data();
  for (std::size_t i = 0; i < result.path.size(); ++i) q[2 * i] = result.path[i].v - 0.5, q[2 * i + 1] = result.path[i].u - 0.5;
  plan.path = positions;
  if (!result.headings.empty()) {
    plan.headings = py::array_t<double>(static_cast<py::ssize_t>(result.headings.size()), result.headings.data());
  }
  if (world) {
    py::array_t<double> points({static_cast<py::ssize_t>(result.path.size()), py::ssize_t{2}});
    double* w = points.mutable_data();
    for (std::size_t i = 0; i < result.path.size(); ++i) {
      const WorldPoint p = grid.frame.toWorld(result.path[i]);
      w[2 * i] = p.x, w[2 * i + 1] = p.y;
    }
    plan.world = points;
  }
  return plan;
}

}  // namespace

void bindPlanning(py::module_& m) {
  py::class_<Plan>(m, "Plan", R"(A planned path.  path: N x 2 (row, col) from start to goal, int64 cells for
A*, float64 positions for OMPL (an integer position is a cell's centre); world: N x 2 (x, y) when the
plan was given a frame, else None; cost: the trapezoid cost integral of the path (inf without one);
status: "success", "no_path" or "cancelled" (A*), "approximate_only" or "no_solution" (OMPL).)")
      .def_readonly("path", &Plan::path)
      .def_readonly("world", &Plan::world)
      .def_readonly("cost", &Plan::cost)
      .def_readonly("status", &Plan::status)
      .def_readonly("message", &Plan::message)
      .def_readonly("planner", &Plan::planner)
      .def_readonly("seconds", &Plan::seconds)
      .def_readonly("expansions", &Plan::expansions)
      .def_readonly("states", &Plan::states)
      .def_readonly("headings", &Plan::headings)
      .def_property_readonly("ok", [](const Plan& p) { return p.status == "success"; })
      .def("__repr__", [](const Plan& p) {
        return "mmp.Plan(" + p.planner + ", " + p.status + ", " + std::to_string(p.path.shape(0)) + " points, cost " +
               numberText(p.cost) + ")";
      });

  m.def("plan", [](const py::object& costs, const py::object& start, const py::object& goal, const std::string& planner,
                   const std::optional<WorldFrame>& frame, std::optional<double> budget, int connectivity, std::uint32_t seed,
                   bool simplify, double range, const std::string& vehicle, std::optional<double> turning_radius,
                   std::optional<double> start_heading, std::optional<double> goal_heading) {
    const std::shared_ptr<CostGrid> grid = costGrid(costs, frame);
    const bool world = frame.has_value();
    const std::array<double, 2> from = pointOf(start, "start"), to = pointOf(goal, "goal");
    const VehicleArgs car{vehicle, turning_radius, start_heading, goal_heading};
    if (planner == "astar") {
      if (parseVehicleName(car.vehicle) != Vehicle::Point) throw InvalidArgument("vehicle " + car.vehicle + ": A* plans for a point; choose an OMPL planner (bitstar, rrtstar, informedrrtstar, abitstar)");
      return planAstar(*grid, from, to, world, budget, connectivity);
    }
    return planWithOmpl(*grid, from, to, world, planner, budget, seed, simplify, range, car);
  }, py::arg("costs"), py::arg("start"), py::arg("goal"), py::kw_only(), py::arg("planner") = "astar",
        py::arg("frame") = py::none(), py::arg("budget") = py::none(), py::arg("connectivity") = 8, py::arg("seed") = 1,
        py::arg("simplify") = true, py::arg("range") = 0.0, py::arg("vehicle") = "point",
        py::arg("turning_radius") = py::none(), py::arg("start_heading") = py::none(), py::arg("goal_heading") = py::none(),
        R"(A path on per-cell costs (a CostGrid, or a 2-D array: > 0, +inf impassable) from start to goal.
start and goal are (row, col) cells, or world points (x, y) when a frame is given (for a CostGrid in a
world frame: frame=grid.frame).  planner: "astar" (exact, 8 or 4 neighbours by connectivity; budget:
seconds or None, then status "cancelled") or an OMPL planner under the same cost integral (rrtstar,
informedrrtstar, prmstar, lazyprmstar, bitstar, abitstar, fmtstar; budget: seconds, default 1; seed 0:
OMPL's own seeding; simplify: shortcut the path; range: RRT*'s longest motion in cells, 0 = OMPL's).
vehicle: "point", or a car that plans over (position, heading) along its curves with rrtstar,
informedrrtstar, bitstar or abitstar: "dubins" (forward only) or "reeds-shepp" (forward and reverse),
turning no tighter than turning_radius (cells, or world units with a frame); start_heading and
goal_heading in radians counterclockwise from east (default: towards the goal); plan.headings then
holds the heading at each point of the path.
The GIL is released while planning; Ctrl-C stops A*.  Returns a Plan.)");
}

}  // namespace mmp::python
