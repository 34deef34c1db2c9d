#include <mmp/learners/bcfw.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/objective.hpp>
#include <mmp/core/random.hpp>
#include <mmp/core/thread_pool.hpp>
#include <mmp/learners/learner_run.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace mmp {
namespace {

using SparseBlock = Eigen::SparseVector<double>;

// psi as a sparse vector (a dense psi, a path's few features, becomes sparse here).
SparseBlock sparseOf(const FeatureVector& psi) {
  return psi.isSparse() ? psi.sparseValues() : SparseBlock(psi.denseValues().sparseView());
}

double dot(const SparseBlock& a, const Eigen::VectorXd& w) {
  double sum = 0.0;
  for (SparseBlock::InnerIterator it(a); it; ++it) sum += it.value() * w[it.index()];
  return sum;
}

/*!
    BCFW's dual point: the blocks (w_i, l_i) of the n examples, their sums w = sum_i w_i and
    l = sum_i l_i, and the weighted average of (w, l) over the block steps (BCFW-wavg).  Starts at
    w = 0, where every block is 0.
!*/
class DualBlocks {
 public:
  DualBlocks(std::size_t n, Eigen::Index d, double lambda, bool averaging)
      : lambda_(lambda), inv_n_(1.0 / static_cast<double>(n)), averaging_(averaging), w_(Eigen::VectorXd::Zero(d)),
        blocks_(n, SparseBlock(d)), block_loss_(n, 0.0), corner_(d), difference_(d), average_w_(w_) {}

  /// One pass over the blocks in `order`, a block step each; throws mmp::NumericalError on an
  /// oracle answer that is not finite (the blocks are then part-way through the pass).
  void pass(const ExampleList& examples, const std::vector<std::size_t>& order) {
    for (std::size_t i : order) step(*examples[i], i);
  }
  /// The model the learner returns: w, or the average of the iterates.
  const Eigen::VectorXd& model() const { return averaging_ ? average_w_ : w_; }
  /// D at model() (averaged: D is concave and the average of the block iterates is a dual point
  /// whose w is the average of w).
  double dual() const { return (averaging_ ? average_loss_ : loss_) - 0.5 * lambda_ * model().squaredNorm(); }

 private:
  void step(const StructuredExample& example, std::size_t i) {
    // 1) the corner of block i at the current w: the loss-augmented answer
    example.solve(w_, 1.0, answer_);
    const double scale = answer_.beta * inv_n_ / lambda_;
    corner_ = scale * (sparseOf(answer_.psi_target) - sparseOf(answer_.psi_output));
    const double corner_loss = answer_.beta * inv_n_ * answer_.loss;
    // 2) the block's gap and the exact line search on the dual along (w_i, l_i) -> (w_s, l_s)
    difference_ = blocks_[i] - corner_;
    const double block_gap = lambda_ * dot(difference_, w_) - block_loss_[i] + corner_loss;
    const double curvature = lambda_ * difference_.squaredNorm();
    if (!std::isfinite(block_gap) || !std::isfinite(curvature)) {
      throw NumericalError("the oracle answer of example " + std::to_string(i) + " is not finite");
    }
    const double gamma = curvature > 0.0 ? std::clamp(block_gap / curvature, 0.0, 1.0) : (block_gap > 0.0 ? 1.0 : 0.0);
    // 3) the step: the block and w move together (w = sum_i w_i, l = sum_i l_i)
    if (gamma > 0.0) {
      for (SparseBlock::InnerIterator it(difference_); it; ++it) w_[it.index()] -= gamma * it.value();
      blocks_[i] = blocks_[i] - gamma * difference_;
      loss_ += gamma * (corner_loss - block_loss_[i]);
      block_loss_[i] += gamma * (corner_loss - block_loss_[i]);
    }
    // 4) the weighted average of the iterates, (w, l) at step k with weight k + 1 (BCFW-wavg)
    if (averaging_) {
      const double rho = 2.0 / static_cast<double>(steps_ + 2);
      average_w_ = (1.0 - rho) * average_w_ + rho * w_;
      average_loss_ = (1.0 - rho) * average_loss_ + rho * loss_;
    }
    ++steps_;
  }

  double lambda_, inv_n_;
  bool averaging_;
  Eigen::VectorXd w_;
  std::vector<SparseBlock> blocks_;  // w_i
  std::vector<double> block_loss_;   // l_i
  double loss_ = 0.0;                // l = sum_i l_i
  long steps_ = 0;                   // block steps so far
  OracleResult answer_;
  SparseBlock corner_, difference_;
  Eigen::VectorXd average_w_;
  double average_loss_ = 0.0;
};

}  // namespace

