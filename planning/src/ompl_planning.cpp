#include <mmp/planning/ompl_planning.hpp>
#include <mmp/core/numbers.hpp>

#include "constants.hpp"

#include <mmp/core/error.hpp>
#include <mmp/planning/cost_field.hpp>
#include <mmp/planning/ompl_objective.hpp>
#include <mmp/planning/ompl_vehicle.hpp>

#include "ompl_internal.hpp"

#include <ompl/base/PlannerData.h>
#include <ompl/base/ProblemDefinition.h>
#include <ompl/base/ScopedState.h>
#include <ompl/geometric/PathGeometric.h>
#include <ompl/geometric/PathSimplifier.h>
#include <ompl/geometric/planners/fmt/FMT.h>
#include <ompl/geometric/planners/informedtrees/ABITstar.h>
#include <ompl/geometric/planners/informedtrees/BITstar.h>
#include <ompl/geometric/planners/prm/LazyPRMstar.h>
#include <ompl/geometric/planners/prm/PRMstar.h>
#include <ompl/geometric/planners/rrt/InformedRRTstar.h>
#include <ompl/geometric/planners/rrt/RRTstar.h>
#include <ompl/util/Exception.h>
#include <ompl/util/RandomNumbers.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

namespace mmp {
namespace {

namespace ob = ompl::base;
namespace og = ompl::geometric;


std::string lowerCase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return text;
}

std::string cellName(const CostGrid& grid, int s) {
  return "cell " + std::to_string(s) + " (row " + std::to_string(s / grid.cols) + ", col " + std::to_string(s % grid.cols) + ")";
}

// Why a planner cannot plan for a car-like vehicle, or nullptr if it can.  A car's distance and curves
// are not symmetric: the curve from a to b is not the one from b to a.
const char* carUnfit(OmplPlanner planner) {
  switch (planner) {
    case OmplPlanner::PRMstar:
    case OmplPlanner::LazyPRMstar: return "its roadmap drives each motion both ways, and a car's curve from a to b is not the one from b to a";
    case OmplPlanner::FMTstar: return "its neighbourhoods assume a symmetric distance, which a car's is not (it finds no path)";
    default: return nullptr;
  }
}

// Why a turning radius has limits, for the messages.
std::string turningRadiusLimits() {
  return "a tighter turn than " + numberText(OmplSettings::kMinTurningRadius) +
         " cells lies within one step of the motion check, and OMPL's curve formulas lose their precision; "
         "a vehicle that turns on the spot is Vehicle::Point";
}

// Throws mmp::InvalidArgument naming the vehicle setting that does not fit.
void checkVehicle(const OmplSettings& settings) {
  const std::string vehicle = std::string("a ") + vehicleName(settings.vehicle) + " vehicle";
  if (settings.vehicle == Vehicle::Point) {
    if (settings.turning_radius != 0.0) {
      throw InvalidArgument("planOmpl: turning_radius = " + numberText(settings.turning_radius) +
                            " is for a car-like vehicle (dubins, reeds-shepp); " + vehicle + " takes 0");
    }
    if (settings.start_heading || settings.goal_heading) {
      throw InvalidArgument(std::string("planOmpl: ") + (settings.start_heading ? "start_heading" : "goal_heading") +
                            " is for a car-like vehicle (dubins, reeds-shepp); " + vehicle + " has no heading");
    }
    return;
  }
  if (!(settings.turning_radius >= OmplSettings::kMinTurningRadius && settings.turning_radius <= OmplSettings::kMaxTurningRadius)) {
    throw InvalidArgument("planOmpl: turning_radius = " + numberText(settings.turning_radius) + " cells is out of range for " +
                          vehicle + ": give " + numberText(OmplSettings::kMinTurningRadius) + " to " +
                          numberText(OmplSettings::kMaxTurningRadius) + " cells (" + turningRadiusLimits() + ")");
  }
  for (const auto& [what, heading] : {std::pair<const char*, std::optional<double>>{"start_heading", settings.start_heading},
                                      {"goal_heading", settings.goal_heading}}) {
    if (heading && !std::isfinite(*heading)) {
      throw InvalidArgument(std::string("planOmpl: ") + what + " = " + numberText(*heading) + " must be a finite angle (radians)");
    }
  }
  if (const char* why = carUnfit(settings.planner)) {
    std::string valid;
    for (OmplPlanner planner : omplPlanners()) {
      if (plannerFitsVehicle(planner, settings.vehicle)) valid += (valid.empty() ? "" : ", ") + std::string(plannerName(planner));
    }
    throw InvalidArgument(std::string("planOmpl: ") + plannerName(settings.planner) + " cannot plan for " + vehicle + ": " +
                          why + "; use one of " + valid);
  }
}

// Throws mmp::InvalidArgument naming the first thing planOmpl cannot plan with.
void checkInput(const CostGrid& grid, CellPoint start, CellPoint goal, const OmplSettings& settings) {
  const std::string size = std::to_string(grid.rows) + " x " + std::to_string(grid.cols);
  if (grid.rows <= 0 || grid.cols <= 0) throw InvalidArgument("planOmpl: empty cost grid (" + size + " cells)");
  if (grid.costs.size() != static_cast<std::size_t>(grid.rows) * static_cast<std::size_t>(grid.cols)) {
    throw InvalidArgument("planOmpl: cost grid of " + size + " cells holds " + std::to_string(grid.costs.size()) + " costs");
  }
  bool any_passable = false;
  for (std::size_t s = 0; s < grid.costs.size(); ++s) {
    const double c = grid.costs[s];
    if (!(c > 0.0)) {
      throw InvalidArgument("planOmpl: " + cellName(grid, static_cast<int>(s)) + " has cost " + numberText(c) +
                            "; costs must be > 0 or +inf (impassable)");
    }
    any_passable |= c < kInf;
  }
  if (!any_passable) throw InvalidArgument("planOmpl: every cell of the " + size + " cost grid is impassable");
  for (const auto& [what, p] : {std::pair<const char*, CellPoint>{"start", start}, {"goal", goal}}) {
    const std::string where = std::string(what) + " (u " + numberText(p.u) + ", v " + numberText(p.v) + ")";
    if (!(p.u >= 0.0 && p.v >= 0.0 && p.u < grid.cols && p.v < grid.rows)) {
      throw InvalidArgument("planOmpl: " + where + " is outside the grid: cell coordinates u in [0, " +
                            std::to_string(grid.cols) + "), v in [0, " + std::to_string(grid.rows) + ")");
    }
    const int cell = static_cast<int>(p.v) * grid.cols + static_cast<int>(p.u);
    if (grid.blocked(cell)) throw InvalidArgument("planOmpl: " + where + " lies in impassable " + cellName(grid, cell));
  }
  if (!(settings.budget_seconds > 0.0 && settings.budget_seconds <= OmplSettings::kMaxBudgetSeconds)) {
    throw InvalidArgument("planOmpl: budget_seconds = " + numberText(settings.budget_seconds) + " must be > 0 and at most " +
                          numberText(OmplSettings::kMaxBudgetSeconds) + " (a week)");
  }
  if (!(settings.range >= 0.0 && settings.range < kInf)) {
    throw InvalidArgument("planOmpl: range must be >= 0 and finite, 0 for OMPL's default (got " + numberText(settings.range) + ")");
  }
  checkVehicle(settings);
}

ob::PlannerPtr makePlanner(OmplPlanner planner, const ob::SpaceInformationPtr& si, double range) {
  switch (planner) {
    case OmplPlanner::RRTstar: {
      auto p = std::make_shared<og::RRTstar>(si);
      if (range > 0.0) p->setRange(range);
      return p;
    }
    case OmplPlanner::InformedRRTstar: {
      auto p = std::make_shared<og::InformedRRTstar>(si);
      if (range > 0.0) p->setRange(range);
      return p;
    }
    case OmplPlanner::PRMstar: return std::make_shared<og::PRMstar>(si);
    case OmplPlanner::LazyPRMstar: return std::make_shared<og::LazyPRMstar>(si);
    case OmplPlanner::BITstar: return std::make_shared<og::BITstar>(si);
    case OmplPlanner::ABITstar: return std::make_shared<og::ABITstar>(si);
    case OmplPlanner::FMTstar: return std::make_shared<og::FMT>(si);
  }
  throw InvalidArgument("planOmpl: unknown planner value " + std::to_string(static_cast<int>(planner)));
}

// An integer progress property of the planner, -1 if it publishes none of that name.
long progressInteger(const ob::Planner& planner, const std::string& name) {
  const auto& properties = planner.getPlannerProgressProperties();
  const auto found = properties.find(name);
  if (found == properties.end()) return -1;
  try {
    return std::stol(found->second());
  } catch (const std::exception&) {
    return -1;
  }
}

// The planner's iteration count (RRT*, PRM*, BIT*), else -1 (FMT*).
long iterationsOf(const ob::Planner& planner) {
  if (const auto* bit = dynamic_cast<const og::BITstar*>(&planner)) return static_cast<long>(bit->numIterations());
  return progressInteger(planner, "iterations INTEGER");
}

// The states in the planner's graph, from a progress property where there is one: PlannerData would
// copy the graph, which for a PRM* roadmap of thousands of states (every edge added twice) took
// longer than a whole 1 s budget.
long statesOf(const ob::Planner& planner, const ob::SpaceInformationPtr& si) {
  for (const char* name : {"milestone count INTEGER", "current graph vertices INTEGER"}) {
    if (const long n = progressInteger(planner, name); n >= 0) return n;
  }
  ob::PlannerData data(si);  // trees (RRT*, FMT*): one edge per state
  planner.getPlannerData(data);
  return static_cast<long>(data.numVertices());
}

}  // namespace

