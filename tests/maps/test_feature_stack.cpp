#include "maps_support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/feature_stack.hpp>
#include <mmp/maps/synthetic_scene.hpp>
#include <mmp/core/objective.hpp>
#include <mmp/planning/loss.hpp>
#include <mmp/planning/path.hpp>
#include <mmp/planning/path_example.hpp>
#include <mmp/core/random.hpp>

#include <doctest/doctest.h>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

using namespace mmp;

namespace {

// A scaled value is stored as one byte, q / 255: within this of the exact value.
constexpr double kQuantum = 0.5 / 255.0 + 1e-6;

SyntheticScene smallScene(std::uint64_t seed) {
  SyntheticSceneParams p;
  p.rows = 96;
  p.cols = 128;
  p.seed = seed;
  return makeSyntheticScene(p);
}

int indexOf(const std::vector<std::string>& names, const std::string& name) {
  const auto it = std::find(names.begin(), names.end(), name);
  REQUIRE(it != names.end());
  return static_cast<int>(it - names.begin());
}

}  // namespace

TEST_CASE("the feature stack has the documented shape, names and range") {
  FeatureSettings settings;
  settings.cell_size = 4;
  settings.blur_sigmas = {0.0, 8.0};
  settings.texture_windows = {5, 9};
  const cv::Mat image = smallScene(1).image(cv::Rect(0, 0, 127, 94));  // trailing pixels are dropped
  const RawFeatures raw = computeRawFeatures(image, settings);
  CHECK(raw.rows == 23);
  CHECK(raw.cols == 31);
  const int per_scale = 3 + 4 + 3 + 1 + 2;
  REQUIRE(raw.features() == 2 * per_scale);
  CHECK(raw.names == rawFeatureNames(settings));
  CHECK(raw.names[0] == "rgb.r@0px");
  CHECK(raw.names[per_scale + 3] == "hsv.hue_x@8px");
  CHECK(raw.names.back() == "texture9@8px");
  CHECK(raw.values.size() == static_cast<std::size_t>(23 * 31 * raw.features()));

  const FeatureStack stack = FeatureStack::fit(settings, {&raw});
  const FeatureMap map = stack.map(raw);
  CHECK(map.rows() == 23);
  CHECK(map.cols() == 31);
  REQUIRE(map.features() == 1 + 2 * raw.features());
  CHECK(map.names() == stack.names());
  CHECK(map.names()[kBiasIndex] == "bias");
  CHECK(map.names()[1] == "rgb.r@0px");
  CHECK(map.names()[1 + raw.features()] == "1-rgb.r@0px");
  for (int s = 0; s < map.cells(); ++s) {
    const Eigen::VectorXf f = map.cellVector(s);
    REQUIRE(f[kBiasIndex] == 1.0f);
    for (int k = 1; k <= raw.features(); ++k) {
      REQUIRE(f[k] >= 0.0f);
      REQUIRE(f[k] <= 1.0f);
      REQUIRE(f[k] + f[k + raw.features()] == doctest::Approx(1.0f));
    }
  }
  // With quantile 0 every feature reaches both ends of [0, 1] on the image it was fitted on.
  FeatureSettings exact = settings;
  exact.scaling_quantile = 0.0;
  const FeatureMap full = FeatureStack::fit(exact, {&raw}).map(raw);
  for (int k = 1; k <= raw.features(); ++k) {
    float lo = 1.0f, hi = 0.0f;
    for (int s = 0; s < full.cells(); ++s) lo = std::min(lo, full.cellVector(s)[k]), hi = std::max(hi, full.cellVector(s)[k]);
    CAPTURE(full.names()[static_cast<std::size_t>(k)]);
    CHECK(lo == 0.0f);
    CHECK(hi == 1.0f);
  }
  settings.complements = false;
  CHECK(FeatureStack::fit(settings, {&raw}).map(raw).features() == 1 + raw.features());
}

