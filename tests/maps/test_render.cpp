#include "maps_support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/render.hpp>

#include <doctest/doctest.h>
#include <opencv2/imgcodecs.hpp>

#include <cmath>
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
  const cv::Scalar grey = impassableColour();
  CHECK(blocked == cv::Vec3b(grey[0], grey[1], grey[2]));
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

TEST_CASE("round ticks are round, inside the range and about as many as asked") {
  // Linear ticks: whole multiples of one step of 1, 2 or 5 x 10^k.  Log ticks: digit x 10^k (or, over
  // less than a factor 3, linear ticks).
  auto mantissa = [](double a) { return a / std::pow(10.0, std::floor(std::log10(a) + 1e-12)); };
  auto near_whole = [](double x) { return std::fabs(x - std::round(x)) < 1e-6; };
  auto linearly_round = [&](const std::vector<double>& ticks) {
    const double difference = ticks[1] - ticks[0];  // the step, up to the subtraction's rounding
    const int k0 = static_cast<int>(std::floor(std::log10(difference)));
    for (int k = k0 - 1; k <= k0 + 1; ++k) {
      for (double m : {1.0, 2.0, 5.0}) {
        const double step = m * std::pow(10.0, k);
        if (std::fabs(step - difference) > 1e-6 * step) continue;
        for (double v : ticks) {
          if (std::fabs(v / step - std::round(v / step)) > 1e-6) return false;
        }
        return true;
      }
    }
    return false;
  };
  Random rng(7);
  for (int trial = 0; trial < 500; ++trial) {
    const bool log_scale = trial % 2 == 0;
    const double low = log_scale ? std::pow(10.0, rng.uniform(-4.0, 4.0)) : rng.uniform(-1000.0, 1000.0);
    const double high = log_scale ? low * std::pow(10.0, rng.uniform(0.05, 12.0)) : low + std::pow(10.0, rng.uniform(-3.0, 4.0));
    const std::vector<double> ticks = roundTicks(low, high, log_scale, 5);
    CAPTURE(low);
    CAPTURE(high);
    CAPTURE(log_scale);
    REQUIRE(ticks.size() >= 2);
    CHECK(ticks.size() <= 12);
    if (log_scale && high >= 3 * low) {
      for (double v : ticks) CHECK(near_whole(mantissa(v)));
    } else {
      CHECK(linearly_round(ticks));
    }
    for (std::size_t i = 0; i < ticks.size(); ++i) {
      CAPTURE(ticks[i]);
      CHECK(ticks[i] >= low - 1e-9 * std::fabs(low));
      CHECK(ticks[i] <= high + 1e-9 * std::fabs(high));
      if (i > 0) CHECK(ticks[i] > ticks[i - 1]);
    }
  }
  // The training curve's epochs 1..100: 20, 40, ... (not 21, 41, 60); a loss from 8.13 to 61.6 on a log axis.
  CHECK(roundTicks(1, 100, false, 6) == std::vector<double>{20, 40, 60, 80, 100});
  CHECK(roundTicks(1, 30, false, 6) == std::vector<double>{5, 10, 15, 20, 25, 30});
  CHECK(roundTicks(8.13, 61.6, true, 5) == std::vector<double>{10, 20, 30, 50});
  CHECK(roundTicks(1, 10, true, 5) == std::vector<double>{1, 2, 5, 10});
  CHECK(roundTicks(0.3, 0.7, false, 5) == std::vector<double>{0.3, 0.4, 0.5, 0.6, 0.7});  // 0.3, not 0.30000000000000004
  for (double v : roundTicks(1e-3, 1e9, true, 5)) CHECK(std::log10(v) == doctest::Approx(std::round(std::log10(v))));
  CHECK(roundTicks(1e-3, 1e9, true, 5).size() <= 7);
  CHECK_THROWS_AS(roundTicks(2, 1, false), InvalidArgument);
  CHECK_THROWS_AS(roundTicks(0, 1, true), InvalidArgument);
  CHECK_THROWS_AS(roundTicks(1, INFINITY, false), InvalidArgument);

  CHECK(tickText(0.3) == "0.3");
  CHECK(tickText(3 * 0.1) == "0.3");
  CHECK(tickText(20000) == "20000");
  CHECK(tickText(2.5) == "2.5");
  CHECK(tickText(1e6) == "1e+06");
  CHECK(tickText(-0.0) == "0");
}