const std::vector<OmplPlanner>& omplPlanners() {
  static const std::vector<OmplPlanner> all = {OmplPlanner::RRTstar, OmplPlanner::InformedRRTstar, OmplPlanner::PRMstar,
                                               OmplPlanner::LazyPRMstar, OmplPlanner::BITstar, OmplPlanner::ABITstar,
                                               OmplPlanner::FMTstar};
  return all;
}

const char* plannerName(OmplPlanner planner) {
  switch (planner) {
    case OmplPlanner::RRTstar: return "rrtstar";
    case OmplPlanner::InformedRRTstar: return "informedrrtstar";
    case OmplPlanner::PRMstar: return "prmstar";
    case OmplPlanner::LazyPRMstar: return "lazyprmstar";
    case OmplPlanner::BITstar: return "bitstar";
    case OmplPlanner::ABITstar: return "abitstar";
    case OmplPlanner::FMTstar: return "fmtstar";
  }
  return "?";
}

OmplPlanner parsePlannerName(const std::string& name) {
  const std::string lower = lowerCase(name);
  if (lower == "fmt") return OmplPlanner::FMTstar;
  std::string valid;
  for (OmplPlanner planner : omplPlanners()) {
    if (lower == plannerName(planner)) return planner;
    valid += (valid.empty() ? "" : ", ") + std::string(plannerName(planner));
  }
  throw InvalidArgument("unknown OMPL planner \"" + name + "\"; valid names: " + valid + " (case-insensitive)");
}