Bcfw::Bcfw(Params params) : params_(std::move(params)) {
  if (!(params_.lambda > 0.0) || !std::isfinite(params_.lambda)) {
    throw InvalidArgument("bcfw: lambda must be a finite number > 0 (the blocks divide by it), got " +
                          numberText(params_.lambda));
  }
  if (!(params_.stop.tolerance >= 0.0)) {
    throw InvalidArgument("bcfw: tolerance (the relative gap) must be >= 0, got " + numberText(params_.stop.tolerance));
  }
  if (!(params_.absolute_tolerance >= 0.0)) {
    throw InvalidArgument("bcfw: absolute_tolerance must be >= 0, got " + numberText(params_.absolute_tolerance));
  }
  if (params_.stop.max_iterations < 1) throw InvalidArgument("bcfw: max_iterations (passes) must be >= 1");
  if (!(params_.stop.time_budget_seconds >= 0.0)) throw InvalidArgument("bcfw: time_budget_seconds must be >= 0");
  if (params_.certify_every < 1) {
    throw InvalidArgument("bcfw: certify_every (passes between duality-gap certificates) must be >= 1, got " +
                          std::to_string(params_.certify_every));
  }
  if (params_.threads < 0) throw InvalidArgument("bcfw: threads must be >= 0 (0: all cores)");
}

const Eigen::VectorXd& Bcfw::train(const ExampleList& examples, Eigen::VectorXd initial) {
  start(examples);
  gap_ = dual_ = objective_ = std::numeric_limits<double>::quiet_NaN();
  const Eigen::Index d = commonDimension(examples);
  if (initial.size() != 0) {
    throw InvalidArgument("bcfw: starts at w = 0, where every dual block is 0; initial weights (size " +
                          std::to_string(initial.size()) + ") have no dual blocks: leave them empty");
  }
  // the model after the last pass that completed; w = 0 before the first
  Eigen::VectorXd good = startingPoint(Eigen::VectorXd(), d, NoProjection(), "bcfw");

  const std::size_t n = examples.size();
  const Objective primal(examples, {params_.lambda, 1});
  ThreadPool pool(params_.threads);
  DualBlocks dual(n, d, params_.lambda, params_.averaging);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  Random rng(params_.seed);
  const bool tolerance_set = params_.stop.tolerance > 0.0 || params_.absolute_tolerance > 0.0;
  LearnerRun run(*this, params_.stop, tolerance_set,
                  "reached max_iterations = " + std::to_string(params_.stop.max_iterations) + " passes",
                  LearnerRun::BudgetText::Short);
  bool certified = false;  // whether objective_ and gap_ are those of the current model
  // c by one oracle pass at the model (the primal objective) and D from the blocks: the certificate.
  const auto certify = [&]() {
    objective_ = primal.evaluate(dual.model(), nullptr, &pool).value;
    dual_ = dual.dual();
    gap_ = objective_ - dual_;
    certified = true;
  };

  for (long pass = 1; pass <= params_.stop.max_iterations; ++pass) {
    if (run.outOfTime()) break;
    if (params_.shuffle) rng.shuffle(order.begin(), order.end());
    try {
      dual.pass(examples, order);  // 1) - 4) a block step per example
    } catch (const NumericalError& e) {
      run.fail("pass " + std::to_string(pass) + ": " + e.what() + "; kept the weights of the pass before");
      break;
    }
    if (run.refuses(dual.model(), "the weights after pass", pass, "kept those of the pass before")) break;
    good = dual.model();
    certified = false;
    iterations_ = pass;
    weights_ = good;
    // 5) the certificate, every certify_every passes
    TraceRecord record{pass, std::numeric_limits<double>::quiet_NaN(), good.norm(), elapsed()};
    if (pass % params_.certify_every == 0) {
      try {
        certify();
      } catch (const NumericalError& e) {
        run.fail("the certificate after pass " + std::to_string(pass) + ": " + e.what());
        break;
      }
      record.value = objective_;
      record.gap = gap_;
    }
    if (!run.trace(record, "after pass", pass)) break;
    if (certified && tolerance_set && gap_ <= std::max(params_.stop.tolerance * objective_, params_.absolute_tolerance)) {
      run.succeed("gap " + numberText(gap_) + " (relative " + numberText(gap_ / std::max(objective_, 1e-300)) +
                  ") within tolerance after pass " + std::to_string(pass));
      break;
    }
  }
  weights_ = good;
  try {
    if (run.info() == Info::NumericalIssue) {
      // the blocks have moved past the kept weights: their c stands, no gap is certified
      objective_ = primal.evaluate(good, nullptr, &pool).value;
      gap_ = dual_ = std::numeric_limits<double>::quiet_NaN();
    } else if (!certified) {
      certify();
    }
  } catch (const NumericalError&) {
    objective_ = gap_ = dual_ = std::numeric_limits<double>::quiet_NaN();
  }
  run.finish();
  return weights_;
}

}  // namespace mmp
