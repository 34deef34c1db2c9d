#include <mmp/planning/ompl_planning.hpp>

#include <mmp/core/error.hpp>
#include <mmp/planning/cost_field.hpp>
#include <mmp/planning/ompl_objective.hpp>

#include "ompl_console.hpp"

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

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string cellName(const CostGrid& grid, int s) {
  return "cell " + std::to_string(s) + " (row " + std::to_string(s / grid.cols) + ", col " + std::to_string(s % grid.cols) + ")";
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

std::vector<CellPoint> pointsOf(const og::PathGeometric& path) {
  std::vector<CellPoint> points;
  points.reserve(path.getStateCount());
  for (std::size_t i = 0; i < path.getStateCount(); ++i) points.push_back(cellPointOf(path.getState(i)));
  return points;
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
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (lower == "fmt") return OmplPlanner::FMTstar;
  std::string valid;
  for (OmplPlanner planner : omplPlanners()) {
    if (lower == plannerName(planner)) return planner;
    valid += (valid.empty() ? "" : ", ") + std::string(plannerName(planner));
  }
  throw InvalidArgument("unknown OMPL planner \"" + name + "\"; valid names: " + valid + " (case-insensitive)");
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

// Shortcuts the solution and keeps the shortcut if it stays passable, costs less and keeps both ends.
void simplifyIfCheaper(const CostGrid& grid, const ob::SpaceInformationPtr& si, const ob::ProblemDefinitionPtr& problem,
                       const ob::OptimizationObjectivePtr& objective, const og::PathGeometric& solution,
                       OmplResult& result) {
  og::PathGeometric shortcut(solution);
  og::PathSimplifier simplifier(si, problem->getGoal(), objective);
  simplifier.shortcutPath(shortcut);
  std::vector<CellPoint> points = pointsOf(shortcut);
  bool valid = points.size() >= 2;
  for (std::size_t i = 1; valid && i < points.size(); ++i) valid = segmentPassable(grid, points[i - 1], points[i]);
  const double cost = polylineCost(grid, points);
  // The ends must stay where they were (the goal for an exact solution).
  const auto same = [](CellPoint a, CellPoint b) { return a.u == b.u && a.v == b.v; };
  if (valid && cost < result.cost && same(points.front(), result.path.front()) && same(points.back(), result.path.back())) {
    result.path = std::move(points);
    result.cost = cost;
    result.simplified = true;
  }
}

}  // namespace

OmplResult planOmpl(const CostGrid& grid, CellPoint start, CellPoint goal, const OmplSettings& settings) {
  checkInput(grid, start, goal, settings);
  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [t0] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  OmplResult result;
  if (start.u == goal.u && start.v == goal.v) {
    result.status = OmplStatus::Success;
    result.path = {start, goal};
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
    const ob::SpaceInformationPtr si = gridSpaceInformation(view);
    const auto objective = std::make_shared<GridCostObjective>(si, view);
    const auto problem = std::make_shared<ob::ProblemDefinition>(si);
    ob::ScopedState<> from(si), to(si);
    from[0] = start.u, from[1] = start.v, to[0] = goal.u, to[1] = goal.v;
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
      auto& solution = *problem->getSolutionPath()->as<og::PathGeometric>();
      result.path = pointsOf(solution);
      result.cost = polylineCost(grid, result.path);
      if (settings.simplify && solution.getStateCount() > 2) simplifyIfCheaper(grid, si, problem, objective, solution, result);
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