bool plannerFitsVehicle(OmplPlanner planner, Vehicle vehicle) { return vehicle == Vehicle::Point || !carUnfit(planner); }

const std::vector<Vehicle>& vehicles() {
  static const std::vector<Vehicle> all = {Vehicle::Point, Vehicle::Dubins, Vehicle::ReedsShepp};
  return all;
}

const char* vehicleName(Vehicle vehicle) {
  switch (vehicle) {
    case Vehicle::Point: return "point";
    case Vehicle::Dubins: return "dubins";
    case Vehicle::ReedsShepp: return "reeds-shepp";
  }
  return "?";
}

Vehicle parseVehicleName(const std::string& name) {
  const std::string lower = lowerCase(name);
  if (lower == "reeds_shepp" || lower == "reedsshepp") return Vehicle::ReedsShepp;
  std::string valid;
  for (Vehicle vehicle : vehicles()) {
    if (lower == vehicleName(vehicle)) return vehicle;
    valid += (valid.empty() ? "" : ", ") + std::string(vehicleName(vehicle));
  }
  throw InvalidArgument("unknown vehicle \"" + name + "\"; valid names: " + valid + " (case-insensitive)");
}

const char* describe(OmplStatus status) {
  switch (status) {
    case OmplStatus::Success: return "Success";
    case OmplStatus::ApproximateOnly: return "ApproximateOnly";
    case OmplStatus::NoSolution: return "NoSolution";
    case OmplStatus::InvalidInput: return "InvalidInput";
  }
  return "?";
}

