#include <mmp/core/projection.hpp>

#include <mmp/core/error.hpp>

#include <cmath>
#include <sstream>

namespace mmp {

bool NoProjection::contains(const Eigen::VectorXd& w, double) const { return w.allFinite(); }

BoxProjection::BoxProjection(Eigen::VectorXd lower, Eigen::VectorXd upper)
    : lower_(std::move(lower)), upper_(std::move(upper)) {
  if (lower_.size() != upper_.size()) {
    throw InvalidArgument("box projection: lower has size " + std::to_string(lower_.size()) +
                          " but upper has size " + std::to_string(upper_.size()));
  }
  for (Eigen::Index i = 0; i < lower_.size(); ++i) {
    if (std::isnan(lower_[i]) || std::isnan(upper_[i]) || lower_[i] > upper_[i]) {
      throw InvalidArgument("box projection: coordinate " + std::to_string(i) + " has bounds [" +
                            std::to_string(lower_[i]) + ", " + std::to_string(upper_[i]) +
                            "]; need lower <= upper and no NaN");
    }
  }
}

BoxProjection BoxProjection::nonnegative(Eigen::Index d) {
  return {Eigen::VectorXd::Zero(d), Eigen::VectorXd::Constant(d, std::numeric_limits<double>::infinity())};
}

BoxProjection BoxProjection::withLowerBound(Eigen::Index i, double floor) const {
  if (i < 0 || i >= lower_.size()) {
    throw InvalidArgument("box projection: coordinate " + std::to_string(i) + " is outside 0.." +
                          std::to_string(lower_.size() - 1));
  }
  Eigen::VectorXd lower = lower_;
  lower[i] = std::max(lower[i], floor);
  return {lower, upper_};
}

static void checkSize(const char* what, Eigen::Index expected, const Eigen::VectorXd& w) {
  if (w.size() != expected) {
    throw InvalidArgument(std::string(what) + ": w has size " + std::to_string(w.size()) + ", the set has " +
                          std::to_string(expected));
  }
}

void BoxProjection::project(Eigen::VectorXd& w) const {
  checkSize("box projection", lower_.size(), w);
  w = w.cwiseMax(lower_).cwiseMin(upper_);
}

bool BoxProjection::contains(const Eigen::VectorXd& w, double tolerance) const {
  checkSize("box projection", lower_.size(), w);
  return ((w - lower_).array() >= -tolerance).all() && ((upper_ - w).array() >= -tolerance).all();
}

std::string BoxProjection::describe() const {
  std::ostringstream out;
  out << "box(" << lower_.size() << " coordinates, lower min " << lower_.minCoeff() << ", upper max "
      << upper_.maxCoeff() << ")";
  return out.str();
}

L2BallProjection::L2BallProjection(double radius, Eigen::VectorXd center)
    : radius_(radius), center_(std::move(center)) {
  if (!(radius_ >= 0.0) || !std::isfinite(radius_)) {
    throw InvalidArgument("L2 ball projection: radius must be finite and >= 0, got " + std::to_string(radius_));
  }
}

void L2BallProjection::project(Eigen::VectorXd& w) const {
  if (center_.size() == 0) {
    const double norm = w.norm();
    if (norm > radius_) w *= radius_ / norm;
    return;
  }
  checkSize("L2 ball projection", center_.size(), w);
  const double norm = (w - center_).norm();
  if (norm > radius_) w = center_ + (radius_ / norm) * (w - center_);
}

bool L2BallProjection::contains(const Eigen::VectorXd& w, double tolerance) const {
  const double norm = center_.size() == 0 ? w.norm() : (w - center_).norm();
  return norm <= radius_ + tolerance;
}

std::string L2BallProjection::describe() const { return "l2_ball(radius " + std::to_string(radius_) + ")"; }

HalfSpaceProjection::HalfSpaceProjection(Eigen::VectorXd a, double b) : a_(std::move(a)), b_(b) {
  if (!a_.allFinite() || !(a_.squaredNorm() > 0.0) || !std::isfinite(b_)) {
    throw InvalidArgument("half-space projection: a must be finite and non-zero and b finite");
  }
}

void HalfSpaceProjection::project(Eigen::VectorXd& w) const {
  checkSize("half-space projection", a_.size(), w);
  const double gap = b_ - a_.dot(w);
  if (gap > 0.0) w += (gap / a_.squaredNorm()) * a_;
}

bool HalfSpaceProjection::contains(const Eigen::VectorXd& w, double tolerance) const {
  return a_.size() == w.size() && a_.dot(w) >= b_ - tolerance * std::max(1.0, a_.norm());
}

std::string HalfSpaceProjection::describe() const { return "half_space(" + std::to_string(a_.size()) + " coordinates)"; }

IntersectionProjection::IntersectionProjection(std::vector<ProjectionPtr> sets, double tolerance, int max_sweeps)
    : sets_(std::move(sets)), tolerance_(tolerance), max_sweeps_(max_sweeps) {
  if (sets_.empty()) throw InvalidArgument("intersection projection: no sets given");
  for (const auto& s : sets_) {
    if (!s) throw InvalidArgument("intersection projection: a set is null");
  }
}

// Dykstra's algorithm: alternating projections with a correction term per set, which (unlike plain
// alternation) converges to the nearest point of the intersection, not just some point of it.
void IntersectionProjection::project(Eigen::VectorXd& w) const {
  if (sets_.size() == 1) {
    sets_.front()->project(w);
    return;
  }
  std::vector<Eigen::VectorXd> corrections(sets_.size(), Eigen::VectorXd::Zero(w.size()));
  Eigen::VectorXd x = w, z;
  for (int sweep = 0; sweep < max_sweeps_; ++sweep) {
    const Eigen::VectorXd start = x;
    double correction_change = 0.0;
    for (std::size_t j = 0; j < sets_.size(); ++j) {
      z = x + corrections[j];
      sets_[j]->project(z);
      Eigen::VectorXd next_correction = x + corrections[j] - z;
      correction_change += (next_correction - corrections[j]).squaredNorm();
      corrections[j] = std::move(next_correction);
      x = z;
    }
    if ((x - start).squaredNorm() + correction_change <= tolerance_ * tolerance_) break;
  }
  w = x;
}

bool IntersectionProjection::contains(const Eigen::VectorXd& w, double tolerance) const {
  for (const auto& s : sets_) {
    if (!s->contains(w, tolerance)) return false;
  }
  return true;
}

std::string IntersectionProjection::describe() const {
  std::string text = "intersection(";
  for (std::size_t j = 0; j < sets_.size(); ++j) text += (j ? ", " : "") + sets_[j]->describe();
  return text + ")";
}

ProjectionPtr noProjection() { return std::make_shared<NoProjection>(); }

ProjectionPtr intersect(std::vector<ProjectionPtr> sets) {
  return std::make_shared<IntersectionProjection>(std::move(sets));
}

}  // namespace mmp
