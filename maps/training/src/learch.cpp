#include <mmp/maps/training/learch.hpp>
#include <mmp/core/numbers.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/random.hpp>
#include <mmp/core/thread_pool.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/planning/maxent_planner.hpp>
#include <mmp/planning/path.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>

namespace mmp {
namespace {

constexpr int kThresholds = 32;       // candidate thresholds per feature and tree (regression_tree.hpp)
constexpr std::size_t kBlock = 16384;  // cells a task when a tree is added to the log-costs

// What LEARCH keeps per training map: log c = linear + trees, each cell's two parts summed in the
// order CostModel sums them (linear, then the trees in round order), so the training costs are the
// saved model's costs bit for bit.
struct MapState {
  const FeatureMap* map = nullptr;
  std::vector<double> linear;  // w0 . f, +inf on blocked cells
  std::vector<double> trees;   // sum_t eta_t h_t(f)
  std::vector<double> log_costs;
  std::vector<double> costs;   // exp(log_costs)
  std::vector<double> gradient;
};

// The range of the passable training cells' costs, and what is wrong with it ("" if nothing).
struct CostRange {
  double lowest = kInf, highest = 0.0;
  std::string fault;
  bool plannable = true;  // every cost and loss-augmented cost finite > 0
};

CostRange costRange(const std::vector<MapState>& states, const std::vector<std::vector<double>>& log_costs,
                    double loss_max, double max_ratio, bool maxent) {
  double lo = kInf, hi = -kInf;
  bool finite = true;
  for (std::size_t m = 0; m < states.size(); ++m) {
    const FeatureMap& map = *states[m].map;
    for (int s = 0; s < map.cells(); ++s) {
      if (map.isBlocked(s)) continue;
      const double v = log_costs[m][static_cast<std::size_t>(s)];
      if (!std::isfinite(v)) finite = false;
      else lo = std::min(lo, v), hi = std::max(hi, v);
    }
  }
  CostRange r;
  r.lowest = std::exp(lo);
  r.highest = std::exp(hi);
  const std::string range = "the passable training cells' costs range from " + numberText(r.lowest) + " to " + numberText(r.highest);
  if (!finite || !std::isfinite(r.highest)) {
    r.fault = "a passable training cell's cost is not finite";
    r.plannable = false;
  } else if (lo - loss_max < std::log(std::numeric_limits<double>::min())) {
    r.fault = range + ", and loss augmentation (down to e^-" + numberText(loss_max) + ") would round the lowest to 0";
    r.plannable = false;
  } else if (r.highest > CostLimits::kHighest || r.lowest < CostLimits::kLowest) {  // whatever max_cost_ratio allows
    r.fault = range + ", outside [" + numberText(CostLimits::kLowest) + ", " + numberText(CostLimits::kHighest) +
              "], the costs every model keeps to (CostLimits)";
  } else if (hi - lo > std::log(max_ratio)) {
    r.fault = range + ", a ratio of " + numberText(std::exp(hi - lo)) + " > max_cost_ratio " + numberText(max_ratio);
  } else if (maxent && r.lowest < kMaxEntSafeCost) {
    r.fault = range + ", below " + numberText(kMaxEntSafeCost) +
              ", under which the MaxEnt model may not be normalisable (maxent_planner.hpp)";
  }
  return r;
}

// One example's part of a round.
struct Outcome {
  std::vector<int> plan;  // y*_i, loss-augmented (margin)
  std::vector<double> expected;  // the expected trapezoid visits of every cell (likelihood)
  double hinge = 0.0;     // beta_i [C(y_i) - C_aug(y*_i)], or beta_i [C(y_i) + log Z_i]
  double loss = 0.0;      // L_i(y_pred_i) / max(1, |y_i|)
};

void checkPlan(const PlanResult& plan, std::size_t k, const char* what) {
  if (plan.status != PlanStatus::Success) {
    throw Error("learch: the " + std::string(what) + " planner failed on example " + std::to_string(k) + ": " + plan.message);
  }
}

}  // namespace

void LearchSettings::validate() const {
  auto fail = [](const std::string& key, const std::string& what) {
    throw InvalidArgument("learch." + key + " " + what);
  };
  if (rounds < 1) fail("rounds", "= " + std::to_string(rounds) + " must be >= 1");
  if (!(step > 0.0) || !std::isfinite(step)) fail("step", "= " + numberText(step) + " must be finite > 0");
  if (depth < 1 || depth > 16) fail("depth", "= " + std::to_string(depth) + " must be in [1, 16]");
  if (min_leaf_samples < 1) fail("min_leaf_samples", "= " + std::to_string(min_leaf_samples) + " must be >= 1");
  if (samples < 1) fail("samples", "= " + std::to_string(samples) + " must be >= 1");
  if (!(max_cost_ratio > 1.0)) fail("max_cost_ratio", "= " + numberText(max_cost_ratio) + " must be > 1");
  if (threads < 0) fail("threads", "= " + std::to_string(threads) + " must be >= 0 (0: all cores)");
}

std::string LearchSettings::describe() const {
  std::ostringstream s;
  s << rounds << " rounds, step " << step << " / sqrt(t), depth " << depth << ", " << min_leaf_samples
    << " cells a leaf, " << samples << " cells a round, max cost ratio " << max_cost_ratio << ", from "
    << (from_linear ? "the linear model" : "uniform costs");
  return s.str();
}

void logCosts(const FeatureMap& map, const Eigen::VectorXd& w, const TreeEnsemble& trees, std::vector<double>& out) {
  if (trees.largestFeature() >= map.features()) {
    throw InvalidArgument("log-costs: a tree splits on feature " + std::to_string(trees.largestFeature()) +
                          "; the map has " + std::to_string(map.features()));
  }
  map.costs(w, out);  // w . f, +inf on blocked cells; checks w's size
  if (trees.empty()) return;
  for (int s = 0; s < map.cells(); ++s) {
    double& v = out[static_cast<std::size_t>(s)];
    if (std::isfinite(v)) v += trees(map, s);
  }
}

namespace {

// The training maps in order of first appearance, the examples' and then the marks' (map_of[k]: example
// k's, mark_map_of[j]: mark j's), each at the start's log-costs; loss_max gets the largest loss (for the
// underflow check).
std::vector<MapState> mapStates(const std::vector<const PathExample*>& examples, const std::vector<LearchMark>& marks,
                                const Eigen::VectorXd& initial, const TreeEnsemble& start_trees, std::vector<std::size_t>& map_of,
                                std::vector<std::size_t>& mark_map_of, double& loss_max) {
  const int d = examples.front()->map().features();
  std::vector<MapState> states;
  const auto stateOf = [&states, d](const FeatureMap* map, const std::string& whose) {
    if (map->features() != d) {
      throw InvalidArgument("learch: " + whose + "'s map has " + std::to_string(map->features()) + " features, example 0's " +
                            std::to_string(d));
    }
    std::size_t m = 0;
    while (m < states.size() && states[m].map != map) ++m;
    if (m == states.size()) {
      states.push_back({});
      states.back().map = map;
    }
    return m;
  };
  map_of.assign(examples.size(), 0);
  loss_max = 0.0;
  for (std::size_t k = 0; k < examples.size(); ++k) {
    map_of[k] = stateOf(&examples[k]->map(), "example " + std::to_string(k));
    for (double l : examples[k]->loss()) loss_max = std::max(loss_max, l);
  }
  mark_map_of.assign(marks.size(), 0);
  for (std::size_t j = 0; j < marks.size(); ++j) {
    if (marks[j].map == nullptr || marks[j].cells.empty() || !(marks[j].margin > 0.0)) {
      throw InvalidArgument("learch: mark " + std::to_string(j) + " needs a map, cells and a margin > 0");
    }
    mark_map_of[j] = stateOf(marks[j].map, "mark " + std::to_string(j));
  }
  for (MapState& state : states) {
    logCosts(*state.map, initial, start_trees, state.linear);
    state.trees.assign(state.linear.size(), 0.0);
    state.log_costs = state.linear;
  }
  return states;
}

// Step 1: the oracle calls on the current model, in parallel: each example's hinge, prediction loss,
// and its loss-augmented plan (or, with the likelihood, its expected visits).
void oracleCalls(const std::vector<const PathExample*>& examples, std::vector<MapState>& states,
                 const std::vector<std::size_t>& map_of, bool maxent, ThreadPool& pool, std::vector<Outcome>& outcomes) {
  for (MapState& state : states) {
    state.costs.resize(state.log_costs.size());
    for (std::size_t s = 0; s < state.costs.size(); ++s) state.costs[s] = std::exp(state.log_costs[s]);
  }
  pool.parallelFor(examples.size(), [&](std::size_t k) {
    const PathExample& e = *examples[k];
    const MapState& state = states[map_of[k]];
    const PlanResult plain = e.planLogCosts(state.log_costs, 0.0);
    checkPlan(plain, k, "plain");
    const double demonstrated = pathIntegral(e.demonstration(), state.map->cols(), state.costs);
    if (maxent) {
      SoftPlanResult soft = e.softPlanLogCosts(state.log_costs);
      if (soft.status != SoftPlanStatus::Success) {
        throw Error("learch: the maxent planner failed on example " + std::to_string(k) + " (" +
                    describe(soft.status) + "): " + soft.message);
      }
      // the negative log-likelihood: >= 0, the demonstration being one of the walks
      outcomes[k].hinge = e.beta() * std::max(0.0, demonstrated + soft.log_partition);
      outcomes[k].expected = std::move(soft.visits);
    } else {
      PlanResult augmented = e.planLogCosts(state.log_costs, 1.0);
      checkPlan(augmented, k, "loss-augmented");
      // >= 0 but for rounding: the augmented optimum is at most the demonstration's augmented cost, C(y_i)
      outcomes[k].hinge = e.beta() * std::max(0.0, demonstrated - augmented.cost);
      outcomes[k].plan = std::move(augmented.path);
    }
    outcomes[k].loss = e.predictionLoss(plain.path);
  });
}

// The marks against the demonstrations at the states' log-costs: each mark's mean log-cost minus the
// mean over the demonstrations' cells (with repeats), the gap LearchMark holds.
std::vector<double> markGaps(const std::vector<const PathExample*>& examples, const std::vector<LearchMark>& marks,
                             const std::vector<MapState>& states, const std::vector<std::size_t>& map_of,
                             const std::vector<std::size_t>& mark_map_of) {
  double taught = 0.0;
  long cells = 0;
  for (std::size_t k = 0; k < examples.size(); ++k) {
    for (const int s : examples[k]->demonstration()) taught += states[map_of[k]].log_costs[static_cast<std::size_t>(s)];
    cells += static_cast<long>(examples[k]->demonstration().size());
  }
  taught /= static_cast<double>(std::max(1L, cells));
  std::vector<double> gaps;
  for (std::size_t j = 0; j < marks.size(); ++j) {
    double sum = 0.0;
    for (const int s : marks[j].cells) sum += states[mark_map_of[j]].log_costs[static_cast<std::size_t>(s)];
    gaps.push_back(sum / static_cast<double>(marks[j].cells.size()) - taught);
  }
  return gaps;
}

// Whether mark j keeps its gap (held: the gap it must keep at least (avoid) or at most (prefer)).
bool keeps(const LearchMark& mark, double gap, double held) { return mark.avoid ? gap >= held : gap <= held; }

// The gaps the marks hold, from their gaps at the start: the margin's, or the start's where it is
// already on the mark's side.
std::vector<double> heldGaps(const std::vector<LearchMark>& marks, std::vector<double> start) {
  for (std::size_t j = 0; j < marks.size(); ++j) {
    const double margin = std::log(marks[j].margin);
    start[j] = marks[j].avoid ? std::max(margin, start[j]) : std::min(margin, start[j]);
  }
  return start;
}

// Each broken mark's push -- one mean demonstration's weight of visits spread over its cells, up for
// avoid, down for prefer -- added to the gradient, its cells joining the drawn `cells` (kept in cell
// order); a cell whose gradient the push cancels leaves them.
void pushBrokenMarks(const std::vector<const PathExample*>& examples, const std::vector<LearchMark>& marks,
                     const std::vector<double>& gaps, const std::vector<double>& held, const std::vector<std::size_t>& mark_map_of,
                     std::vector<MapState>& states, std::vector<std::pair<std::size_t, int>>& cells) {
  double push = 0.0;
  for (const PathExample* e : examples) push += e->beta() * static_cast<double>(e->demonstration().size());
  push /= static_cast<double>(examples.size());
  for (std::size_t j = 0; j < marks.size(); ++j) {
    if (keeps(marks[j], gaps[j], held[j])) continue;
    const double g = (marks[j].avoid ? push : -push) / static_cast<double>(marks[j].cells.size());
    for (const int s : marks[j].cells) {
      const std::pair<std::size_t, int> cell{mark_map_of[j], s};
      const auto at = std::lower_bound(cells.begin(), cells.end(), cell);
      if (at == cells.end() || *at != cell) cells.insert(at, cell);
      states[cell.first].gradient[static_cast<std::size_t>(s)] += g;
    }
  }
  cells.erase(std::remove_if(cells.begin(), cells.end(), [&states](const std::pair<std::size_t, int>& c) {
                return states[c.first].gradient[static_cast<std::size_t>(c.second)] == 0.0;
              }), cells.end());
}

// Step 3: the functional gradient per map cell, beta_i (visits of y*_i - visits of y_i), or with the
// likelihood beta_i (expected visits - visits of y_i) (the gradient of the NLL in c(s)); returns the
// (map, cell) pairs with a gradient, at most `samples` of them by a seeded draw kept in cell order.
std::vector<std::pair<std::size_t, int>> gradientCells(const std::vector<const PathExample*>& examples,
                                                       std::vector<MapState>& states, const std::vector<std::size_t>& map_of,
                                                       const std::vector<Outcome>& outcomes, bool maxent, int samples,
                                                       Random& rng) {
  for (MapState& state : states) state.gradient.assign(state.log_costs.size(), 0.0);
  for (std::size_t k = 0; k < examples.size(); ++k) {
    const PathExample& e = *examples[k];
    MapState& state = states[map_of[k]];
    if (maxent) {
      for (std::size_t s = 0; s < outcomes[k].expected.size(); ++s) state.gradient[s] += e.beta() * outcomes[k].expected[s];
    } else {
      addPathVisits(outcomes[k].plan, state.map->cols(), e.beta(), state.gradient);
    }
    addPathVisits(e.demonstration(), state.map->cols(), -e.beta(), state.gradient);
  }
  std::vector<std::pair<std::size_t, int>> cells;
  for (std::size_t m = 0; m < states.size(); ++m) {
    for (std::size_t s = 0; s < states[m].gradient.size(); ++s) {
      if (states[m].gradient[s] != 0.0) cells.emplace_back(m, static_cast<int>(s));
    }
  }
  if (cells.size() > static_cast<std::size_t>(samples)) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(samples); ++i) {
      std::swap(cells[i], cells[i + rng.below(cells.size() - i)]);
    }
    cells.resize(static_cast<std::size_t>(samples));
    std::sort(cells.begin(), cells.end());
  }
  return cells;
}

