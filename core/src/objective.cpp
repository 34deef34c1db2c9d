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

Objective::Part Objective::evaluatePart(const Eigen::VectorXd& w, std::size_t begin, std::size_t end,
                                        Eigen::VectorXd& g, ThreadPool* pool) const {
  if (w.size() != dimension_) {
    throw InvalidArgument("objective: w has size " + std::to_string(w.size()) + ", expected " +
                          std::to_string(dimension_));
  }
  const auto solveOne = [&](std::size_t i) { examples_[begin + i]->solve(w, 1.0, results_[begin + i]); };
  if (pool != nullptr) {
    pool->parallelFor(end - begin, solveOne);
  } else {
    for (std::size_t i = 0; i < end - begin; ++i) solveOne(i);
  }
  // Reduce in example order: the same sums whatever the thread count.
  const double inv_n = 1.0 / static_cast<double>(examples_.size());
  Part part;
  for (std::size_t i = begin; i < end; ++i) {
    part.risk += addTermSubgradient(results_[i], w, params_.q, inv_n, g);
    part.loss += results_[i].loss;
  }
  return part;
}

ObjectiveValue Objective::evaluate(const Eigen::VectorXd& w, Eigen::VectorXd* subgradient,
                                   ThreadPool* pool) const {
  Eigen::VectorXd scratch;
  Eigen::VectorXd& g = subgradient != nullptr ? *subgradient : scratch;
  g.setZero(dimension_);
  const Part part = evaluatePart(w, 0, examples_.size(), g, pool);
  const double inv_n = 1.0 / static_cast<double>(examples_.size());
  g.noalias() += params_.lambda * w;
  return {0.5 * params_.lambda * w.squaredNorm() + part.risk * inv_n, part.loss * inv_n};
}

ObjectiveValue Objective::evaluate(const Eigen::VectorXd& w, Eigen::VectorXd* subgradient, ThreadPool* pool,
                                   ProcessGroup& processes, bool& stop) const {
  const ExampleShare share = exampleShare(examples_.size(), processes.rank(), processes.size());
  // One sum of [g (d values), risk, loss, processes whose oracle failed, processes asking to stop].
  Eigen::VectorXd packed = Eigen::VectorXd::Zero(dimension_ + 4);
  Eigen::VectorXd g = Eigen::VectorXd::Zero(dimension_);
  std::string failure;
  try {
    const Part part = evaluatePart(w, share.begin, share.end, g, pool);
    packed.head(dimension_) = g;
    packed[dimension_] = part.risk;
    packed[dimension_ + 1] = part.loss;
  } catch (const NumericalError& e) {
    failure = e.what();
    packed[dimension_ + 2] = 1.0;
  }
  packed[dimension_ + 3] = stop ? 1.0 : 0.0;
  processes.sum(packed.data(), static_cast<std::size_t>(packed.size()));
  stop = packed[dimension_ + 3] > 0.0;
  if (packed[dimension_ + 2] > 0.0) {
    throw NumericalError(!failure.empty() ? failure
                                          : "an oracle failed on " + std::to_string(static_cast<int>(packed[dimension_ + 2])) +
                                                " other process(es) of " + std::to_string(processes.size()) +
                                                " (that process names the example)");
  }
  const double inv_n = 1.0 / static_cast<double>(examples_.size());
  if (subgradient != nullptr) {
    *subgradient = packed.head(dimension_);
    subgradient->noalias() += params_.lambda * w;
  }
  return {0.5 * params_.lambda * w.squaredNorm() + packed[dimension_] * inv_n, packed[dimension_ + 1] * inv_n};
}

}  // namespace mmp
