#include "support.hpp"

#include <mmp/core/averaging.hpp>
#include <mmp/core/error.hpp>
#include <mmp/core/step_schedule.hpp>

#include <doctest/doctest.h>

using namespace mmp;

TEST_CASE("step schedules follow their formulas") {
  CHECK(StepSchedule::constant(0.5).stepSize(7) == 0.5);
  CHECK(StepSchedule::gammaOverT(2.0).stepSize(4) == doctest::Approx(0.5));
  CHECK(StepSchedule::inverseLambdaT(0.1).stepSize(5) == doctest::Approx(2.0));
  CHECK_THROWS_AS(StepSchedule::constant(0.0), InvalidArgument);
  CHECK_THROWS_AS(StepSchedule::gammaOverT(-1.0), InvalidArgument);
  CHECK_THROWS_AS(StepSchedule::constant(1.0).stepSize(0), InvalidArgument);
}

TEST_CASE("uniform and late-weighted averages equal their explicit sums") {
  Random rng(4);
  std::vector<Eigen::VectorXd> iterates;
  for (int t = 0; t < 37; ++t) iterates.push_back(test::randomVector(rng, 5));
  IterateAverage uniform(Averaging::Uniform), late(Averaging::LateWeighted), none(Averaging::None);
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(5), weighted = Eigen::VectorXd::Zero(5);
  double weights = 0.0;
  for (std::size_t t = 0; t < iterates.size(); ++t) {
    uniform.add(iterates[t]);
    late.add(iterates[t]);
    none.add(iterates[t]);
    sum += iterates[t];
    weighted += static_cast<double>(t + 1) * iterates[t];
    weights += static_cast<double>(t + 1);
  }
  CHECK((uniform.mean() - sum / 37.0).norm() <= 1e-12);
  CHECK((late.mean() - weighted / weights).norm() <= 1e-12);
  CHECK(none.mean() == iterates.back());
  CHECK(parseAveraging("late_weighted") == Averaging::LateWeighted);
  CHECK_THROWS_WITH_AS(parseAveraging("mean"), doctest::Contains("valid: none, uniform, late_weighted"), InvalidArgument);
}
