#include <mmp/core/error.hpp>
#include <mmp/maps/synthetic_scene.hpp>

#include <doctest/doctest.h>

#include <array>

using namespace mmp;

TEST_CASE("the synthetic scene is deterministic and holds every class") {
  SyntheticSceneParams p;
  p.rows = 160;
  p.cols = 200;
  p.seed = 5;
  const SyntheticScene a = makeSyntheticScene(p), b = makeSyntheticScene(p);
  REQUIRE(a.image.type() == CV_8UC3);
  REQUIRE(a.labels.type() == CV_8UC1);
  CHECK(a.image.size() == cv::Size(200, 160));
  CHECK(a.labels.size() == a.image.size());
  CHECK(cv::norm(a.image, b.image, cv::NORM_INF) == 0.0);
  CHECK(cv::norm(a.labels, b.labels, cv::NORM_INF) == 0.0);
  p.seed = 6;
  const SyntheticScene c = makeSyntheticScene(p);
  CHECK(cv::norm(a.labels, c.labels, cv::NORM_L1) > 0.0);

  const auto classes = syntheticClasses();
  REQUIRE(classes.size() == 5);
  std::array<int, 256> counts{};
  for (auto it = a.labels.begin<std::uint8_t>(); it != a.labels.end<std::uint8_t>(); ++it) ++counts[*it];
  int total = 0;
  for (const LabelClass& k : classes) {
    CAPTURE(k.name);
    CHECK(counts[static_cast<std::size_t>(k.index)] > 0);
    total += counts[static_cast<std::size_t>(k.index)];
  }
  CHECK(total == 160 * 200);  // no value outside the declared classes

  // Classes look different: mean colours of road and vegetation are far apart.
  const cv::Scalar road = cv::mean(a.image, a.labels == 2), vegetation = cv::mean(a.image, a.labels == 3);
  CHECK(cv::norm(road - vegetation) > 30.0);
}

TEST_CASE("synthetic scene parameters are checked") {
  SyntheticSceneParams p;
  p.rows = 10;
  CHECK_THROWS_WITH_AS(makeSyntheticScene(p), doctest::Contains("rows and cols"), InvalidArgument);
  p = {};
  p.roads = 0;
  CHECK_THROWS_AS(makeSyntheticScene(p), InvalidArgument);
  p = {};
  p.water_share = 0.9;
  CHECK_THROWS_AS(makeSyntheticScene(p), InvalidArgument);
}
