// Projections onto closed convex sets W, for the projected subgradient step (eq. 7).
//
// Each projection returns the nearest point of its set (Euclidean).  They compose: intersect()
// projects onto the intersection of several sets with Dykstra's algorithm, which converges to the
// nearest point of the intersection (plain alternating projection does not).  Typical sets:
//   - BoxProjection::nonnegative(d): w >= 0 (cost maps stay positive with nonnegative features)
//   - a box with a floor on the bias weight: positive cells even after loss augmentation
//   - L2BallProjection(r): |w| <= r (Pegasos-style radius 1/sqrt(lambda))
#pragma once

#include <Eigen/Dense>
#include <memory>
#include <string>
#include <vector>

namespace mmp {

class Projection {
 public:
  virtual ~Projection() = default;
  /// ensures: w becomes the point of the set nearest to w (within the set's tolerance).
  virtual void project(Eigen::VectorXd& w) const = 0;
  /// ensures: true iff w lies in the set up to `tolerance`.
  virtual bool contains(const Eigen::VectorXd& w, double tolerance = 1e-12) const = 0;
  virtual std::string describe() const = 0;
};

using ProjectionPtr = std::shared_ptr<const Projection>;

/// The whole space: projection leaves w unchanged.
class NoProjection final : public Projection {
 public:
  void project(Eigen::VectorXd&) const override {}
  bool contains(const Eigen::VectorXd& w, double tolerance = 1e-12) const override;
  std::string describe() const override { return "none"; }
};

/// lower <= w <= upper per coordinate (entries may be +-infinity).
class BoxProjection final : public Projection {
 public:
  /// requires: lower.size() == upper.size(), lower <= upper, no NaN.
  BoxProjection(Eigen::VectorXd lower, Eigen::VectorXd upper);
  /// w >= 0.
  static BoxProjection nonnegative(Eigen::Index d);
  /// A copy with coordinate i bounded below by `floor` as well (for example a bias floor).
  BoxProjection withLowerBound(Eigen::Index i, double floor) const;

  void project(Eigen::VectorXd& w) const override;
  bool contains(const Eigen::VectorXd& w, double tolerance = 1e-12) const override;
  std::string describe() const override;
  const Eigen::VectorXd& lower() const { return lower_; }
  const Eigen::VectorXd& upper() const { return upper_; }

 private:
  Eigen::VectorXd lower_, upper_;
};

/// |w - center| <= radius (center 0 unless given).
class L2BallProjection final : public Projection {
 public:
  explicit L2BallProjection(double radius, Eigen::VectorXd center = Eigen::VectorXd());
  void project(Eigen::VectorXd& w) const override;
  bool contains(const Eigen::VectorXd& w, double tolerance = 1e-12) const override;
  std::string describe() const override;

 private:
  double radius_;
  Eigen::VectorXd center_;
};

/// The half-space a . w >= b (a linear constraint, e.g. a marked region's cost held above another's).
class HalfSpaceProjection final : public Projection {
 public:
  /// requires: a non-zero and finite, b finite.
  HalfSpaceProjection(Eigen::VectorXd a, double b);
  void project(Eigen::VectorXd& w) const override;
  bool contains(const Eigen::VectorXd& w, double tolerance = 1e-12) const override;
  std::string describe() const override;

 private:
  Eigen::VectorXd a_;
  double b_;
};

/// The intersection of several convex sets, projected onto by Dykstra's algorithm.
class IntersectionProjection final : public Projection {
 public:
  /// requires: sets non-empty, the intersection non-empty.
  explicit IntersectionProjection(std::vector<ProjectionPtr> sets, double tolerance = 1e-12,
                                  int max_sweeps = 10000);
  /// ensures: w is within `tolerance` of the nearest point of the intersection (or max_sweeps ran).
  void project(Eigen::VectorXd& w) const override;
  bool contains(const Eigen::VectorXd& w, double tolerance = 1e-12) const override;
  std::string describe() const override;

 private:
  std::vector<ProjectionPtr> sets_;
  double tolerance_;
  int max_sweeps_;
};

/// Convenience: shared projections for learner parameters.
ProjectionPtr noProjection();
ProjectionPtr intersect(std::vector<ProjectionPtr> sets);

}  // namespace mmp
