#include <mmp/learners/learner.hpp>

#include <mmp/core/error.hpp>

namespace mmp {

std::string describe(Info info) {
  switch (info) {
    case Info::Success: return "Success";
    case Info::NoConvergence: return "NoConvergence";
    case Info::NumericalIssue: return "NumericalIssue";
    case Info::InvalidInput: return "InvalidInput";
  }
  return "?";
}

LearnerKind parseLearnerKind(const std::string& name) {
  if (name == "batch") return LearnerKind::Batch;
  if (name == "online") return LearnerKind::Online;
  if (name == "dlpw") return LearnerKind::Dlpw;
  if (name == "cutting_plane") return LearnerKind::CuttingPlane;
  if (name == "bcfw") return LearnerKind::Bcfw;
  if (name == "lbfgs") return LearnerKind::Lbfgs;
  throw InvalidArgument("learner '" + name + "': expected batch, online, dlpw, cutting_plane, bcfw or lbfgs");
}

std::string describe(LearnerKind kind) {
  switch (kind) {
    case LearnerKind::Batch: return "batch";
    case LearnerKind::Online: return "online";
    case LearnerKind::Dlpw: return "dlpw";
    case LearnerKind::CuttingPlane: return "cutting_plane";
    case LearnerKind::Bcfw: return "bcfw";
    case LearnerKind::Lbfgs: return "lbfgs";
  }
  return "?";
}

TrainingObjective parseTrainingObjective(const std::string& name) {
  if (name == "margin") return TrainingObjective::Margin;
  if (name == "likelihood") return TrainingObjective::Likelihood;
  throw InvalidArgument("objective '" + name + "': expected margin or likelihood");
}

std::string describe(TrainingObjective objective) {
  return objective == TrainingObjective::Likelihood ? "likelihood" : "margin";
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void Learner::start(const ExampleList& examples) {
  start_ = std::chrono::steady_clock::now();
  formulation_ = formulationOf(examples);
  info_ = Info::InvalidInput;
  message_ = "running";
  iterations_ = 0;
  trace_.clear();
  seconds_ = 0.0;
}

double Learner::elapsed() const { return secondsSince(start_); }

bool Learner::report(const TraceRecord& record) { return !callback_ || callback_(record); }

std::string Learner::rejected(const Eigen::VectorXd& w) const {
  if (!w.allFinite()) return "is not finite";
  return weight_check_ ? weight_check_(w) : std::string();
}

void Learner::finish(Info info, std::string message) {
  info_ = info;
  message_ = std::move(message);
  seconds_ = elapsed();
}

Eigen::VectorXd Learner::startingPoint(Eigen::VectorXd initial, Eigen::Index d, const Projection& projection,
                                           const char* learner) {
  Eigen::VectorXd w = initial.size() == 0 ? Eigen::VectorXd::Zero(d) : std::move(initial);
  if (w.size() != d) {
    throw InvalidArgument(std::string(learner) + ": initial weights have size " + std::to_string(w.size()) +
                          ", the examples have dimension " + std::to_string(d));
  }
  projection.project(w);
  weights_ = w;
  return w;
}

}  // namespace mmp