TEST_CASE("a coded map gives the dense computation's features, costs and path features, in at most 64 bytes a cell") {
  // The shipped settings (configs/follow_road.yaml): 3 scales, every colour space, edges, one
  // texture window, 9 bins, a 6-class score layer; random images and random weights.
  FeatureSettings settings;
  settings.bins = 9;
  settings.complements = false;
  Random rng(11);
  for (int trial = 0; trial < 3; ++trial) {
    cv::Mat image(80 + 8 * trial, 100, CV_8UC3);
    cv::randu(image, cv::Scalar::all(0), cv::Scalar::all(256));
    cv::GaussianBlur(image, image, cv::Size(0, 0), 1.0 + trial);  // some spatial structure
    const RawFeatures raw = computeRawFeatures(image, settings);
    const FeatureStack base = FeatureStack::fit(settings, {&raw});
    const FeatureMap base_map = base.map(raw);
    Eigen::MatrixXd class_weights = Eigen::MatrixXd::Zero(6, base.features());
    for (Eigen::Index i = 0; i < class_weights.size(); ++i) class_weights.data()[i] = rng.normal();
    const FeatureStack stack =
        base.withClassScores({"a", "b", "c", "d", "e", "f"}, class_weights, {&base_map}, trial == 2 ? std::vector<double>{16.0} : std::vector<double>{});
    const FeatureMap coded = stack.map(raw);
    const FeatureMap dense = coded.dense();
    REQUIRE(coded.coded());
    REQUIRE_FALSE(dense.coded());
    CHECK(coded.features() == 1 + 36 * 9 + (trial == 2 ? 12 : 6) * 9);
    CHECK(coded.bytesPerCell() <= 64);
    CHECK(dense.bytesPerCell() == 4 * static_cast<std::size_t>(coded.features()));

    Eigen::VectorXd w(coded.features());
    for (Eigen::Index k = 0; k < w.size(); ++k) w[k] = rng.normal();
    std::vector<double> fast, slow;
    for (CostForm form : {CostForm::Linear, CostForm::Exponential}) {
      coded.costs(w, fast, form);
      dense.costs(w, slow, form);
      REQUIRE(fast.size() == slow.size());
      for (std::size_t s = 0; s < fast.size(); ++s) REQUIRE(fast[s] == doctest::Approx(slow[s]).epsilon(1e-12));
    }
    const CellScores scores(coded, w), dense_scores(dense, w);
    // Four cells at a time, from an odd start and with a tail: the cell-by-cell scores bit for bit.
    std::vector<double> batch(static_cast<std::size_t>(coded.cells()) - 3);
    scores.many(3, coded.cells() - 3, batch.data());
    for (std::size_t i = 0; i < batch.size(); ++i) REQUIRE(batch[i] == scores(static_cast<int>(i) + 3));
    for (int s = 0; s < coded.cells(); ++s) {
      const Eigen::VectorXf f = dense.cellVector(s);  // one feature at a time, as a tree reads them
      for (int k = 0; k < coded.features(); ++k) REQUIRE((coded.value(s, k) == f[k] && dense.value(s, k) == f[k]));
      REQUIRE(scores(s) >= scores.lower());
      REQUIRE(scores(s) <= scores.upper());
      REQUIRE(dense_scores(s) >= dense_scores.lower());
      REQUIRE(dense_scores(s) <= dense_scores.upper());
    }
    std::vector<int> path;  // a staircase: straight and diagonal steps
    for (int i = 0; i < 15; ++i) path.push_back((i / 2) * coded.cols() + i);
    Eigen::VectorXd f_coded, f_dense;
    pathFeatures(path, coded, f_coded);
    pathFeatures(path, dense, f_dense);
    CHECK((f_coded - f_dense).cwiseAbs().maxCoeff() < 1e-9);
    CHECK(f_coded.dot(w) == doctest::Approx(f_dense.dot(w)).epsilon(1e-12));
  }
}

TEST_CASE("raw features measure what their names say") {
  FeatureSettings settings;
  settings.blur_sigmas = {0.0};
  settings.cell_size = 2;
  cv::Mat image(16, 16, CV_8UC3, cv::Scalar(30, 90, 200));  // B, G, R: an orange-red
  image(cv::Rect(8, 0, 8, 16)).setTo(cv::Scalar(30, 90, 200) + cv::Scalar(0, 0, 40));
  const RawFeatures raw = computeRawFeatures(image, settings);
  const int n = raw.features();
  auto value = [&](int r, int c, const std::string& name) {
    return raw.values[static_cast<std::size_t>((r * raw.cols + c) * n + indexOf(raw.names, name))];
  };
  CHECK(value(0, 0, "rgb.r@0px") == doctest::Approx(200.0 / 255.0).epsilon(1e-5));
  CHECK(value(0, 0, "rgb.b@0px") == doctest::Approx(30.0 / 255.0).epsilon(1e-5));
  CHECK(value(0, 7, "rgb.r@0px") == doctest::Approx(240.0 / 255.0).epsilon(1e-5));
  CHECK(value(0, 0, "hsv.s@0px") == doctest::Approx(1.0 - 30.0 / 200.0).epsilon(1e-4));
  CHECK(value(0, 0, "hsv.hue_x@0px") > 0.5f);  // hue near 21 degrees: mostly along x
  CHECK(value(0, 0, "edges@0px") == doctest::Approx(0.0).epsilon(1e-6));
  CHECK(value(4, 3, "edges@0px") > 0.01f);   // the cells at the step (cols 3 and 4 touch x = 8)
  CHECK(value(4, 4, "edges@0px") > 0.01f);
  CHECK(value(4, 0, "texture7@0px") == doctest::Approx(0.0).epsilon(1e-4));
  CHECK(value(4, 3, "texture7@0px") > 0.01f);
  CHECK(value(0, 7, "lab.L@0px") > value(0, 0, "lab.L@0px") + 1.0f);  // the right half is lighter
  CHECK_THROWS_AS(computeRawFeatures(cv::Mat(1, 1, CV_8UC3), settings), InvalidArgument);   // no whole cell
  CHECK_THROWS_AS(computeRawFeatures(cv::Mat(8, 8, CV_8UC1), settings), InvalidArgument);   // not BGR
  settings.texture_windows = {4};
  CHECK_THROWS_AS(computeRawFeatures(image, settings), InvalidArgument);
}

