#include <mmp/core/formulation.hpp>

#include <mmp/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mmp {
namespace {

// out = base + scale (v - base), sparse when both are sparse.
void addPlane(FeatureVector& out, const FeatureVector& base, double scale, const FeatureVector& v) {
  if (out.isSparse() && v.isSparse() && base.isSparse()) {
    FeatureVector::Sparse sum = out.sparseValues() + scale * (v.sparseValues() - base.sparseValues());
    out.resetSparse(sum.size()) = std::move(sum);
    return;
  }
  Eigen::VectorXd sum = out.toDense();
  v.addTo(sum, scale);
  base.addTo(sum, -scale);
  out.resetDense(sum.size()) = std::move(sum);
}

// The slack-scaled term L(y) (1 + w.psi(y) - w.psi(y_i)) of one answer, before the loss weight.
double slackTerm(const OracleResult& r, const Eigen::VectorXd& w) {
  return r.loss * (1.0 + r.psi_output.dot(w) - r.psi_target.dot(w));
}

// result carries weight * L(y) (1 + w.psi(y) - w.psi(y_i)) when that is positive, else nothing.
void carrySlack(OracleResult& result, const Eigen::VectorXd& w, double weight) {
  const double term = weight * slackTerm(result, w);
  if (term > 0.0) {
    const double scale = weight * result.loss;
    const FeatureVector psi = result.psi_output;
    result.psi_output = result.psi_target;
    addPlane(result.psi_output, result.psi_target, scale, psi);
    result.loss = scale;
  } else {
    result.psi_output = result.psi_target;
    result.loss = 0.0;
  }
}

}  // namespace

Formulation parseFormulation(const std::string& name) {
  if (name == "margin") return Formulation::Margin;
  if (name == "slack") return Formulation::Slack;
  if (name == "slack_exact") return Formulation::SlackExact;
  if (name == "poslearn") return Formulation::PosLearn;
  throw InvalidArgument("formulation '" + name + "': expected margin, slack, slack_exact or poslearn");
}

std::string describe(Formulation formulation) {
  switch (formulation) {
    case Formulation::Margin: return "margin";
    case Formulation::Slack: return "slack";
    case Formulation::SlackExact: return "slack_exact";
    case Formulation::PosLearn: return "poslearn";
  }
  return "?";
}

FormulatedExample::FormulatedExample(const StructuredExample& base, Formulation formulation, SlackSearch search)
    : base_(base), decomposable_(dynamic_cast<const DecomposableExample*>(&base)), formulation_(formulation),
      search_(search) {
  if (formulation_ != Formulation::Margin && decomposable_ == nullptr) {
    throw InvalidArgument("formulation " + describe(formulation_) +
                          ": the example's loss does not decompose over positions (it does not implement "
                          "mmp::DecomposableExample); use margin");
  }
  if (search_.evaluations < 2) throw InvalidArgument("slack search: evaluations must be >= 2");
  if (!(search_.epsilon > 0.0) || !std::isfinite(search_.epsilon)) {
    throw InvalidArgument("slack search: epsilon must be a finite number > 0");
  }
}

void FormulatedExample::solve(const Eigen::VectorXd& w, double loss_weight, OracleResult& result) const {
  if (formulation_ == Formulation::Margin || loss_weight == 0.0) return base_.solve(w, loss_weight, result);
  switch (formulation_) {
    case Formulation::Slack: return slack(w, loss_weight, result);
    case Formulation::SlackExact:
      decomposable_->exactSlackViolator(w, result);
      return carrySlack(result, w, loss_weight);
    case Formulation::PosLearn: return posLearn(w, loss_weight, result);
    case Formulation::Margin: break;
  }
}

