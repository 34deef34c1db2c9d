#include <mmp/learners/dlpw.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/objective.hpp>
#include <mmp/core/projection.hpp>
#include <mmp/core/random.hpp>
#include <mmp/learners/learner_run.hpp>

#include <cmath>
#include <limits>
#include <memory>
#include <numeric>

namespace mmp {
namespace {

std::vector<const PairwiseExample*> pairwiseExamples(const ExampleList& examples) {
  std::vector<const PairwiseExample*> pairwise(examples.size());
  for (std::size_t m = 0; m < examples.size(); ++m) {
    pairwise[m] = dynamic_cast<const PairwiseExample*>(examples[m]);
    if (pairwise[m] == nullptr) {
      throw InvalidArgument("dlpw: example " + std::to_string(m) +
                            " is not a pairwise model (PairwiseExample); DLPW trains pairwise models such as multilabel");
    }
  }
  return pairwise;
}

// Block coordinate passes on delta (eq. 11): R of them, or until the LP settles when passes is 0; returns how many.
long diffusePasses(const PairwiseGraph& graph, const PairwisePotentials& theta, DualMessages& delta, int passes,
                   const LpSettings& lp) {
  if (passes == 0) return solveLp(graph, theta, delta, lp).passes;
  for (int r = 0; r < passes; ++r) diffusionPass(graph, theta, delta);
  return passes;
}

// The Pegasos step next = (1 - eta lambda) w - eta (psi(argmax) - psi(y)); returns the demonstration's
// score under theta (theta_i(y_i) has no loss at the demonstration).
double pegasosStep(const PairwiseExample& example, const PairwisePotentials& theta, const DualArgmax& argmax,
                   const Eigen::VectorXd& w, double eta, double lambda, Eigen::VectorXd& next) {
  const PairwiseGraph& graph = example.graph();
  next = (1.0 - eta * lambda) * w;
  const std::vector<int>& y = example.target();
  double target_score = 0.0;
  for (int i = 0; i < graph.variables(); ++i) {
    example.addNodeFeatures(i, argmax.nodes[i], -eta, next);
    example.addNodeFeatures(i, y[i], eta, next);
    target_score += theta.node(i, y[i]);
  }
  for (int e = 0; e < graph.edgeCount(); ++e) {
    const auto [a, b] = graph.edges()[e];
    example.addEdgeFeatures(e, argmax.edges[e].first, argmax.edges[e].second, -eta, next);
    example.addEdgeFeatures(e, y[a], y[b], eta, next);
    target_score += theta.edge(e, y[a], y[b]);
  }
  return target_score;
}

}  // namespace

Dlpw::Dlpw(Params params) : params_(params) {
  if (!(params_.lambda > 0.0) || !std::isfinite(params_.lambda)) throw InvalidArgument("dlpw: lambda must be > 0 and finite");
  if (params_.passes < 0) throw InvalidArgument("dlpw: passes (R) must be >= 0 (0: until the LP settles)");
  if (params_.stop.max_iterations < 1) throw InvalidArgument("dlpw: max_iterations (epochs) must be >= 1");
}

const Eigen::VectorXd& Dlpw::train(const ExampleList& examples, Eigen::VectorXd initial) {
  start(examples);
  diffusion_passes_ = 0;
  const Eigen::Index d = commonDimension(examples);
  const std::vector<const PairwiseExample*> pairwise = pairwiseExamples(examples);
  const double radius = 1.0 / std::sqrt(params_.lambda);
  // project = false: no projection (an L2 ball of infinite radius is refused by L2BallProjection,
  // so every run without projection threw before).
  const ProjectionPtr projection = params_.project ? ProjectionPtr(std::make_shared<L2BallProjection>(radius)) : noProjection();
  const Projection& ball = *projection;
  Eigen::VectorXd w = startingPoint(std::move(initial), d, ball, "dlpw");

  const std::size_t n = examples.size();
  std::vector<DualMessages> messages(n);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  Random rng(params_.seed);
  PairwisePotentials theta;
  Eigen::VectorXd next(d);
  LearnerRun run(*this, params_.stop, params_.stop.tolerance > 0.0,
                  "ran " + std::to_string(params_.stop.max_iterations) + " epochs");
  long t = 0;
  for (long epoch = 1; epoch <= params_.stop.max_iterations && !run.stopped(); ++epoch) {
    if (params_.shuffle) rng.shuffle(order.begin(), order.end());
    const Eigen::VectorXd epoch_start = w;
    double bound_sum = 0.0;
    std::size_t visits = 0;
    for (std::size_t k = 0; k < n; ++k) {
      if (run.outOfTime("at round", t)) break;
      ++t;
      const PairwiseExample& example = *pairwise[order[k]];
      const PairwiseGraph& graph = example.graph();
      DualMessages& delta = messages[order[k]];
      if (!params_.warm_start || delta.values.size() == 0) delta.reset(graph);
      // 1) theta^(m)(w) with the loss, 2) R block coordinate passes on delta^(m) (eq. 11)
      example.potentials(w, 1.0, theta);
      diffusion_passes_ += diffusePasses(graph, theta, delta, params_.passes, params_.lp);
      // 3) the subgradient of g(delta; theta(w)) - w . psi(y_m) in w: the features of the maximisers
      //    of g's terms less those of the demonstration, then the Pegasos step and projection
      const DualArgmax argmax = dualArgmax(graph, theta, delta);
      const double eta = 1.0 / (params_.lambda * static_cast<double>(t));
      const double target_score = pegasosStep(example, theta, argmax, w, eta, params_.lambda, next);
      ball.project(next);
      if (run.refuses(next, "the step of round", t, "kept the last good weights")) break;
      bound_sum += argmax.value - target_score;
      ++visits;
      w.swap(next);
      iterations_ = t;
    }
    if (visits > 0) {
      // the callback sees the epoch's record even when the run stopped within the epoch
      const double value = 0.5 * params_.lambda * w.squaredNorm() + bound_sum / static_cast<double>(visits);
      weights_ = w;
      run.trace({t, value, w.norm(), elapsed()}, "after epoch", epoch);
    }
    if (!run.stopped() && run.movedLessThanTolerance(epoch_start, w)) {
      run.succeed("an epoch moved w less than the tolerance (epoch " + std::to_string(epoch) + ")");
    }
  }
  weights_ = w;
  run.finish();
  return weights_;
}

}  // namespace mmp
