// MaxEntPlanner: the soft counterpart of GridPlanner -- the Maximum Entropy IRL distribution over
// paths from a start to a goal on a cost grid (Ziebart, Maas, Bagnell and Dey, AAAI 2008), its log
// partition function, expected visitation and samples.
//
//   MaxEntPlanner soft(rows, cols);
//   const SoftPlanResult r = soft.solve(costs, start, goal);   // log Z, per-cell expected visits
//   std::vector<int> walk = soft.sample(rng);                   // a path drawn from the same model
//
// THE MODEL.  The same grid, moves and step costs as GridPlanner: a step a -> b to one of the 8 (or 4)
// neighbours costs |step| (c(a) + c(b)) / 2.  The path set is every WALK from start to goal that ends
// the first time it reaches the goal (the goal absorbs); a walk may revisit cells, so the set is
// infinite, and
//
//     P(y) = exp(-cost(y)) / Z,    Z = sum over walks y of exp(-cost(y)).
//
// Z is finite if and only if the spectral radius of the step matrix A(a, b) = exp(-step cost(a, b))
// (over the cells other than the goal) is below 1.  Positive costs are NOT enough: on uniform costs c
// an 8-neighbour cell's row of A sums to 4 e^-c + 4 e^-(sqrt 2 c), which is >= 1 for c <= 1.7775.  A
// sufficient condition is that every row sums to < 1, which holds when every passable cell costs more
// than kMaxEntSafeCost (1.7776, 8 neighbours; ln 4 = 1.386 with 4).  Costs learned by this objective
// grow past it by themselves (a demonstration is likely only when the costs are large enough to make
// the distribution concentrate near it); a cost model whose costs are smaller is not normalisable,
// which solve() reports as SoftPlanStatus::NotNormalisable.
//
// THE ALGORITHM.  Backward: the soft cost-to-go V(s) = -log z(s), z(s) = sum of exp(-cost) over the
// walks from s to the goal, is the fixed point of the log-sum-exp Bellman backup
//     log z(goal) = 0,   log z(s) = logsumexp over neighbours b of ( -stepcost(s, b) + log z(b) )
// reached by Gauss-Seidel sweeps that alternate between the cells in order of their hard (A*) cost to
// the goal and the reverse order, from log z = -inf: the iterates increase monotonically to the fixed
// point, and the first sweep already propagates the shortest paths.  Sweeps stop when no log z moves
// by more than `tolerance`.  log Z = log z(start).  Forward: the policy pi(b | a) = A(a, b) z(b) / z(a)
// and the expected number of visits D(s) of each cell (D = e_start + D P restricted to non-goal
// sources), by Gauss-Seidel sweeps in order of the hard cost from the start, to the same tolerance.
// The expected trapezoid weight of a cell, visits[s] = sum over steps touching s of (expected number of
// times the step is taken) x |step| / 2, is what addPathVisits gives a single path, so
//     E[ trapezoid integral of v along y ] = sum_s visits[s] v(s)  for any per-cell v,
// the expected feature counts are sum_s visits[s] f(s), and d log Z / d c(s) = -visits[s].
//
// THE REGION (what makes a call affordable).  With region_margin = M finite, only the cells s with
//     dist(start, s) + dist(s, goal) <= dist(start, goal) + M      (hard A* costs)
// take part: every walk through any other cell costs more than the cheapest path plus M, so each
// dropped walk is at least e^M times less probable than the most probable one.  The model is then the
// MaxEnt model over the walks inside the region: log Z can only go down (never below the cheapest
// path's -cost) and the expectations are those of the restricted model.  The total mass dropped is
// not bounded by this argument (many walks can each be improbable); tools/bench/bench_scale.cpp measures log Z
// and the expected counts against the full grid on the Dubai part it times.  M = +inf (the default)
// is the exact model over the cells connected to both ends.
//
// Not thread-safe (it keeps the last solve's values for sample()): one planner per thread.
#pragma once

#include <mmp/core/random.hpp>
#include <mmp/planning/grid_planner.hpp>

#include <limits>
#include <string>
#include <vector>

