// Region features (FeatureSettings::region_window): the statistics of each cell's unsupervised
// segment, the same for a tiled and a whole image, bit for bit from run to run, saved in the model.
#include "maps_support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/feature_stack.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

using namespace mmp;

namespace {

FeatureSettings regionSettings() {
  FeatureSettings s;
  s.bins = 9;
  s.complements = false;
  s.region_window = 16;
  s.region_size = 4;
  s.region_threshold = 100.0;
  return s;
}

int indexOf(const std::vector<std::string>& names, const std::string& name) {
  const auto it = std::find(names.begin(), names.end(), name);
  REQUIRE(it != names.end());
  return static_cast<int>(it - names.begin());
}

}  // namespace

TEST_CASE("region features follow the raw features, named, and measure their segments") {
  const cv::Mat image = test::syntheticImage(200, 260, 4);
  const FeatureSettings s = regionSettings();
  FeatureSettings plain = s;
  plain.region_window = 0;
  const RawFeatures raw = computeRawFeatures(image, s), without = computeRawFeatures(image, plain);
  const std::vector<std::string> region = regionFeatureNames(s);
  REQUIRE(region.size() == 9);
  REQUIRE(raw.features() == without.features() + 9);
  CHECK(std::equal(without.names.begin(), without.names.end(), raw.names.begin()));
  CHECK(std::equal(region.begin(), region.end(), raw.names.begin() + without.features()));
  CHECK(regionFeatureNames(plain).empty());
  const int n = raw.features(), m = without.features();
  const int size = indexOf(raw.names, "region.size"), elongation = indexOf(raw.names, "region.elongation");
  const int L = indexOf(raw.names, "region.L");
  double smallest = 1e9, largest = 0.0, least_elongation = 1.0, most_elongation = 0.0;
  for (int cell = 0; cell < raw.rows * raw.cols; ++cell) {
    const float* v = raw.values.data() + static_cast<std::size_t>(cell) * n;
    // The base features are untouched by the option.
    REQUIRE(std::equal(v, v + m, without.values.data() + static_cast<std::size_t>(cell) * m));
    smallest = std::min(smallest, static_cast<double>(v[size]));
    largest = std::max(largest, static_cast<double>(v[size]));
    least_elongation = std::min(least_elongation, static_cast<double>(v[elongation]));
    most_elongation = std::max(most_elongation, static_cast<double>(v[elongation]));
    REQUIRE(v[L] >= 0.0f);
    REQUIRE(v[L] <= 100.0f);
  }
  CHECK(smallest >= 0.0);
  CHECK(largest <= std::log(16.0 * 16.0) + 1e-6);  // no segment outgrows its window
  CHECK(largest > smallest);                     // segments of different sizes
  CHECK(least_elongation >= 0.0);
  CHECK(most_elongation <= 1.0);
  CHECK(most_elongation > least_elongation);

  // A segment is one value: two cells of one segment (same size, colour and shape) agree on all nine.
  // And a uniform image is one segment per window: the window's size, no contrast.
  const cv::Mat flat(128, 128, CV_8UC3, cv::Scalar(40, 120, 200));
  const RawFeatures uniform = computeRawFeatures(flat, s);
  const int contrast = indexOf(uniform.names, "region.L_contrast");
  for (int cell = 0; cell < uniform.rows * uniform.cols; ++cell) {
    const float* v = uniform.values.data() + static_cast<std::size_t>(cell) * uniform.features();
    REQUIRE(v[indexOf(uniform.names, "region.size")] == doctest::Approx(std::log(256.0)));
    REQUIRE(v[contrast] == 0.0f);
    REQUIRE(v[indexOf(uniform.names, "region.elongation")] == doctest::Approx(0.0).epsilon(1e-6));
  }
}