namespace {

// The result's status (and message) from the planner's status.
void setStatus(const ob::PlannerStatus& status, ob::ProblemDefinition& problem, const OmplSettings& settings,
               OmplResult& result) {
  switch (ob::PlannerStatus::StatusType(status)) {
    case ob::PlannerStatus::EXACT_SOLUTION: result.status = OmplStatus::Success; break;
    case ob::PlannerStatus::APPROXIMATE_SOLUTION:
      result.status = OmplStatus::ApproximateOnly;
      result.message = "no exact solution within " + numberText(settings.budget_seconds) + " s; the path ends " +
                       numberText(problem.getSolutionDifference()) + " cells from the goal";
      break;
    case ob::PlannerStatus::INVALID_START:
    case ob::PlannerStatus::INVALID_GOAL:
    case ob::PlannerStatus::UNRECOGNIZED_GOAL_TYPE:
      result.status = OmplStatus::InvalidInput;
      result.message = std::string(plannerName(settings.planner)) + " refused the problem: " + status.asString();
      break;
    default:
      result.status = OmplStatus::NoSolution;
      result.message = std::string(plannerName(settings.planner)) + " found no path within " + numberText(settings.budget_seconds) +
                       " s (" + status.asString() + ")";
      break;
  }
}

// A solution as the result gives it: a point's waypoints and polylineCost, or a vehicle's curves
// sampled every kVehiclePathStep with their headings and the cost integral along them.
struct Trace {
  std::vector<CellPoint> path;
  std::vector<double> headings;
  double cost = 0.0;
};

Trace traceOf(const CostGrid& grid, const ob::SpaceInformationPtr& si, const og::PathGeometric& solution, Vehicle vehicle) {
  Trace trace;
  if (vehicle == Vehicle::Point) {
    for (std::size_t i = 0; i < solution.getStateCount(); ++i) trace.path.push_back(cellPointOf(solution.getState(i)));
    trace.cost = polylineCost(grid, trace.path);
    return trace;
  }
  for (std::size_t i = 1; i < solution.getStateCount(); ++i) {
    const VehicleCurve curve(*si->getStateSpace(), solution.getState(i - 1), solution.getState(i));
    const std::vector<VehicleCurve::Sample> samples = curve.samples(kVehiclePathStep);
    for (std::size_t k = i == 1 ? 0 : 1; k < samples.size(); ++k) {  // each motion starts where the last ended
      trace.path.push_back(samples[k].pose.at);
      trace.headings.push_back(samples[k].pose.heading);
    }
    trace.cost += curveCost(grid, curve);
  }
  if (trace.path.empty()) {  // a single state
    const CellPose only = cellPoseOf(solution.getState(0));
    trace.path = {only.at};
    trace.headings = {only.heading};
  }
  return trace;
}

bool everyMotionValid(const ob::SpaceInformationPtr& si, const og::PathGeometric& path) {
  for (std::size_t i = 1; i < path.getStateCount(); ++i) {
    if (!si->checkMotion(path.getState(i - 1), path.getState(i))) return false;
  }
  return true;
}

// Shortcuts the solution and keeps the shortcut if it stays passable, costs less and keeps both ends.
void simplifyIfCheaper(const CostGrid& grid, const ob::SpaceInformationPtr& si, const ob::ProblemDefinitionPtr& problem,
                       const ob::OptimizationObjectivePtr& objective, const og::PathGeometric& solution, Vehicle vehicle,
                       Trace& trace, bool& simplified) {
  og::PathGeometric shortcut(solution);
  og::PathSimplifier simplifier(si, problem->getGoal(), objective);
  simplifier.shortcutPath(shortcut);
  if (shortcut.getStateCount() < 2 || !everyMotionValid(si, shortcut)) return;
  // The ends must stay where they were (the goal for an exact solution), with their headings.
  if (!si->equalStates(shortcut.getState(0), solution.getState(0)) ||
      !si->equalStates(shortcut.getState(shortcut.getStateCount() - 1), solution.getState(solution.getStateCount() - 1))) {
    return;
  }
  Trace shorter = traceOf(grid, si, shortcut, vehicle);
  if (shorter.cost < trace.cost) {
    trace = std::move(shorter);
    simplified = true;
  }
}

}  // namespace