TEST_CASE("text, legends and colour bars grow with the picture") {
  CHECK(drawingScale(cv::Size(256, 256)) == 1.0);
  CHECK(drawingScale(cv::Size(720, 420)) == 1.0);
  CHECK(drawingScale(cv::Size(2149, 1479)) == doctest::Approx(2.97).epsilon(0.01));

  const std::vector<LegendEntry> entries = {{LegendMark::Line, cv::Scalar(40, 40, 255), "plan"},
                                            {LegendMark::Start, cv::Scalar(40, 40, 255), "start"},
                                            {LegendMark::Goal, cv::Scalar(40, 40, 255), "goal"},
                                            {LegendMark::Crossing, {}, "crosses impassable terrain"},
                                            {LegendMark::Swatch, impassableColour(), "impassable"},
                                            {LegendMark::Note, {}, "a note"},
                                            {LegendMark::Line, {}, ""}};  // no label: left out
  const cv::Mat small(256, 256, CV_8UC3, cv::Scalar(0, 120, 0)), large(1479, 2149, CV_8UC3, cv::Scalar(0, 120, 0));
  const cv::Mat small_legend = withLegend(small, entries, drawingScale(small.size()));
  const cv::Mat large_legend = withLegend(large, entries, drawingScale(large.size()));
  const int small_strip = small_legend.rows - small.rows, large_strip = large_legend.rows - large.rows;
  CHECK(small_strip > 0);
  CHECK(large_strip > 2 * (small_strip / 3));  // one row on the wide picture, several on the narrow one, 3x the text
  CHECK(small_legend.cols == small.cols);      // wrapped, not widened
  CHECK(small_legend(cv::Rect(0, 0, 256, 256)).clone().reshape(1).at<std::uint8_t>(1) == 120);  // the picture kept
  const int small_row = withLegend(small, {entries[0]}, drawingScale(small.size())).rows - small.rows;
  const int large_row = withLegend(large, {entries[0]}, drawingScale(large.size())).rows - large.rows;
  CHECK(small_row < small_strip);    // one row against several
  CHECK(large_row > 2 * small_row);  // the same row, 3x the text
  CHECK(withLegend(small, {}, 1.0).size() == small.size());
  CHECK_THROWS_AS(withLegend(small, entries, 0.0), InvalidArgument);

  // The colour bar beside a 2149-px map is wider than beside a 256-px map, in proportion to the text.
  CostMapStyle style;
  style.pixels_per_cell = 4;
  const std::vector<double> small_costs(64 * 64, 2.0), large_costs(369 * 537, 2.0);
  const int small_bar = renderCostMap(small_costs, 64, 64, style).cols - 256;
  const int large_bar = renderCostMap(large_costs, 369, 537, style).cols - 537 * 4;
  CHECK(large_bar > 2 * small_bar);
}

TEST_CASE("crossings of impassable terrain are found and marked at the crossing cell") {
  const double inf = std::numeric_limits<double>::infinity();
  // A 5 x 5 grid with an impassable column 2 (rows 0..3) and an impassable cell (4, 4).
  std::vector<double> costs(25, 1.0);
  for (int r = 0; r < 4; ++r) costs[static_cast<std::size_t>(r * 5 + 2)] = inf;
  costs[24] = inf;
  const std::vector<int> path = {10, 11, 12, 13, 14, 19, 24};  // along row 2, then down column 4
  CHECK(impassableCrossings(path, costs) == std::vector<int>{12, 24});
  CHECK(impassableCrossings({2, 7, 12}, costs) == std::vector<int>{7});  // a run of three: its middle
  CHECK(impassableCrossings({0, 1, 6}, costs).empty());
  CHECK(impassableCrossings({}, costs).empty());
  CHECK_THROWS(impassableCrossings({25}, costs));

  cv::Mat picture(100, 100, CV_8UC3, cv::Scalar(255, 255, 255));
  drawCrossings(picture, {12}, 5, 20.0, 2);  // cell (2, 2): centre (50, 50)
  auto yellow = [](const cv::Vec3b& v) { return v[0] < 80 && v[1] > 180 && v[2] > 200; };
  CHECK(yellow(picture.at<cv::Vec3b>(50, 50)));          // the X's centre
  CHECK(picture.at<cv::Vec3b>(10, 10) == cv::Vec3b(255, 255, 255));
  CHECK(picture.at<cv::Vec3b>(90, 50) == cv::Vec3b(255, 255, 255));
}

TEST_CASE("a plan picture shows the path with its start, goal and legend, over the image or the costs") {
  CostGrid grid;
  grid.rows = 40, grid.cols = 50, grid.cell_size = 4;
  grid.costs.assign(static_cast<std::size_t>(grid.cells()), 3.0);
  grid.costs[5] = 30.0;
  grid.costs[6] = std::numeric_limits<double>::infinity();
  const cv::Mat image(163, 202, CV_8UC3, cv::Scalar(0, 120, 0));  // edge pixels beyond the whole cells: cropped
  const std::vector<CellPoint> path = {{1.5, 20.5}, {25.5, 20.5}, {45.5, 35.5}};
  const cv::Mat over_image = renderPlan(image, grid, path);
  CHECK(over_image.cols == 200);
  CHECK(over_image.rows > 160);  // the legend below
  CHECK(over_image.at<cv::Vec3b>(82, 6) == cv::Vec3b(40, 40, 255));    // the start dot, in the path's colour
  CHECK(over_image.at<cv::Vec3b>(82, 60) == cv::Vec3b(40, 40, 255));   // the line
  CHECK(over_image.at<cv::Vec3b>(10, 100) == cv::Vec3b(0, 120, 0));    // the image elsewhere
  CHECK(over_image.at<cv::Vec3b>(142, 182) == cv::Vec3b(255, 255, 255));  // the goal's white disc

  PlanPictureStyle style;
  style.underlay = PlanUnderlay::Costs;
  const cv::Mat over_costs = renderPlan(image, grid, path, style);
  CHECK(over_costs.cols > 200);  // the colour bar
  CHECK(over_costs.at<cv::Vec3b>(2, 26) == cv::Vec3b(150, 150, 150));  // cell (0, 6): impassable
  CHECK(over_costs.at<cv::Vec3b>(82, 60) == cv::Vec3b(40, 40, 255));

  CHECK_THROWS_AS(renderPlan(image(cv::Rect(0, 0, 40, 40)), grid, path), InvalidArgument);
  CHECK_THROWS_AS(renderPlan(image, grid, {}), InvalidArgument);
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
