// Per-image normalisation (FeatureSettings::normalise_per_image, `features.normalise: per_image`):
// each image's raw features standardised by its own statistics, the same for a tiled and a whole image,
// saved in the model, and blind to a constant shift of the image's colours.
#include "maps_support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/feature_stack.hpp>

#include <doctest/doctest.h>
#include <opencv2/imgcodecs.hpp>

#include <cmath>

using namespace mmp;

namespace {

FeatureSettings normalised() {
  FeatureSettings s;
  s.bins = 9;
  s.complements = false;
  s.normalise_per_image = true;
  return s;
}

}  // namespace

TEST_CASE("per-image statistics are the same for a tiled and a whole image, and so are the costs") {
  const cv::Mat image = test::syntheticImage(200, 260, 4);
  const FeatureSettings s = normalised();
  const CostModel model = test::fittedCostModel(image, s, 3);
  ImageFeatureStatistics whole;
  whole.add(computeRawFeatures(image, s));
  std::vector<double> mean, sd;
  whole.meanAndSpread(mean, sd);
  REQUIRE(whole.cells() == 50 * 65);
  for (int size : {24, 31, 64}) {
    for (int threads : {1, 2}) {
      CAPTURE(size);
      CAPTURE(threads);
      const ImageFeatureStatistics tiled = model.features().statistics(image, size, threads);
      std::vector<double> tiled_mean, tiled_sd;
      tiled.meanAndSpread(tiled_mean, tiled_sd);
      CHECK(tiled.cells() == whole.cells());
      CHECK(tiled_mean == mean);  // bit for bit: exact integer sums, rounded
      CHECK(tiled_sd == sd);
    }
  }
  // The standardised features have mean 0 and spread 1 on the image.
  RawFeatures raw = computeRawFeatures(image, s);
  normaliseImageFeatures(raw, s);
  ImageFeatureStatistics after;
  after.add(raw);
  std::vector<double> m0, s1;
  after.meanAndSpread(m0, s1);
  for (std::size_t k = 0; k < m0.size(); ++k) {
    CHECK(std::fabs(m0[k]) < 1e-2);  // the rounding of the statistics
    if (sd[k] != 1.0) CHECK(std::fabs(s1[k] - 1.0) < 1e-3);
  }

  // Tiled cost maps use the whole image's statistics: the untiled costs at every tile size, but for a
  // rare cell (a tile's raw features may differ from the whole image's in their last float bits, and
  // after standardisation a value within that of a one-byte code boundary flips: 1 cell of 3250 here).
  const CostGrid untiled = model.costs(model.features().map(image));
  for (int size : {24, 40}) {
    TileSettings tiles;
    tiles.tile_cells = size;
    tiles.threads = 2;
    const std::vector<double> t = model.costs(image, tiles).costs;
    int differ = 0;
    for (std::size_t i = 0; i < t.size(); ++i) differ += t[i] != untiled.costs[i] ? 1 : 0;
    CAPTURE(differ);
    CHECK(differ <= static_cast<int>(t.size()) / 1000);  // see below
  }
  CHECK(model.costs(image).costs == untiled.costs);
  // A piece of an image without the whole image's statistics is refused, not standardised by its own.
  CHECK_THROWS_WITH_AS(model.features().map(image(cv::Rect(0, 0, 64, 64)), cv::Point(0, 0)),
                       doctest::Contains("statistics"), InvalidArgument);
  std::vector<double> band(static_cast<std::size_t>(10) * 65);
  CHECK_THROWS_WITH_AS(model.bandCosts(image, 0, 50, 0, 10, TileSettings{}, band.data()),
                       doctest::Contains("per_image"), InvalidArgument);
}

TEST_CASE("a model with per-image normalisation saves, loads and gives the same costs, and one without loads as before") {
  const cv::Mat image = test::syntheticImage(128, 160, 6);
  const CostModel model = test::fittedCostModel(image, normalised(), 7);
  test::TempDir dir;
  model.save(dir.file("normalised.mmp"));
  const CostModel loaded = CostModel::load(dir.file("normalised.mmp"));
  CHECK(loaded.features().settings().normalise_per_image);
  CHECK(loaded.costs(image).costs == model.costs(image).costs);
  Model file = loadModel(dir.file("normalised.mmp"));
  CHECK(file.settings.at("features.normalise") == "per_image");
  file.settings["features.normalise"] = "yes";
  CHECK_THROWS_WITH_AS(FeatureStack::fromModel(file), doctest::Contains("features.normalise"), DataError);

  FeatureSettings plain = normalised();
  plain.normalise_per_image = false;
  const CostModel old = test::fittedCostModel(image, plain, 7);
  old.save(dir.file("plain.mmp"));
  CHECK(loadModel(dir.file("plain.mmp")).settings.count("features.normalise") == 0);  // files as before
  const CostModel reloaded = CostModel::load(dir.file("plain.mmp"));
  CHECK_FALSE(reloaded.features().settings().normalise_per_image);
  CHECK(reloaded.costs(image).costs == old.costs(image).costs);
  // The option changes the costs on another image (on the image it was fitted on, standardising
  // before the scaling fitted there is the same affine map, so the costs agree there).
  const cv::Mat other = test::syntheticImage(128, 160, 9);
  CHECK(model.costs(other).costs != old.costs(other).costs);
}