TEST_CASE("a held-out image gets the training scaling, also through a saved model") {
  FeatureSettings settings;
  settings.blur_sigmas = {0.0, 6.0};
  const SyntheticScene train = smallScene(1), holdout = smallScene(2);
  const RawFeatures train_raw = computeRawFeatures(train.image, settings);
  const RawFeatures holdout_raw = computeRawFeatures(holdout.image, settings);
  const FeatureStack stack = FeatureStack::fit(settings, {&train_raw});
  const FeatureMap map = stack.map(holdout_raw);
  const int n = holdout_raw.features();
  bool clamped = false;
  for (int s = 0; s < map.cells(); ++s) {
    for (int k = 0; k < n; ++k) {
      const double lo = stack.scaling().lower[static_cast<std::size_t>(k)], hi = stack.scaling().upper[static_cast<std::size_t>(k)];
      const double v = holdout_raw.values[static_cast<std::size_t>(s) * n + k];
      const double expected = hi > lo ? std::clamp((v - lo) / (hi - lo), 0.0, 1.0) : 0.0;
      clamped = clamped || expected == 0.0 || expected == 1.0;
      REQUIRE(std::abs(map.cellVector(s)[1 + k] - expected) <= kQuantum);
    }
  }
  CHECK(clamped);
  // Fitting on the holdout itself would give another map: the scaling really is the training one.
  const FeatureMap own = FeatureStack::fit(settings, {&holdout_raw}).map(holdout_raw);
  CHECK(own.codes() != map.codes());

  Model model;
  model.weights = Eigen::VectorXd::Ones(stack.features());
  stack.store(model);
  test::TempDir dir;
  saveModel(dir.file("m.mmp"), model);
  const Model loaded = loadModel(dir.file("m.mmp"));
  const FeatureStack again = FeatureStack::fromModel(loaded);
  CHECK(again.names() == stack.names());
  CHECK(again.map(holdout.image).codes() == map.codes());

  Model broken = model;
  broken.settings.erase("features.blur_sigmas");
  CHECK_THROWS_WITH_AS(FeatureStack::fromModel(broken), doctest::Contains("features.blur_sigmas"), DataError);
  broken = model;
  broken.settings["features.complements"] = "0";
  CHECK_THROWS_AS(FeatureStack::fromModel(broken), DataError);  // names and weights no longer match
  broken = model;
  broken.arrays["features.lower"].pop_back();
  CHECK_THROWS_AS(FeatureStack::fromModel(broken), DataError);
}

namespace {

// A binned stack (cells of 4 px, no blur, 3 bins) fitted on one scene, the base of a class-score layer.
struct ClassLayerBase {
  FeatureSettings settings;
  RawFeatures train_raw, holdout_raw;
  FeatureStack base;
  FeatureMap base_map;
  int red0 = 0;  ///< the feature "rgb.r@0px#0"

  ClassLayerBase() {
    settings.cell_size = 4;
    settings.blur_sigmas = {0.0};
    settings.complements = false;
    settings.bins = 3;
    train_raw = computeRawFeatures(smallScene(1).image, settings);
    holdout_raw = computeRawFeatures(smallScene(2).image, settings);
    base = FeatureStack::fit(settings, {&train_raw});
    base_map = base.map(train_raw);
    red0 = indexOf(base.names(), "rgb.r@0px#0");
  }
};

}  // namespace