TEST_CASE("region features of a piece with its cell origin and a halo of the reach are the whole image's, bit for bit") {
  const cv::Mat image = test::syntheticImage(240, 300, 9);
  const FeatureSettings s = regionSettings();
  const RawFeatures whole = computeRawFeatures(image, s);
  const int k = s.cell_size, n = whole.features();
  const FeatureStack stack = FeatureStack::fit(s, {&whole});
  const int reach = stack.reachCells();
  CHECK(reach == std::max(1 + 12, s.region_window - 1));
  // The core cells [22, 34) x [27, 41) (across a window boundary at 32) from a piece with `halo` cells around them.
  auto differences = [&](int halo, bool with_origin) {
    const int r0 = 22 - halo, c0 = 27 - halo, rows = 12 + 2 * halo, cols = 14 + 2 * halo;
    const RawFeatures piece = computeRawFeatures(image(cv::Rect(c0 * k, r0 * k, cols * k, rows * k)), s,
                                                 with_origin ? cv::Point(c0, r0) : cv::Point(0, 0));
    int different = 0;
    for (int r = 22; r < 34; ++r) {
      for (int c = 27; c < 41; ++c) {
        for (int f = 0; f < n; ++f) {
          different += piece.values[static_cast<std::size_t>((r - r0) * piece.cols + (c - c0)) * n + f] !=
                       whole.values[static_cast<std::size_t>(r * whole.cols + c) * n + f];
        }
      }
    }
    return different;
  };
  CHECK(differences(reach, true) == 0);
  CHECK(differences(reach + 5, true) == 0);
  CHECK(differences(reach, false) > 0);  // the windows follow the whole image's grid, not the piece's

  // Cost maps: every tile size and thread count gives the untiled costs, seams included.
  const CostModel model = test::fittedCostModel(image, s, 3);
  const CostGrid untiled = model.costs(model.features().map(image));
  for (int threads : {1, 2}) {
    for (int size : {16, 23, 40, 1000}) {
      TileSettings tiles;
      tiles.tile_cells = size;
      tiles.threads = threads;
      CAPTURE(size);
      CAPTURE(threads);
      CHECK(model.costs(image, tiles).costs == untiled.costs);
    }
  }
}

TEST_CASE("region features are reproducible bit for bit") {
  const cv::Mat image = test::syntheticImage(160, 200, 12);
  const FeatureSettings s = regionSettings();
  const RawFeatures a = computeRawFeatures(image, s), b = computeRawFeatures(image.clone(), s);
  CHECK(a.values == b.values);
  const CostModel model = test::fittedCostModel(image, s, 5);
  TileSettings tiles;
  tiles.tile_cells = 24;
  tiles.threads = 2;
  CHECK(model.costs(image, tiles).costs == model.costs(image, tiles).costs);
}

TEST_CASE("region settings outside their range are refused by name") {
  FeatureSettings s = regionSettings();
  CHECK_NOTHROW(validate(s));
  s.region_window = 7;
  CHECK_THROWS_WITH_AS(validate(s), doctest::Contains("features.region_window"), InvalidArgument);
  s.region_window = 257;
  CHECK_THROWS_WITH_AS(validate(s), doctest::Contains("features.region_window"), InvalidArgument);
  s = regionSettings();
  s.region_size = 0;
  CHECK_THROWS_WITH_AS(validate(s), doctest::Contains("features.region_size"), InvalidArgument);
  s.region_size = 16 * 16 + 1;
  CHECK_THROWS_WITH_AS(validate(s), doctest::Contains("features.region_size"), InvalidArgument);
  s = regionSettings();
  s.region_threshold = 0.0;
  CHECK_THROWS_WITH_AS(validate(s), doctest::Contains("features.region_threshold"), InvalidArgument);
  s.region_threshold = std::nan("");
  CHECK_THROWS_WITH_AS(validate(s), doctest::Contains("features.region_threshold"), InvalidArgument);
  // Off, the other region settings are not read.
  s.region_window = 0;
  CHECK_NOTHROW(validate(s));
  // A piece's origin cannot lie before the image.
  s = regionSettings();
  CHECK_THROWS_AS(computeRawFeatures(test::syntheticImage(64, 64, 1), s, cv::Point(-1, 0)), InvalidArgument);
}

TEST_CASE("region settings are saved in the model, and a model without them loads and costs as before") {
  const cv::Mat image = test::syntheticImage(128, 160, 6);
  const FeatureSettings s = regionSettings();
  const CostModel model = test::fittedCostModel(image, s, 7);
  test::TempDir dir;
  model.save(dir.file("regions.mmp"));
  const CostModel loaded = CostModel::load(dir.file("regions.mmp"));
  CHECK(loaded.features().settings().region_window == 16);
  CHECK(loaded.features().settings().region_size == 4);
  CHECK(loaded.features().settings().region_threshold == 100.0);
  CHECK(loaded.costs(image).costs == model.costs(image).costs);
  Model file = loadModel(dir.file("regions.mmp"));
  file.settings["features.region_window"] = "5";
  CHECK_THROWS_WITH_AS(FeatureStack::fromModel(file), doctest::Contains("region_window"), DataError);

  // Without regions no region key is written (files as before the option), and such a file loads
  // with them off and gives the same costs.
  FeatureSettings plain = s;
  plain.region_window = 0;
  const CostModel old = test::fittedCostModel(image, plain, 7);
  old.save(dir.file("plain.mmp"));
  const Model stored = loadModel(dir.file("plain.mmp"));
  for (const auto& [key, value] : stored.settings) CHECK(key.find("region") == std::string::npos);
  const CostModel reloaded = CostModel::load(dir.file("plain.mmp"));
  CHECK(reloaded.features().settings().region_window == 0);
  CHECK(reloaded.costs(image).costs == old.costs(image).costs);
}
