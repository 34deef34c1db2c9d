#include "maps_support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/render.hpp>

#include <doctest/doctest.h>
#include <opencv2/imgcodecs.hpp>

#include <limits>

using namespace mmp;

TEST_CASE("cost maps are coloured by cost, impassable cells black, with a legend") {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> costs = {1.0, 10.0, 100.0, inf, 1.0, 100.0};
  CostMapStyle style;
  style.pixels_per_cell = 10.0;
  const cv::Mat picture = renderCostMap(costs, 2, 3, style);
  REQUIRE(picture.type() == CV_8UC3);
  CHECK(picture.cols > 30);                 // map plus legend
  CHECK(picture.rows >= 20);
  const cv::Vec3b cheap = picture.at<cv::Vec3b>(5, 5), dear = picture.at<cv::Vec3b>(5, 25);
  const cv::Vec3b blocked = picture.at<cv::Vec3b>(15, 5), middle = picture.at<cv::Vec3b>(5, 15);
  CHECK(blocked == cv::Vec3b(0, 0, 0));
  auto brightness = [](const cv::Vec3b& v) { return v[0] + v[1] + v[2]; };
  CHECK(brightness(cheap) < brightness(middle));
  CHECK(brightness(middle) < brightness(dear));
  CHECK(picture.at<cv::Vec3b>(15, 15) == cheap);  // same cost, same colour

  costs[0] = 0.0;
  CHECK_THROWS_AS(renderCostMap(costs, 2, 3, style), InvalidArgument);  // log scale needs costs > 0
  style.log_scale = false;
  CHECK_NOTHROW(renderCostMap(costs, 2, 3, style));
  CHECK_THROWS_AS(renderCostMap(costs, 3, 3, style), InvalidArgument);
}

TEST_CASE("paths, panels and charts draw and save") {
  cv::Mat canvas(40, 40, CV_8UC3, cv::Scalar(255, 255, 255));
  drawPath(canvas, {0, 5, 10, 15}, 4, 10.0, cv::Scalar(0, 0, 255), 2, false);  // the diagonal of a 4 x 4 grid
  CHECK(canvas.at<cv::Vec3b>(25, 25)[2] == 255);
  CHECK(canvas.at<cv::Vec3b>(25, 25)[0] < 128);
  CHECK(canvas.at<cv::Vec3b>(5, 35) == cv::Vec3b(255, 255, 255));

  const cv::Mat panel = makePanel({{"left", canvas}, {"right", cv::Mat(20, 10, CV_8UC3, cv::Scalar(0, 0, 0))}}, 80);
  CHECK(panel.rows > 80);
  CHECK(panel.cols >= 80 + 40);
  CHECK_THROWS_AS(makePanel({}, 80), InvalidArgument);

  ChartSeries series{"objective", {1, 2, 3}, {5.0, 2.0, 1.0}};
  ChartStyle style;
  style.title = "training";
  const cv::Mat chart = lineChart({series}, style);
  CHECK(chart.size() == cv::Size(style.width, style.height));
  series.y.pop_back();
  CHECK_THROWS_AS(lineChart({series}, style), InvalidArgument);

  test::TempDir dir;
  writeImage(dir.file("panel.png"), panel);
  CHECK(cv::imread(dir.file("panel.png")).size() == panel.size());
  CHECK_THROWS_WITH_AS(writeImage(dir.file("no/such/folder/x.png"), panel), doctest::Contains("x.png"), DataError);
}
