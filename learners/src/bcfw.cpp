#include <mmp/learners/bcfw.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/objective.hpp>
#include <mmp/core/random.hpp>
#include <mmp/core/thread_pool.hpp>

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
  Eigen::VectorXd w = startingPoint(Eigen::VectorXd(), d, NoProjection(), "bcfw");

  const double lambda = params_.lambda;
  const std::size_t n = examples.size();
  const double inv_n = 1.0 / static_cast<double>(n);
  const Objective primal(examples, {lambda, 1});
  ThreadPool pool(params_.threads);
  std::vector<SparseBlock> blocks(n, SparseBlock(d));  // w_i
  std::vector<double> block_loss(n, 0.0);               // l_i
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  Random rng(params_.seed);
  OracleResult answer;
  SparseBlock corner(d), difference(d);
  Eigen::VectorXd good = w;  // the model after the last pass that completed
  const bool tolerance_set = params_.stop.tolerance > 0.0 || params_.absolute_tolerance > 0.0;
  Info info = tolerance_set ? Info::NoConvergence : Info::Success;
  std::string message = "reached max_iterations = " + std::to_string(params_.stop.max_iterations) + " passes";
  bool certified = false;  // whether objective_ and gap_ are those of the current w

  long steps = 0;            // block steps so far
  double loss = 0.0;         // l = sum_i l_i
  Eigen::VectorXd average_w = w;
  double average_loss = 0.0;
  // The model the learner returns: w, or the average of the iterates.
  const auto model = [&]() -> const Eigen::VectorXd& { return params_.averaging ? average_w : w; };
  // c by one oracle pass at the model (the primal objective) and D from the blocks (averaged: D is
  // concave and the average of the block iterates is a dual point whose w is the average of w): the
  // certificate.
  const auto certify = [&]() {
    objective_ = primal.evaluate(model(), nullptr, &pool).value;
    dual_ = (params_.averaging ? average_loss : loss) - 0.5 * lambda * model().squaredNorm();
    gap_ = objective_ - dual_;
    certified = true;
  };

  for (long pass = 1; pass <= params_.stop.max_iterations; ++pass) {
    if (elapsed() > params_.stop.time_budget_seconds) {
      info = Info::NoConvergence;
      message = "time budget of " + numberText(params_.stop.time_budget_seconds) + " s ran out";
      break;
    }
    if (params_.shuffle) rng.shuffle(order.begin(), order.end());
    try {
      for (std::size_t i : order) {
        // 1) the corner of block i at the current w: the loss-augmented answer
        examples[i]->solve(w, 1.0, answer);
        const double scale = answer.beta * inv_n / lambda;
        corner = scale * (sparseOf(answer.psi_target) - sparseOf(answer.psi_output));
        const double corner_loss = answer.beta * inv_n * answer.loss;
        // 2) the block's gap and the exact line search on the dual along (w_i, l_i) -> (w_s, l_s)
        difference = blocks[i] - corner;
        const double block_gap = lambda * dot(difference, w) - block_loss[i] + corner_loss;
        const double curvature = lambda * difference.squaredNorm();
        if (!std::isfinite(block_gap) || !std::isfinite(curvature)) {
          throw NumericalError("the oracle answer of example " + std::to_string(i) + " is not finite");
        }
        const double gamma = curvature > 0.0 ? std::clamp(block_gap / curvature, 0.0, 1.0) : (block_gap > 0.0 ? 1.0 : 0.0);
        // 3) the step: the block and w move together (w = sum_i w_i, l = sum_i l_i)
        if (gamma > 0.0) {
          for (SparseBlock::InnerIterator it(difference); it; ++it) w[it.index()] -= gamma * it.value();
          blocks[i] = blocks[i] - gamma * difference;
          loss += gamma * (corner_loss - block_loss[i]);
          block_loss[i] += gamma * (corner_loss - block_loss[i]);
        }
        // 4) the weighted average of the iterates, (w, l) at step k with weight k + 1 (BCFW-wavg)
        if (params_.averaging) {
          const double rho = 2.0 / static_cast<double>(steps + 2);
          average_w = (1.0 - rho) * average_w + rho * w;
          average_loss = (1.0 - rho) * average_loss + rho * loss;
        }
        ++steps;
      }
    } catch (const NumericalError& e) {
      info = Info::NumericalIssue;
      message = "pass " + std::to_string(pass) + ": " + e.what() + "; kept the weights of the pass before";
      break;
    }
    if (const std::string why = rejected(model()); !why.empty()) {
      info = Info::NumericalIssue;
      message = "the weights after pass " + std::to_string(pass) + " " + why + "; kept those of the pass before";
      break;
    }
    good = model();
    certified = false;
    iterations_ = pass;
    weights_ = good;
    // 5) the certificate, every certify_every passes
    TraceRecord record{pass, std::numeric_limits<double>::quiet_NaN(), good.norm(), elapsed()};
    if (pass % params_.certify_every == 0) {
      try {
        certify();
      } catch (const NumericalError& e) {
        info = Info::NumericalIssue;
        message = "the certificate after pass " + std::to_string(pass) + ": " + e.what();
        break;
      }
      record.value = objective_;
      record.gap = gap_;
    }
    trace_.push_back(record);
    if (!report(record)) {
      info = Info::NoConvergence;
      message = "stopped by the callback after pass " + std::to_string(pass);
      break;
    }
    if (certified && tolerance_set && gap_ <= std::max(params_.stop.tolerance * objective_, params_.absolute_tolerance)) {
      info = Info::Success;
      message = "gap " + numberText(gap_) + " (relative " + numberText(gap_ / std::max(objective_, 1e-300)) +
                ") within tolerance after pass " + std::to_string(pass);
      break;
    }
  }
  weights_ = good;
  try {
    if (info == Info::NumericalIssue) {
      // the blocks have moved past the kept weights: their c stands, no gap is certified
      objective_ = primal.evaluate(good, nullptr, &pool).value;
      gap_ = dual_ = std::numeric_limits<double>::quiet_NaN();
    } else if (!certified) {
      certify();
    }
  } catch (const NumericalError&) {
    objective_ = gap_ = dual_ = std::numeric_limits<double>::quiet_NaN();
  }
  finish(info, message);
  return weights_;
}

}  // namespace mmp
