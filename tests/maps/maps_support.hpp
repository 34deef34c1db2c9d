// Helpers for the maps tests: temporary files, small generated images, a cost model with every
// source of feature reach, (the training suites' settings: training/training_support.hpp).
#pragma once

#include "temp_dir.hpp"

#include <mmp/core/random.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/feature_stack.hpp>
#include <mmp/maps/synthetic_scene.hpp>

#include <opencv2/core.hpp>

#include <cstdint>
#include <limits>
#include <string>

namespace mmp::test {

/// A random 8-bit BGR image.
inline cv::Mat randomImage(std::uint64_t seed, int rows, int cols) {
  Random rng(seed);
  cv::Mat image(rows, cols, CV_8UC3);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      cv::Vec3b& px = image.at<cv::Vec3b>(r, c);
      for (int ch = 0; ch < 3; ++ch) px[ch] = static_cast<std::uint8_t>(rng.below(256));  // in channel order
    }
  }
  return image;
}

/// The synthetic aerial scene's image, rows x cols pixels.
inline cv::Mat syntheticImage(int rows, int cols, std::uint64_t seed) {
  SyntheticSceneParams p;
  p.rows = rows;
  p.cols = cols;
  p.seed = seed;
  return makeSyntheticScene(p).image;
}

/// A model with the shipped feature settings (blurs up to 12 px, a 7 px texture window, 9 bins) and
/// a class-score layer with a 16 px context disc, random weights: every source of reach is there.
inline CostModel randomCostModel(const cv::Mat& image, std::uint64_t seed) {
  FeatureSettings settings;
  settings.bins = 9;
  settings.complements = false;
  const RawFeatures raw = computeRawFeatures(image, settings);
  const FeatureStack base = FeatureStack::fit(settings, {&raw});
  const FeatureMap base_map = base.map(raw);
  Random rng(seed);
  Eigen::MatrixXd class_weights(3, base.features());
  for (Eigen::Index i = 0; i < class_weights.size(); ++i) class_weights.data()[i] = rng.normal();
  FeatureStack stack = base.withClassScores({"a", "b", "c"}, class_weights, {&base_map}, {16.0});
  Eigen::VectorXd w(stack.features());
  for (Eigen::Index k = 0; k < w.size(); ++k) w[k] = 0.3 * rng.normal();
  return CostModel(std::move(stack), w, CostForm::Exponential);
}

/// A model fitted on `image` under `settings` as training fits one (raw features standardised by the
/// image's own statistics if settings.normalise_per_image, then the scaling fitted on them), with
/// random weights and exponential costs.
inline CostModel fittedCostModel(const cv::Mat& image, const FeatureSettings& settings, std::uint64_t seed) {
  RawFeatures raw = computeRawFeatures(image, settings);
  normaliseImageFeatures(raw, settings);
  FeatureStack stack = FeatureStack::fit(settings, {&raw});
  Random rng(seed);
  Eigen::VectorXd w(stack.features());
  for (Eigen::Index k = 0; k < w.size(); ++k) w[k] = 0.3 * rng.normal();
  return CostModel(std::move(stack), w, CostForm::Exponential);
}

}  // namespace mmp::test
