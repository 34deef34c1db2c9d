// The pictures of a pipeline run (figures.hpp), on a hand-made holdout result.
#include <mmp/maps/render.hpp>
#include <mmp/maps/training/figures.hpp>

#include <doctest/doctest.h>

#include <limits>

using namespace mmp;

namespace {

// A 10 x 10-cell region of 4-px cells on a plain grey image.
Region plainRegion(const std::string& name) {
  Region region;
  region.spec.name = name;
  region.image = cv::Mat(40, 40, CV_8UC3, cv::Scalar(128, 128, 128));
  region.cell_rows = region.cell_cols = 10;
  return region;
}

// Crossing marks are yellow: little blue, much green and red.
int yellowPixels(const cv::Mat& picture) {
  int n = 0;
  for (int r = 0; r < picture.rows; ++r) {
    for (int c = 0; c < picture.cols; ++c) {
      const cv::Vec3b v = picture.at<cv::Vec3b>(r, c);
      n += v[0] < 80 && v[1] > 180 && v[2] > 200;
    }
  }
  return n;
}

}  // namespace

TEST_CASE("a holdout panel shows the true costs beside the learned ones and marks crossings of impassable terrain") {
  PipelineSettings settings;
  settings.features.cell_size = 4;
  settings.evaluation.panel_height = 200;
  Region train = plainRegion("train");
  train.demonstrations = {{0, 11, 22}};
  HoldoutResult holdout;
  holdout.region = plainRegion("holdout");
  holdout.region.true_costs.assign(100, 1.0);
  for (int r = 0; r < 9; ++r) holdout.region.true_costs[static_cast<std::size_t>(r * 10 + 5)] = std::numeric_limits<double>::infinity();
  holdout.learned_costs.assign(100, 20.0);
  holdout.references = {{40, 41, 42, 43, 44, 45, 46}};  // along row 4 ...
  holdout.plans[Method::Learned] = {{40, 41, 42, 43, 44, 45, 46}};  // ... through the impassable column 5

  // The plans' tile is the last, square, `height` wide, a gap from the right edge.
  auto plansTile = [&](const cv::Mat& panel) { return panel(cv::Rect(panel.cols - 8 - 200, 0, 200, panel.rows)); };
  const cv::Mat crossing = holdoutPanel(train, holdout, settings);
  CHECK(crossing.rows > 200 + 40);  // titles above, a legend below
  CHECK(yellowPixels(plansTile(crossing)) > 20);

  holdout.references[0] = holdout.plans[Method::Learned][0] = {90, 91, 92, 93, 94, 95, 96};  // row 9: passable
  const cv::Mat no_crossing = holdoutPanel(train, holdout, settings);
  CHECK(yellowPixels(plansTile(no_crossing)) == 0);
  CHECK(no_crossing.rows < crossing.rows + 1);  // no legend entry for crossings (same rows or fewer)

  holdout.region.true_costs.clear();  // without labels: no true-cost tile
  const cv::Mat without_truth = holdoutPanel(train, holdout, settings);
  CHECK(without_truth.cols <= no_crossing.cols - 200);
}