// Step 4: the tree: features -> sign of the gradient, weighted by its size.
RegressionTree gradientTree(const std::vector<std::pair<std::size_t, int>>& cells, const std::vector<MapState>& states,
                            const LearchSettings& settings) {
  const Eigen::Index n = static_cast<Eigen::Index>(cells.size());
  Eigen::MatrixXf samples(n, states.front().map->features());
  Eigen::VectorXd targets(n), weights(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto [m, s] = cells[static_cast<std::size_t>(i)];
    samples.row(i) = states[m].map->cellVector(s).transpose();
    const double g = states[m].gradient[static_cast<std::size_t>(s)];
    targets[i] = g > 0.0 ? 1.0 : -1.0;
    weights[i] = std::abs(g);
  }
  return RegressionTree::fit(samples, targets, weights, {settings.depth, settings.min_leaf_samples, kThresholds});
}

// Step 5: log c += eta h on every passable cell, into `trees` and `log_costs` (checked before kept).
void addTree(const std::vector<MapState>& states, const RegressionTree& tree, double eta, ThreadPool& pool,
             std::vector<std::vector<double>>& trees, std::vector<std::vector<double>>& log_costs) {
  for (std::size_t m = 0; m < states.size(); ++m) {
    const MapState& state = states[m];
    trees[m] = state.trees;
    log_costs[m].resize(state.linear.size());
    const std::size_t cells_m = state.linear.size();
    pool.parallelFor((cells_m + kBlock - 1) / kBlock, [&](std::size_t b) {
      for (std::size_t s = b * kBlock; s < std::min(cells_m, (b + 1) * kBlock); ++s) {
        if (std::isfinite(state.linear[s])) {
          trees[m][s] += eta * tree.predict([&](int k) { return state.map->value(static_cast<int>(s), k); });
        }
        log_costs[m][s] = state.linear[s] + trees[m][s];
      }
    });
  }
}

}  // namespace