TEST_CASE_FIXTURE(ClassLayerBase, "the class-score layer appends binned class margins, and a saved model keeps it") {
  CHECK(base.classScores() == nullptr);

  // Three classes: "red" scores the lowest red bin, "bias" a constant 0.5, "zero" nothing.
  Eigen::MatrixXd weights = Eigen::MatrixXd::Zero(3, base.features());
  weights(0, red0) = 1.0;
  weights(1, kBiasIndex) = 0.5;
  const FeatureStack stack = base.withClassScores({"red", "bias", "zero"}, weights, {&base_map});
  REQUIRE(stack.classScores() != nullptr);
  REQUIRE(stack.features() == base.features() + 3 * 3);
  CHECK(stack.names()[static_cast<std::size_t>(base.features())] == "margin(red)#0");
  CHECK(stack.names().back() == "margin(zero)#2");

  const FeatureMap map = stack.map(holdout_raw), plain = base.map(holdout_raw);
  const FeatureScaling& scaling = stack.classScores()->scaling;
  for (int s = 0; s < map.cells(); ++s) {
    const Eigen::VectorXf f = map.cellVector(s);
    REQUIRE(f.head(base.features()) == plain.cellVector(s));  // the base features are unchanged
    const double red = plain.cellVector(s)[red0];
    const double margins[3] = {red - 0.5, 0.5 - red, -std::max(red, 0.5)};
    for (int c = 0; c < 3; ++c) {
      const double lo = scaling.lower[static_cast<std::size_t>(c)], hi = scaling.upper[static_cast<std::size_t>(c)];
      const double v = hi > lo ? std::clamp((margins[c] - lo) / (hi - lo), 0.0, 1.0) : 0.0;
      const float* bins = f.data() + base.features() + 3 * c;
      REQUIRE(bins[0] + bins[1] + bins[2] == doctest::Approx(1.0));
      REQUIRE(std::abs(0.5 * bins[1] + bins[2] - v) <= kQuantum);  // the bins' centre of mass is v
    }
  }

  Model model;
  model.weights = Eigen::VectorXd::Ones(stack.features());
  stack.store(model);
  const FeatureStack again = FeatureStack::fromModel(model);
  REQUIRE(again.classScores() != nullptr);
  CHECK(again.classScores()->classes == std::vector<std::string>{"red", "bias", "zero"});
  CHECK(again.map(holdout_raw).codes() == map.codes());
  Model broken = model;
  broken.arrays.erase("features.class_upper");
  CHECK_THROWS_WITH_AS(FeatureStack::fromModel(broken), doctest::Contains("features.class_upper"), DataError);
  broken = model;
  broken.arrays["features.class_weights"].pop_back();
  CHECK_THROWS_WITH_AS(FeatureStack::fromModel(broken), doctest::Contains("class-score layer"), DataError);

  CHECK_THROWS_AS(stack.withClassScores({"a", "b", "c"}, weights, {&base_map}), InvalidArgument);  // already has one
  CHECK_THROWS_AS(base.withClassScores({"a", "b"}, weights, {&base_map}), InvalidArgument);        // 3 rows, 2 names
  CHECK_THROWS_AS(base.withClassScores({"a", "b", "c"}, weights.leftCols(5), {&base_map}), InvalidArgument);
  CHECK_THROWS_AS(base.withClassScores({"a", "b\nc", "d"}, weights, {&base_map}), InvalidArgument);
}

