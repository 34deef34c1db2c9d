// Helpers for the maps tests: temporary files, small generated images, a cost model with every
// source of feature reach, and pipeline settings on small synthetic scenes.
#pragma once

#include <mmp/core/random.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/feature_stack.hpp>
#include <mmp/maps/pipeline_settings.hpp>
#include <mmp/maps/synthetic_scene.hpp>

#include <opencv2/core.hpp>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <random>  // std::random_device: unique folder names only
#include <string>

namespace mmp::test {

/// A file path in a fresh temporary folder, removed with the object.
class TempDir {
 public:
  TempDir() {
    std::random_device device;
    path_ = std::filesystem::temp_directory_path() / ("mmp_test_" + std::to_string(device()) + std::to_string(device()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

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

/// A synthetic scene of size x size pixels with 3 roads and 30 building attempts.
inline RegionSpec scene(std::uint64_t seed, int size = 256) {
  RegionSpec r = RegionSpec::scene(seed);
  r.synthetic->rows = r.synthetic->cols = size;
  r.synthetic->roads = 3;
  r.synthetic->buildings = 30;
  return r;
}

/// Small synthetic scenes: two for training, two held out; follow_road, the batch learner on one thread.
inline PipelineSettings syntheticSettings() {
  PipelineSettings s;
  s.behaviour = Behaviour::make("follow_road", s.classes,
                                {{"Road", 1}, {"Land", 6}, {"Vegetation", 8},
                                 {"Water", std::numeric_limits<double>::infinity()}, {"Building", 40}},
                                "Road");
  s.train = {scene(1), scene(2)};
  s.holdout = {scene(3), scene(4)};
  s.features.cell_size = 4;
  s.features.blur_sigmas = {0, 8};
  s.features.texture_windows = {7};
  s.features.bins = 5;
  s.features.complements = false;
  s.demonstrations = {10, 100.0, 1};
  s.learner.kind = LearnerKind::Batch;
  s.learner.batch.lambda = 1e-4;
  s.learner.batch.stop.max_iterations = 60;
  s.learner.batch.steps = StepSchedule::constant(1.0);
  s.learner.batch.threads = 1;
  s.evaluation.pairs = 20;
  s.evaluation.min_separation_px = 100;
  s.classifier.iterations = 40;
  s.classifier.samples = 4000;
  return s;
}

}  // namespace mmp::test
