#include <mmp/core/likelihood_objective.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/objective.hpp>

#include <algorithm>
#include <cmath>

namespace mmp {

std::vector<const MarginalExample*> marginalExamples(const ExampleList& examples, const std::string& what) {
  commonDimension(examples);  // non-empty, no null, one dimension
  std::vector<const MarginalExample*> out(examples.size());
  for (std::size_t i = 0; i < examples.size(); ++i) {
    out[i] = dynamic_cast<const MarginalExample*>(examples[i]);
    if (out[i] == nullptr) {
      throw InvalidArgument(what + ": example " + std::to_string(i) +
                            " does not implement MarginalExample (mmp/core/marginals.hpp), which the likelihood "
                            "objective needs; train it with the margin objective, or use a task that computes "
                            "marginals (the chain of core/tasks/chain.hpp)");
    }
  }
  return out;
}

double addLikelihoodGradient(const MarginalResult& result, const Eigen::VectorXd& w, double scale, Eigen::VectorXd& g) {
  if (result.beta != 0.0) {
    result.expected_psi.addTo(g, scale * result.beta);
    result.psi_target.addTo(g, -scale * result.beta);
  }
  return result.beta * (result.log_partition - result.psi_target.dot(w));
}

LikelihoodObjective::LikelihoodObjective(ExampleList examples, double lambda)
    : examples_(marginalExamples(examples, "likelihood objective")),
      lambda_(lambda),
      results_(std::min(examples.size(), kChunk)) {
  if (!(lambda_ >= 0.0) || !std::isfinite(lambda_)) {
    throw InvalidArgument("likelihood objective: lambda must be a finite number >= 0, got " + numberText(lambda_));
  }
  dimension_ = examples.front()->dimension();
}

double LikelihoodObjective::evaluate(const Eigen::VectorXd& w, Eigen::VectorXd* gradient, ThreadPool* pool) const {
  if (w.size() != dimension_) {
    throw InvalidArgument("likelihood objective: w has size " + std::to_string(w.size()) + ", expected " +
                          std::to_string(dimension_));
  }
  const double inv_n = 1.0 / static_cast<double>(examples_.size());
  Eigen::VectorXd scratch;
  Eigen::VectorXd& g = gradient != nullptr ? *gradient : scratch;
  g.setZero(dimension_);
  double risk = 0.0;
  // Chunks of examples: a chain's E[psi] is dense, so one slot per example would hold n x d doubles.
  for (std::size_t first = 0; first < examples_.size(); first += kChunk) {
    const std::size_t m = std::min(kChunk, examples_.size() - first);
    const auto one = [&](std::size_t j) { examples_[first + j]->marginals(w, results_[j]); };
    if (pool != nullptr) {
      pool->parallelFor(m, one);
    } else {
      for (std::size_t j = 0; j < m; ++j) one(j);
    }
    // Reduce in example order: the same sums whatever the thread count.
    for (std::size_t j = 0; j < m; ++j) risk += addLikelihoodGradient(results_[j], w, inv_n, g);
  }
  g.noalias() += lambda_ * w;
  return 0.5 * lambda_ * w.squaredNorm() + risk * inv_n;
}

}  // namespace mmp