LearchResult learch(const std::vector<const PathExample*>& examples, const Eigen::VectorXd& initial,
                    const LearchSettings& settings, const LearchCallback& callback, const TreeEnsemble& start_trees,
                    const std::vector<LearchMark>& marks, bool push_marks) {
  settings.validate();
  if (examples.empty()) throw InvalidArgument("learch: no examples");
  const int d = examples.front()->map().features();
  if (initial.size() != d) {
    throw InvalidArgument("learch: the start has " + std::to_string(initial.size()) + " weights, the maps " +
                          std::to_string(d) + " features");
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::size_t> map_of, mark_map_of;
  double loss_max = 0.0;
  std::vector<MapState> states = mapStates(examples, marks, initial, start_trees, map_of, mark_map_of, loss_max);
  const std::vector<double> held = heldGaps(marks, markGaps(examples, marks, states, map_of, mark_map_of));

  LearchResult result;
  result.weights = initial;
  result.trees = start_trees;
  const std::size_t kept_before = start_trees.size();
  ThreadPool pool(settings.threads);
  Random rng(settings.seed);
  std::vector<std::vector<double>> log_costs(states.size());
  for (std::size_t m = 0; m < states.size(); ++m) log_costs[m] = states[m].log_costs;
  const bool maxent = settings.objective == TrainingObjective::Likelihood;
  if (maxent) loss_max = 0.0;  // no loss augmentation
  CostRange range = costRange(states, log_costs, loss_max, settings.max_cost_ratio, maxent);
  if (!range.plannable) {
    result.info = Info::NumericalIssue;
    result.message = "the starting costs cannot be planned on: " + range.fault + "; no tree added";
    return result;
  }
  std::vector<Outcome> outcomes(examples.size());
  while (true) {
    // 1) the oracle calls on the current model; 2) their sums in example order.
    oracleCalls(examples, states, map_of, maxent, pool, outcomes);
    LearchRound round;
    round.trees = static_cast<int>(result.trees.size());
    round.step = result.trees.size() == kept_before ? 0.0 : result.trees.steps().back();
    for (const Outcome& o : outcomes) round.objective += o.hinge, round.prediction_loss += o.loss;
    round.prediction_loss /= static_cast<double>(examples.size());
    round.lowest = range.lowest;
    round.highest = range.highest;
    round.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.rounds.push_back(round);
    const std::string kept = std::to_string(result.trees.size()) + (result.trees.size() == 1 ? " tree" : " trees");
    if (callback && !callback(round)) {
      result.message = "stopped by the callback with " + kept;
      break;
    }
    if (!range.fault.empty()) {  // only at the start: later rounds out of bounds are undone below
      result.info = Info::NumericalIssue;
      result.message = "the starting costs are out of bounds: " + range.fault + "; no tree added";
      break;
    }
    if (result.trees.size() - kept_before == static_cast<std::size_t>(settings.rounds)) {
      result.message = "added " + kept;
      break;
    }
    // 3) the functional gradient, and the broken marks' pushes beside the cells drawn from it (so a mark
    // that holds leaves the round as it was); 4) the tree fitted to it.
    std::vector<std::pair<std::size_t, int>> cells = gradientCells(examples, states, map_of, outcomes, maxent, settings.samples, rng);
    if (push_marks) pushBrokenMarks(examples, marks, markGaps(examples, marks, states, map_of, mark_map_of), held, mark_map_of, states, cells);
    if (cells.empty()) {
      result.message = "every demonstration is loss-augmented optimal with " + kept + ": nothing to fit";
      break;
    }
    RegressionTree tree = gradientTree(cells, states, settings);
    // 5) log c += eta_t h_t, checked before it is kept.
    const double eta = settings.step / std::sqrt(static_cast<double>(result.trees.size() - kept_before + 1));
    std::vector<std::vector<double>> trees(states.size());
    addTree(states, tree, eta, pool, trees, log_costs);
    const CostRange next = costRange(states, log_costs, loss_max, settings.max_cost_ratio, maxent);
    if (!next.fault.empty()) {
      result.info = Info::NumericalIssue;
      result.message = "round " + std::to_string(result.trees.size() + 1) + " (step " + numberText(eta) + ") was undone: " +
                       next.fault + "; kept the model of the round before, with " + kept;
      break;
    }
    result.trees.add(std::move(tree), eta);
    for (std::size_t m = 0; m < states.size(); ++m) {
      states[m].trees.swap(trees[m]);
      states[m].log_costs = log_costs[m];
    }
    range = next;
  }
  const std::vector<double> gaps = markGaps(examples, marks, states, map_of, mark_map_of);
  for (std::size_t j = 0; j < marks.size(); ++j) {
    if (!keeps(marks[j], gaps[j], held[j])) result.unmet_marks.push_back(j);
  }
  return result;
}

}  // namespace mmp
