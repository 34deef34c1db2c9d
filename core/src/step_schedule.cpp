#include <mmp/core/step_schedule.hpp>

#include <mmp/core/error.hpp>

#include <cmath>

namespace mmp {

static double positive(const char* what, double value) {
  if (!(value > 0.0) || !std::isfinite(value)) {
    throw InvalidArgument(std::string("step schedule: ") + what + " must be a finite number > 0, got " +
                          std::to_string(value));
  }
  return value;
}

StepSchedule StepSchedule::constant(double alpha) { return {Kind::Constant, positive("alpha", alpha)}; }
StepSchedule StepSchedule::gammaOverT(double gamma) { return {Kind::GammaOverT, positive("gamma", gamma)}; }
StepSchedule StepSchedule::inverseLambdaT(double lambda) {
  return {Kind::InverseLambdaT, positive("lambda", lambda)};
}

double StepSchedule::stepSize(long t) const {
  if (t < 1) throw InvalidArgument("step schedule: t must be >= 1, got " + std::to_string(t));
  switch (kind_) {
    case Kind::Constant: return parameter_;
    case Kind::GammaOverT: return parameter_ / static_cast<double>(t);
    case Kind::InverseLambdaT: return 1.0 / (parameter_ * static_cast<double>(t));
  }
  return parameter_;
}

std::string StepSchedule::describe() const {
  switch (kind_) {
    case Kind::Constant: return "constant(" + std::to_string(parameter_) + ")";
    case Kind::GammaOverT: return "gamma/t(" + std::to_string(parameter_) + ")";
    case Kind::InverseLambdaT: return "1/(lambda t)(" + std::to_string(parameter_) + ")";
  }
  return "?";
}

}  // namespace mmp
