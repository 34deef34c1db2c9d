#include <mmp/core/objective.hpp>

#include <mmp/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace mmp {

void validate(const ObjectiveParams& params) {
  if (!(params.lambda >= 0.0) || !std::isfinite(params.lambda)) {
    throw InvalidArgument("objective: lambda must be a finite number >= 0, got " + std::to_string(params.lambda));
  }
  if (params.q != 1 && params.q != 2) {
    throw InvalidArgument("objective: q must be 1 or 2, got " + std::to_string(params.q));
  }
}

double hinge(const OracleResult& result, const Eigen::VectorXd& w) {
  const double h = result.psi_output.dot(w) + result.loss - result.psi_target.dot(w);
  return std::max(0.0, h);
}

double addTermSubgradient(const OracleResult& result, const Eigen::VectorXd& w, int q, double scale,
                          Eigen::VectorXd& g) {
  const double h = hinge(result, w);
  // eq. 6: q beta h^(q-1) (psi(y*) - psi(y_i)); for q = 1 the factor is beta whatever h is.
  const double factor = (q == 1) ? result.beta : 2.0 * result.beta * h;
  if (factor != 0.0) {
    result.psi_output.addTo(g, scale * factor);
    result.psi_target.addTo(g, -scale * factor);
  }
  return result.beta * (q == 1 ? h : h * h);
}

Eigen::Index commonDimension(const ExampleList& examples) {
  if (examples.empty()) throw InvalidArgument("example list: it is empty");
  for (std::size_t i = 0; i < examples.size(); ++i) {
    if (examples[i] == nullptr) throw InvalidArgument("example list: example " + std::to_string(i) + " is null");
  }
  const Eigen::Index d = examples.front()->dimension();
  for (std::size_t i = 1; i < examples.size(); ++i) {
    if (examples[i]->dimension() != d) {
      throw InvalidArgument("example list: example " + std::to_string(i) + " has dimension " +
                            std::to_string(examples[i]->dimension()) + ", example 0 has " + std::to_string(d));
    }
  }
  return d;
}

Objective::Objective(ExampleList examples, ObjectiveParams params)
    : examples_(std::move(examples)), params_(params), results_(examples_.size()) {
  validate(params_);
  dimension_ = commonDimension(examples_);
}

ObjectiveValue Objective::evaluate(const Eigen::VectorXd& w, Eigen::VectorXd* subgradient,
                                   ThreadPool* pool) const {
  if (w.size() != dimension_) {
    throw InvalidArgument("objective: w has size " + std::to_string(w.size()) + ", expected " +
                          std::to_string(dimension_));
  }
  const auto solveOne = [&](std::size_t i) { examples_[i]->solve(w, 1.0, results_[i]); };
  if (pool != nullptr) {
    pool->parallelFor(examples_.size(), solveOne);
  } else {
    for (std::size_t i = 0; i < examples_.size(); ++i) solveOne(i);
  }

  // Reduce in example order: the same sums whatever the thread count.
  const double inv_n = 1.0 / static_cast<double>(examples_.size());
  Eigen::VectorXd scratch;
  Eigen::VectorXd& g = subgradient != nullptr ? *subgradient : scratch;
  g.setZero(dimension_);
  double risk = 0.0, loss = 0.0;
  for (const OracleResult& r : results_) {
    risk += addTermSubgradient(r, w, params_.q, inv_n, g);
    loss += r.loss;
  }
  g.noalias() += params_.lambda * w;
  return {0.5 * params_.lambda * w.squaredNorm() + risk * inv_n, loss * inv_n};
}

}  // namespace mmp