TEST_CASE("with per-image normalisation a constant shift of an image's colours leaves its costs") {
  // Colour features linear in the pixels (rgb, edges, texture): a shift of every channel moves each
  // feature by a constant, which the image's own mean takes away.  (HSV and Lab are not linear in the
  // pixels, so a shift changes them beyond their mean: they are left out here.)
  cv::Mat image = test::syntheticImage(160, 200, 8);
  image.convertTo(image, CV_8UC3, 0.6, 40.0);  // within [40, 193]: a shift of 30 does not saturate
  cv::Mat shifted;
  image.convertTo(shifted, CV_8UC3, 1.0, 30.0);
  FeatureSettings s = normalised();
  s.hsv = s.lab = false;
  FeatureSettings plain = s;
  plain.normalise_per_image = false;
  const CostModel on = test::fittedCostModel(image, s, 11), off = test::fittedCostModel(image, plain, 11);
  // The mean relative change of the cells' costs under the shift.
  auto change = [&](const CostModel& model) {
    const std::vector<double> a = model.costs(image).costs, b = model.costs(shifted).costs;
    REQUIRE(a.size() == b.size());
    double sum = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) sum += std::fabs(a[i] - b[i]) / a[i];
    return sum / static_cast<double>(a.size());
  };
  // Rounding (float sums of shifted values; one-byte codes of values within rounding of a code
  // boundary flip) leaves some cells' costs a code step apart: small against what the shift does
  // without the option.
  const double with = change(on), without = change(off);
  CAPTURE(with);
  CAPTURE(without);
  CHECK(with < 0.01);
  CHECK(without > 0.1);
  CHECK(with < 0.05 * without);
}

TEST_CASE("a streamed cost map of a per-image model takes the whole image's statistics in a first pass") {
  const cv::Mat image = test::syntheticImage(230, 190, 4);
  const CostModel model = test::fittedCostModel(image, normalised(), 5);
  test::TempDir dir;
  REQUIRE(cv::imwrite(dir.file("scene.png"), image));
  TileSettings tiles;
  tiles.tile_cells = 17;  // four bands, each read with its halo
  ImageRows first(dir.file("scene.png"));
  const ImageFeatureStatistics streamed = featureStatistics(model, first, tiles);
  std::vector<double> mean, sd, whole_mean, whole_sd;
  streamed.meanAndSpread(mean, sd);
  model.features().statistics(image, 64).meanAndSpread(whole_mean, whole_sd);
  CHECK(mean == whole_mean);
  CHECK(sd == whole_sd);
  ImageRows rows(dir.file("scene.png"));
  CHECK_THROWS_WITH_AS(writeCostRaster(model, rows, dir.file("none.tiff"), tiles), doctest::Contains("per_image"),
                       InvalidArgument);
  ImageRows again(dir.file("scene.png"));
  writeCostRaster(model, again, dir.file("costs.tiff"), tiles, {}, nullptr, &streamed);
  const cv::Mat tiff = cv::imread(dir.file("costs.tiff"), cv::IMREAD_UNCHANGED);
  const CostGrid grid = model.costs(image);
  REQUIRE(tiff.type() == CV_32FC1);
  REQUIRE(tiff.rows == grid.rows);
  REQUIRE(tiff.cols == grid.cols);
  int differ = 0;
  for (int r = 0; r < grid.rows; ++r) {
    for (int c = 0; c < grid.cols; ++c) {
      differ += tiff.at<float>(r, c) != static_cast<float>(grid.costs[static_cast<std::size_t>(r) * grid.cols + c]) ? 1 : 0;
    }
  }
  CHECK(differ <= grid.rows * grid.cols / 1000);  // code-boundary cells, as for tiles
}