void FormulatedExample::slack(const Eigen::VectorXd& w, double loss_weight, OracleResult& result) const {
  // Candidates y_lambda = argmax w.psi(y) + lambda L(y); the best L(y) (1 + w.psi(y) - w.psi(y_i)) wins.
  OracleResult candidate;
  double best = -std::numeric_limits<double>::infinity();
  const auto consider = [&](double lambda) {
    base_.solve(w, lambda, candidate);
    const double term = slackTerm(candidate, w);
    if (term > best) {
      best = term;
      result = candidate;
    }
  };
  consider(1.0);  // margin scaling's violator: never worse than it
  OracleResult map;
  base_.solve(w, 0.0, map);
  const double s_target = map.psi_target.dot(w);
  const double s_map = map.psi_output.dot(w);
  if (slackTerm(map, w) > best) {
    best = slackTerm(map, w);
    result = map;
  }
  // F(lambda) = max_y s(y) + lambda L(y) - 2 sqrt(xi lambda) is convex (Claim 3.2): golden-section
  // search over log lambda within sec. 3.1's bounds, xi the best slack of the two calls above.
  const double xi = std::max(best, 0.0);
  const double lower = search_.epsilon / decomposable_->maxLoss();
  const double upper = std::max((s_map - s_target + 1.0) / decomposable_->lossResolution(), 2.0 * lower);
  const auto F = [&](double log_lambda) {
    const double lambda = std::exp(log_lambda);
    consider(lambda);
    return candidate.psi_output.dot(w) + lambda * candidate.loss - 2.0 * std::sqrt(xi * lambda);
  };
  const double golden = (std::sqrt(5.0) - 1.0) / 2.0;
  double a = std::log(lower), b = std::log(upper);
  double c = b - golden * (b - a), d = a + golden * (b - a);
  double fc = F(c), fd = F(d);
  for (int n = 2; n < search_.evaluations; ++n) {
    if (fc <= fd) {
      b = d, d = c, fd = fc;
      c = b - golden * (b - a);
      fc = F(c);
    } else {
      a = c, c = d, fc = fd;
      d = a + golden * (b - a);
      fd = F(d);
    }
  }
  carrySlack(result, w, loss_weight);
}

void FormulatedExample::posLearn(const Eigen::VectorXd& w, double loss_weight, OracleResult& result) const {
  MaxMarginals m;
  decomposable_->maxMarginals(w, m);
  base_.solve(w, 0.0, result);  // psi_target, beta; output = the prediction until a violator is found
  const FeatureVector target = result.psi_target;
  const double s_target = target.dot(w);
  FeatureVector sum = target;
  double loss = 0.0, worst = 0.0;
  OracleResult violator;
  for (Eigen::Index c = 0; c < m.score.rows(); ++c) {
    double best = 0.0;
    Eigen::Index best_value = -1;
    for (Eigen::Index v = 0; v < m.score.cols(); ++v) {
      if (v == m.target[static_cast<std::size_t>(c)] || !std::isfinite(m.score(c, v))) continue;
      const double term = loss_weight * m.loss(c, v) * (1.0 + m.score(c, v) - s_target);
      if (term > best) best = term, best_value = v;
    }
    if (best_value < 0) continue;
    decomposable_->bestWith(w, static_cast<int>(c), static_cast<int>(best_value), violator);
    const double scale = loss_weight * m.loss(c, best_value);
    addPlane(sum, target, scale, violator.psi_output);
    loss += scale;
    if (best > worst) worst = best, result.output = violator.output;
  }
  result.psi_output = std::move(sum);
  result.loss = loss;
}

ExampleList formulate(const ExampleList& examples, Formulation formulation, std::vector<FormulatedExample>& adapters,
                      SlackSearch search) {
  if (formulation == Formulation::Margin) return examples;
  adapters.clear();
  adapters.reserve(examples.size());
  for (const StructuredExample* example : examples) {
    if (example == nullptr) throw InvalidArgument("formulate: a null example");
    adapters.emplace_back(*example, formulation, search);
  }
  ExampleList list;
  for (const FormulatedExample& adapter : adapters) list.push_back(&adapter);
  return list;
}

Formulation formulationOf(const ExampleList& examples) {
  const auto of = [](const StructuredExample* example) {
    const auto* formulated = dynamic_cast<const FormulatedExample*>(example);
    return formulated != nullptr ? formulated->formulation() : Formulation::Margin;
  };
  if (examples.empty()) return Formulation::Margin;
  const Formulation first = of(examples.front());
  for (std::size_t i = 1; i < examples.size(); ++i) {
    const Formulation f = of(examples[i]);
    if (f != first) {
      throw InvalidArgument("the examples mix formulations: example 0 is " + describe(first) + ", example " +
                            std::to_string(i) + " is " + describe(f) + "; wrap every example alike (formulate)");
    }
  }
  return first;
}

}  // namespace mmp
