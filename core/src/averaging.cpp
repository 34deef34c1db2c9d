#include <mmp/core/averaging.hpp>

#include <mmp/core/error.hpp>

namespace mmp {

Averaging parseAveraging(const std::string& name) {
  if (name == "none") return Averaging::None;
  if (name == "uniform") return Averaging::Uniform;
  if (name == "late_weighted") return Averaging::LateWeighted;
  throw InvalidArgument("averaging: unknown kind '" + name + "' (valid: none, uniform, late_weighted)");
}

std::string describe(Averaging averaging) {
  switch (averaging) {
    case Averaging::None: return "none";
    case Averaging::Uniform: return "uniform";
    case Averaging::LateWeighted: return "late_weighted";
  }
  return "?";
}

void IterateAverage::add(const Eigen::VectorXd& w) {
  ++count_;
  if (kind_ == Averaging::None || count_ == 1) {
    mean_ = w;
    weight_sum_ = 1.0;
    return;
  }
  const double weight = kind_ == Averaging::Uniform ? 1.0 : static_cast<double>(count_);
  weight_sum_ += weight;
  // Running weighted mean: mean += (w - mean) * weight / sum, stable without storing iterates.
  mean_ += (weight / weight_sum_) * (w - mean_);
}

}  // namespace mmp