TEST_CASE_FIXTURE(ClassLayerBase, "class context features are the margins' maxima over a disc, reapplied from the model") {
  Eigen::MatrixXd weights = Eigen::MatrixXd::Zero(2, base.features());
  weights(0, red0) = 1.0;  // margin(red) = red bin 0, margin(none) = -red bin 0
  const FeatureStack plain = base.withClassScores({"red", "none"}, weights, {&base_map});
  const FeatureStack stack = base.withClassScores({"red", "none"}, weights, {&base_map}, {8.0});
  REQUIRE(stack.features() == plain.features() + 2 * 3);
  CHECK(stack.names()[static_cast<std::size_t>(plain.features())] == "margin(red)max8px#0");
  CHECK(stack.names().back() == "margin(none)max8px#2");

  // Cell (r, c)'s context value of "red" is the largest red bin 0 over the cells within 2 cells (8 px / 4).
  const FeatureMap map = stack.map(holdout_raw), base_holdout = base.map(holdout_raw);
  REQUIRE(map.cellVector(0).head(plain.features()) == plain.map(holdout_raw).cellVector(0));
  const FeatureScaling& scaling = stack.classScores()->scaling;
  REQUIRE(scaling.lower.size() == 4);
  int checked = 0;
  for (int r = 0; r < map.rows(); r += 5) {
    for (int c = 0; c < map.cols(); c += 3) {
      double most_red = -1.0, least_red = 2.0;
      for (int dr = -2; dr <= 2; ++dr) {
        for (int dc = -2; dc <= 2; ++dc) {
          const int rr = r + dr, cc = c + dc;
          if (dr * dr + dc * dc > 4 || rr < 0 || cc < 0 || rr >= map.rows() || cc >= map.cols()) continue;
          const double red = base_holdout.cellVector(rr * map.cols() + cc)[red0];
          most_red = std::max(most_red, red);
          least_red = std::min(least_red, red);
        }
      }
      const double raw_values[2] = {most_red, -least_red};
      for (int k = 0; k < 2; ++k) {
        const double lo = scaling.lower[static_cast<std::size_t>(2 + k)], hi = scaling.upper[static_cast<std::size_t>(2 + k)];
        const double v = hi > lo ? std::clamp((raw_values[k] - lo) / (hi - lo), 0.0, 1.0) : 0.0;
        const Eigen::VectorXf f = map.cellVector(r * map.cols() + c);
        const float* bins = f.data() + plain.features() + 3 * k;
        REQUIRE(std::abs(0.5 * bins[1] + bins[2] - v) <= kQuantum);
        ++checked;
      }
    }
  }
  CHECK(checked > 100);

  Model model;
  model.weights = Eigen::VectorXd::Ones(stack.features());
  stack.store(model);
  const FeatureStack again = FeatureStack::fromModel(model);
  CHECK(again.classScores()->context_px == std::vector<double>{8.0});
  CHECK(again.map(holdout_raw).codes() == map.codes());
  Model broken = model;
  broken.settings["features.class_context_px"] = "8,16";  // more radii than scaling entries
  CHECK_THROWS_WITH_AS(FeatureStack::fromModel(broken), doctest::Contains("class-score layer"), DataError);
  CHECK_THROWS_WITH_AS(base.withClassScores({"red", "none"}, weights, {&base_map}, {2.0}),
                       doctest::Contains("at least the cell size"), InvalidArgument);
}

TEST_CASE("feature settings are validated") {
  FeatureSettings s;
  CHECK_NOTHROW(validate(s));
  s.cell_size = 0;
  CHECK_THROWS_WITH_AS(validate(s), doctest::Contains("cell_size"), InvalidArgument);
  s = {};
  s.blur_sigmas = {};
  CHECK_THROWS_AS(validate(s), InvalidArgument);
  s = {};
  s.blur_sigmas = {-1.0};
  CHECK_THROWS_AS(validate(s), InvalidArgument);
  s = {};
  s.rgb = s.hsv = s.lab = false;
  CHECK_THROWS_AS(validate(s), InvalidArgument);
  s = {};
  s.scaling_quantile = 0.5;
  CHECK_THROWS_AS(validate(s), InvalidArgument);
}

TEST_CASE("a stacked feature map works through the path oracle under the positive-cost projection") {
  FeatureSettings settings;
  settings.blur_sigmas = {0.0, 8.0};
  settings.bins = 5;
  settings.complements = false;
  const RawFeatures raw = computeRawFeatures(smallScene(3).image, settings);
  const FeatureStack stack = FeatureStack::fit(settings, {&raw});
  auto map = std::make_shared<const FeatureMap>(stack.map(raw));
  CHECK(map->features() == 1 + raw.features() * 5);
  for (int s = 0; s < map->cells(); ++s) {
    double sum = 0.0;
    for (int k = 1; k <= 5; ++k) sum += map->cellVector(s)[k];  // the bins of one raw feature sum to 1
    REQUIRE(sum == doctest::Approx(1.0));
  }
  const int cols = map->cols();
  std::vector<int> demo;
  for (int c = 2; c < cols - 2; ++c) demo.push_back(5 * cols + c);
  PathExample::Params params;
  params.loss = {LossShape::Linear, 3.0, 1.0};
  const PathExample example(map, demo, params);
  const ProjectionPtr positive = positiveCostProjection(map->features(), kBiasIndex, 1.0, 0.05);
  Eigen::VectorXd w = Eigen::VectorXd::Constant(map->features(), -1.0);
  positive->project(w);  // the bias floor, every other weight 0: uniform costs
  OracleResult result;
  example.solve(w, 1.0, result);
  CHECK(result.loss > 0.0);  // loss augmentation pulls the path away from the demonstration
  CHECK(hinge(result, w) > 0.0);
  example.solve(w, 0.0, result);
  CHECK(result.output == demo);  // with uniform costs the straight demonstration is the plan
}