OmplResult planOmpl(const CostGrid& grid, CellPoint start, CellPoint goal, const OmplSettings& settings) {
  checkInput(grid, start, goal, settings);
  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [t0] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  const bool car = settings.vehicle != Vehicle::Point;
  // A car's headings: as given, else along the line from the start to the goal.
  const double towards_goal = std::atan2(start.v - goal.v, goal.u - start.u);
  const CellPose from_pose{start, settings.start_heading.value_or(towards_goal)};
  const CellPose to_pose{goal, settings.goal_heading.value_or(towards_goal)};
  OmplResult result;
  if (start.u == goal.u && start.v == goal.v && (!car || std::cos(from_pose.heading - to_pose.heading) == 1.0)) {
    result.status = OmplStatus::Success;
    result.path = {start, goal};
    if (car) result.headings = {from_pose.heading, to_pose.heading};
    result.seconds = elapsed();
    return result;
  }
  detail::silenceOmpl();
  // Before this call makes any OMPL object: every ompl::RNG made from here on draws its seed from
  // the reseeded global generator (OMPL "errs" that seeds were generated before, silently, and
  // reseeds all the same).
  if (settings.seed != 0) ompl::RNG::setSeed(settings.seed);

  try {
    // The grid outlives the call; the OMPL objects do not keep it beyond.
    const std::shared_ptr<const CostGrid> view(&grid, [](const CostGrid*) {});
    const ob::SpaceInformationPtr si =
        car ? vehicleSpaceInformation(view, settings.vehicle, settings.turning_radius) : gridSpaceInformation(view);
    const ob::OptimizationObjectivePtr objective =
        car ? std::make_shared<VehicleCostObjective>(si, view) : std::make_shared<GridCostObjective>(si, view);
    const auto problem = std::make_shared<ob::ProblemDefinition>(si);
    ob::ScopedState<> from(si), to(si);
    if (car) {
      setCellPose(from.get(), from_pose);
      setCellPose(to.get(), to_pose);
    } else {
      from[0] = start.u, from[1] = start.v, to[0] = goal.u, to[1] = goal.v;
    }
    problem->setStartAndGoalStates(from, to);
    problem->setOptimizationObjective(objective);
    const ob::PlannerPtr planner = makePlanner(settings.planner, si, settings.range);
    planner->setProblemDefinition(problem);
    planner->setup();

    const ob::PlannerStatus status = planner->solve(ob::timedPlannerTerminationCondition(settings.budget_seconds));
    result.iterations = iterationsOf(*planner);
    result.states = statesOf(*planner, si);

    setStatus(status, *problem, settings, result);
    if (result.status == OmplStatus::Success || result.status == OmplStatus::ApproximateOnly) {
      const auto& solution = *problem->getSolutionPath()->as<og::PathGeometric>();
      // A car's curve from a to b is not the one from b to a.  The planners allowed for a car check
      // each motion in the direction the path takes it; this upholds the guarantee (no impassable
      // cell) should one not.
      if (car && !everyMotionValid(si, solution)) {
        throw Error(std::string("planOmpl: ") + plannerName(settings.planner) +
                    " returned a path through an impassable cell (a defect: please report it)");
      }
      Trace trace = traceOf(grid, si, solution, settings.vehicle);
      if (settings.simplify && solution.getStateCount() > 2) {
        simplifyIfCheaper(grid, si, problem, objective, solution, settings.vehicle, trace, result.simplified);
      }
      result.path = std::move(trace.path);
      result.headings = std::move(trace.headings);
      result.cost = trace.cost;
    } else {
      result.cost = kInf;
    }
  } catch (const ompl::Exception& e) {
    throw Error(std::string("planOmpl: OMPL failed: ") + e.what());
  }
  result.seconds = elapsed();
  return result;
}

}  // namespace mmp