namespace mmp {

/// Every cell cost above this makes each row of the 8-neighbour step matrix sum to < 1, so the
/// MaxEnt model is normalisable (the root of 4 e^-c + 4 e^-(sqrt 2 c) = 1).
constexpr double kMaxEntSafeCost = 1.7776;

enum class SoftPlanStatus {
  Success,          ///< log_partition and visits hold the model's values
  NoPath,           ///< the goal cannot be reached from the start
  InvalidInput,     ///< start/goal off the grid or impassable, a cost NaN or <= 0: see message
  NotNormalisable,  ///< Z is infinite at these costs (the sweeps diverge): raise the costs
  NoConvergence,    ///< max_sweeps ran out before the tolerance was met
};
const char* describe(SoftPlanStatus status);

struct SoftPlanResult {
  SoftPlanStatus status = SoftPlanStatus::NoPath;
  double log_partition = -std::numeric_limits<double>::infinity();  ///< log Z
  double min_cost = std::numeric_limits<double>::infinity();        ///< the cheapest path's cost (A*)
  /// Expected trapezoid weight of every cell (rows * cols, 0 outside the region); see the file comment.
  std::vector<double> visits;
  long region_cells = 0;   ///< cells that took part
  int backward_sweeps = 0;
  int forward_sweeps = 0;
  std::string message;     ///< why, when status is not Success
};

class MaxEntPlanner {
 public:
  struct Params {
    Connectivity connectivity = Connectivity::Eight;
    /// See THE REGION in the file comment: +inf = every connected cell, else a margin in cost units.
    double region_margin = std::numeric_limits<double>::infinity();
    double tolerance = 1e-9;  ///< largest change of any log z (backward) or visit count (forward) at the end
    int max_sweeps = 5000;    ///< per pass
  };

  MaxEntPlanner(int rows, int cols, Params params);
  MaxEntPlanner(int rows, int cols) : MaxEntPlanner(rows, cols, Params{}) {}

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  const Params& params() const { return params_; }

  /*!
      requires: costs.size() == rows * cols (else mmp::InvalidArgument)
      ensures
          - the model of the file comment on `costs` (> 0 finite, or +inf impassable): log Z, the
            cheapest cost, every cell's expected trapezoid weight
          - the NotNormalisable status only when Z is certified infinite: every 10 sweeps, unless
            every row of the step matrix sums to < 1 (then Z is finite), the Collatz-Wielandt bound
            rho(A) >= min_s (A z)(s) / z(s) on the current iterate z is checked against 1; a
            divergent model that this bound does not catch ends as NoConvergence after max_sweeps
          - nothing thrown for bad costs or unreachable goals: see the status and message
  !*/
  SoftPlanResult solve(const std::vector<double>& costs, int start, int goal);

  /*!
      requires: the last solve() succeeded
      ensures: a walk from its start to its goal drawn from its model (each step by the policy
               pi(b | a)), at most max_steps steps (then mmp::NumericalError: an improbably long walk)
  !*/
  std::vector<int> sample(Random& rng, long max_steps = 10000000) const;

 private:
  // The steps of solve(), numbered as there.  buildRegion fills cells_ and local_, logStepWeights
  // neighbour_ (and returns the log weights), buildPolicy step_probability_; the two passes return
  // false, with result's status and message set, when solve() ends there.
  void buildRegion(const std::vector<double>& to_start, double limit);
  std::vector<double> logStepWeights(const std::vector<double>& costs);
  bool backwardPass(const std::vector<double>& log_weight, std::vector<double>& log_z, SoftPlanResult& result) const;
  void buildPolicy(const std::vector<double>& log_weight, const std::vector<double>& log_z);
  bool forwardPass(const std::vector<double>& to_start, std::vector<double>& visits, SoftPlanResult& result) const;
  void addStepVisits(const std::vector<double>& visits, SoftPlanResult& result) const;

  int rows_, cols_;
  Params params_;
  GridPlanner hard_;
  // The region of the last solve: its cells (grid indices) in order of the hard cost to the goal,
  // their local index per grid cell (-1 outside), and per local cell and direction the neighbour's
  // local index (-1 none) and the policy's step probability.
  std::vector<int> cells_;
  std::vector<int> local_;
  std::vector<int> neighbour_;
  std::vector<double> step_probability_;
  int start_local_ = -1, goal_local_ = -1;
  bool solved_ = false;
};

}  // namespace mmp
