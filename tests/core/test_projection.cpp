#include "support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/projection.hpp>

#include <doctest/doctest.h>

using namespace mmp;

// Checks that p(x) is in the set, idempotent, and the nearest point: no point z of the set is
// closer, and the variational inequality (x - p)^T (z - p) <= 0 holds for every z in the set.
static void checkNearestPoint(const Projection& set, Random& rng, Eigen::Index d, double scale) {
  std::vector<Eigen::VectorXd> members;
  for (int k = 0; k < 200; ++k) {
    Eigen::VectorXd z = test::randomVector(rng, d, scale);
    set.project(z);
    members.push_back(z);
  }
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::VectorXd x = test::randomVector(rng, d, scale);
    Eigen::VectorXd p = x;
    set.project(p);
    CHECK(set.contains(p, 1e-9));
    Eigen::VectorXd again = p;
    set.project(again);
    CHECK((again - p).norm() <= 1e-9);
    for (const auto& z : members) {
      CHECK((x - p).norm() <= (x - z).norm() + 1e-9);
      CHECK((x - p).dot(z - p) <= 1e-7);
    }
  }
}

TEST_CASE("box projection is idempotent and returns the nearest point") {
  Random rng(1);
  Eigen::VectorXd lower(4), upper(4);
  lower << -1.0, 0.0, -std::numeric_limits<double>::infinity(), 0.5;
  upper << 1.0, std::numeric_limits<double>::infinity(), 0.0, 0.5;
  checkNearestPoint(BoxProjection(lower, upper), rng, 4, 2.0);
  checkNearestPoint(BoxProjection::nonnegative(5).withLowerBound(4, 1.5), rng, 5, 3.0);
}

TEST_CASE("L2 ball projection is idempotent and returns the nearest point") {
  Random rng(2);
  checkNearestPoint(L2BallProjection(1.5), rng, 6, 2.0);
  checkNearestPoint(L2BallProjection(0.5, Eigen::VectorXd::Constant(3, 1.0)), rng, 3, 2.0);
}

TEST_CASE("an intersection (nonnegative box with a bias floor, inside a ball) projects to the nearest point") {
  Random rng(3);
  const auto box = std::make_shared<BoxProjection>(BoxProjection::nonnegative(4).withLowerBound(3, 0.5));
  const auto ball = std::make_shared<L2BallProjection>(2.0);
  checkNearestPoint(IntersectionProjection({box, ball}), rng, 4, 3.0);
  checkNearestPoint(*intersect({ball, box}), rng, 4, 3.0);
}

TEST_CASE("a half-space projects to the nearest point, alone and with a box") {
  Random rng(4);
  Eigen::VectorXd a(3);
  a << 1.0, -2.0, 0.5;
  checkNearestPoint(HalfSpaceProjection(a, 0.7), rng, 3, 2.0);
  const auto box = std::make_shared<BoxProjection>(BoxProjection::nonnegative(3));
  checkNearestPoint(IntersectionProjection({box, std::make_shared<HalfSpaceProjection>(a, 0.7)}), rng, 3, 3.0);
  CHECK_THROWS_AS(HalfSpaceProjection(Eigen::VectorXd::Zero(3), 1.0), InvalidArgument);
}

TEST_CASE("projections refuse malformed sets") {
  CHECK_THROWS_AS(BoxProjection(Eigen::VectorXd::Ones(2), Eigen::VectorXd::Zero(2)), InvalidArgument);
  CHECK_THROWS_AS(BoxProjection(Eigen::VectorXd::Zero(2), Eigen::VectorXd::Ones(3)), InvalidArgument);
  CHECK_THROWS_AS(BoxProjection::nonnegative(2).withLowerBound(2, 1.0), InvalidArgument);
  CHECK_THROWS_AS(L2BallProjection(-1.0), InvalidArgument);
  CHECK_THROWS_AS(IntersectionProjection({}), InvalidArgument);
  Eigen::VectorXd w = Eigen::VectorXd::Zero(3);
  CHECK_THROWS_AS(BoxProjection::nonnegative(2).project(w), InvalidArgument);
}
