#include "maps_support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/random.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/float_tiff.hpp>
#include <mmp/maps/imagery.hpp>
#include <mmp/maps/synthetic_scene.hpp>

#include <doctest/doctest.h>
#include <opencv2/imgcodecs.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

using namespace mmp;

TEST_CASE("tiled cost maps equal the untiled computation at every seam, on any number of threads") {
  const cv::Mat image = test::syntheticImage(250, 330, 3);
  const CostModel model = test::randomCostModel(image, 5);
  const int reach = model.features().reachCells();
  CHECK(reach == 1 + 12 + 4);  // 7 px window in 4 px cells, 12 px blur = 3 cells (kernel radius 12), 16 px disc

  const CostGrid whole = model.costs(model.features().map(image));
  REQUIRE(whole.rows == 62);
  REQUIRE(whole.cols == 82);
  TileSettings one;
  one.tile_cells = 1000;
  CHECK(model.costs(image, one).costs == whole.costs);
  for (int threads : {1, 2}) {
    for (int size : {17, 25, 40}) {  // tiles smaller than, about and larger than the halo
      TileSettings tiles;
      tiles.tile_cells = size;
      tiles.threads = threads;
      CAPTURE(size);
      const CostGrid tiled = model.costs(image, tiles);
      REQUIRE(tiled.rows == whole.rows);
      REQUIRE(tiled.cols == whole.cols);
      CHECK(tiled.costs == whole.costs);  // bit for bit, seams included
    }
  }
  // A band of rows, from just the pixel rows it needs, gives the same rows.
  const int first = 20, count = 15, k = 4;
  const int top = (first - reach) * k, bottom = (first + count + reach) * k;
  std::vector<double> band(static_cast<std::size_t>(count) * whole.cols);
  TileSettings tiles;
  tiles.tile_cells = 30;
  model.bandCosts(image.rowRange(top, bottom), top, whole.rows, first, count, tiles, band.data());
  CHECK(std::equal(band.begin(), band.end(), whole.costs.begin() + first * whole.cols));
}

TEST_CASE("the features' reach is exactly the halo a tile needs") {
  // Raw features are floats; the costs' byte codes hide small differences, so the reach is checked here.
  const cv::Mat image = test::syntheticImage(200, 240, 8);
  FeatureSettings settings;  // blurs up to 12 px, a 7 px texture window
  const RawFeatures whole = computeRawFeatures(image, settings);
  const FeatureScaling scaling = FeatureScaling::fit({&whole}, 0.0);
  const int reach = FeatureStack(settings, scaling).reachCells(), k = settings.cell_size, n = whole.features();
  REQUIRE(reach == 1 + 12);
  // The core cells [20, 30) x [25, 35) from a tile with `halo` cells around them.
  auto differences = [&](int halo) {
    const int r0 = 20 - halo, c0 = 25 - halo, side = 10 + 2 * halo;
    const RawFeatures tile = computeRawFeatures(image(cv::Rect(c0 * k, r0 * k, side * k, side * k)), settings);
    int different = 0;
    for (int r = 20; r < 30; ++r) {
      for (int c = 25; c < 35; ++c) {
        for (int f = 0; f < n; ++f) {
          different += tile.values[((r - r0) * tile.cols + (c - c0)) * n + f] != whole.values[(r * whole.cols + c) * n + f];
        }
      }
    }
    return different;
  };
  CHECK(differences(reach) == 0);
  CHECK(differences(reach + 3) == 0);
  CHECK(differences(reach - 1) > 0);  // one cell less and the blur's outer taps read reflected pixels
}

TEST_CASE("tile settings that cannot give untiled costs are refused, naming the least that works") {
  const cv::Mat image = test::syntheticImage(120, 120, SyntheticSceneParams{}.seed);
  const CostModel model = test::randomCostModel(image, 1);
  TileSettings tiles;
  tiles.tile_cells = 0;
  CHECK_THROWS_WITH_AS(model.costs(image, tiles), doctest::Contains("tile_cells = 0 is too small"), InvalidArgument);
  CHECK_THROWS_WITH_AS(model.costs(image, tiles), doctest::Contains("use at least 17"), InvalidArgument);
  tiles.tile_cells = 64;
  tiles.overlap_cells = 5;
  CHECK_THROWS_WITH_AS(model.costs(image, tiles), doctest::Contains("overlap_cells = 5 is smaller than the model's features reach; use at least 17"),
                       InvalidArgument);
  tiles.overlap_cells = 20;  // more than needed: the same costs
  CHECK(model.costs(image, tiles).costs == model.costs(image).costs);
  std::vector<double> band(30 * 10);
  CHECK_THROWS_WITH_AS(model.bandCosts(image.rowRange(40, 80), 40, 30, 10, 10, tiles, band.data()),
                       doctest::Contains("do not cover cell rows [10, 20)"), InvalidArgument);
}

TEST_CASE("tile settings past their range are refused with the range, before any arithmetic overflows") {
  const cv::Mat image = test::syntheticImage(120, 120, SyntheticSceneParams{}.seed);
  const CostModel model = test::randomCostModel(image, 1);
  TileSettings tiles;
  tiles.tile_cells = std::numeric_limits<int>::max();  // r0 + tile_cells would overflow: an all-zero map
  CHECK_THROWS_WITH_AS(model.costs(image, tiles), doctest::Contains("tile_cells = 2147483647 is out of range: use 17 to 1048576"),
                       InvalidArgument);
  tiles.tile_cells = TileSettings::kMaxTileCells;  // the largest is fine: one tile
  CHECK(model.costs(image, tiles).costs == model.costs(image).costs);
  tiles.threads = 100000;
  CHECK_THROWS_WITH_AS(model.costs(image, tiles), doctest::Contains("threads = 100000 is out of range: use 0 (every core) to 256"),
                       InvalidArgument);
}

TEST_CASE("cost limits: a range outside CostLimits is named, on bounds and on training cells") {
  Eigen::VectorXd w(3);
  w << 1.0, 0.5, 2.0;  // bias 1
  const auto linear = costBounds(w, CostForm::Linear);
  CHECK(linear[0] == 1.0);
  CHECK(linear[1] == 3.5);
  CHECK(costRangeFault(linear).empty());
  const auto exponential = costBounds(w, CostForm::Exponential);
  CHECK(exponential[0] == doctest::Approx(std::exp(1.0)));
  CHECK(exponential[1] == doctest::Approx(std::exp(3.5)));
  CHECK(costRangeFault(exponential).empty());
  CHECK(costRangeFault({1e-3, 1e31}).find("above the highest cost a model may give, 1e+30") != std::string::npos);
  CHECK(costRangeFault({1e-31, 1.0}).find("below the lowest cost a model may give, 1e-30") != std::string::npos);
  CHECK(costRangeFault({1.0, 2e12}).find("a ratio of 2e+12 > 1e+12, the most a model may spread them") != std::string::npos);

  // On training cells: the range the weights give the map's passable cells.
  const cv::Mat image = test::syntheticImage(64, 64, 2);
  const CostModel model = test::randomCostModel(image, 3);
  const FeatureMap map = model.features().map(image);
  Eigen::VectorXd v = Eigen::VectorXd::Zero(map.features());
  v[kBiasIndex] = 1.0;
  CHECK(trainingCostFault({&map}, v, CostForm::Exponential).empty());  // every cost e
  v[kBiasIndex] = 100.0;  // e^100 = 2.7e43: the online learner's runaway of the issue
  CHECK(trainingCostFault({&map}, v, CostForm::Exponential).find("on the training cells: the costs range from 2.688") == 0);
  v[kBiasIndex] = 1.0;
  // A weight of 60 on a feature that spans at least 0.5 over the map: a spread of e^30 = 1.1e13 > 1e12
  // (and at most e^61 = 3e26 < 1e30).
  int varied = -1;
  for (int k = 1; k < map.features() && varied < 0; ++k) {
    double lo = 1.0, hi = 0.0;
    for (int s = 0; s < map.cells(); ++s) lo = std::min<double>(lo, map.value(s, k)), hi = std::max<double>(hi, map.value(s, k));
    if (hi - lo >= 0.5) varied = k;
  }
  REQUIRE(varied > 0);
  v[varied] = 60.0;
  CHECK(trainingCostFault({&map}, v, CostForm::Exponential).find("the most a model may spread them") != std::string::npos);
  CHECK(trainingCostFault({&map}, v, CostForm::Linear).empty());  // the same weights as linear costs: 1 + 60 f
}

TEST_CASE("a raster refuses costs a 32-bit float cannot hold instead of writing them as nodata") {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> fine = {1.0, inf, 3e38};
  const std::vector<float> values = rasterCosts(fine.data(), fine.size(), 3, 0, "'m.mmp'");
  CHECK(values[0] == 1.0f);
  CHECK(std::isinf(values[1]));  // impassable: nodata, as meant
  CHECK(values[2] == 3e38f);
  const std::vector<double> huge = {1.0, 2.0, 3.0, 4.0, 1e44, 5.0};
  CHECK_THROWS_WITH_AS(rasterCosts(huge.data(), huge.size(), 3, 10, "'m.mmp'"),
                       doctest::Contains("'m.mmp' gives cell (row 11, col 1) the cost 1e+44, outside what a 32-bit float raster holds"),
                       DataError);
  const std::vector<double> tiny = {1e-300};
  CHECK_THROWS_AS(rasterCosts(tiny.data(), tiny.size(), 1, 0, "m"), DataError);

  // writeCostRaster on a model whose costs overflow float32: refused, the old file untouched.
  const cv::Mat image = test::syntheticImage(64, 64, 2);
  const CostModel small = test::randomCostModel(image, 3);
  Eigen::VectorXd w = small.weights();
  w[kBiasIndex] = 100.0;  // every cost about e^100
  const CostModel runaway(small.features(), w, CostForm::Exponential, {}, "'runaway.mmp'");
  test::TempDir dir;
  std::ofstream(dir.file("old.tiff")) << "old";
  ImageRows rows = [&] {
    REQUIRE(cv::imwrite(dir.file("scene.png"), image));
    return ImageRows(dir.file("scene.png"));
  }();
  CHECK_THROWS_WITH_AS(writeCostRaster(runaway, rows, dir.file("old.tiff")),
                       doctest::Contains("'runaway.mmp' gives cell (row 0, col 0) the cost"), DataError);
  std::ifstream old(dir.file("old.tiff"));
  CHECK(std::string(std::istreambuf_iterator<char>(old), {}) == "old");
}

TEST_CASE("a cost map streamed band by band into a float TIFF holds the in-memory costs") {
  const cv::Mat image_in_memory = test::syntheticImage(230, 190, 4);
  const CostModel model = test::randomCostModel(image_in_memory, 2);
  test::TempDir dir;
  for (const char* name : {"scene.jpg", "scene.png"}) {  // streamed by libjpeg, or read whole
    CAPTURE(name);
    REQUIRE(cv::imwrite(dir.file(name), image_in_memory));
    const cv::Mat image = loadImage(dir.file(name));
    {
      ImageRows rows(dir.file(name));  // the rows a band at a time are the whole image's
      REQUIRE(rows.rows() == image.rows);
      REQUIRE(rows.cols() == image.cols);
      cv::Mat read;
      while (rows.next() < rows.rows()) {
        const cv::Mat band = rows.read(37);
        if (read.empty()) {
          read = band;
        } else {
          cv::vconcat(read, band, read);
        }
      }
      CHECK(cv::norm(read, image, cv::NORM_INF) == 0.0);
      CHECK(rows.read(10).empty());  // past the end: nothing, and no error
    }
    const CostGrid grid = model.costs(image);
    TileSettings tiles;
    tiles.tile_cells = 17;  // four bands, each read with its halo
    ImageRows rows(dir.file(name));
    int calls = 0;
    const CostRasterInfo info =
        writeCostRaster(model, rows, dir.file("costs.tiff"), tiles, [&](int done, int total) {
          ++calls;
          CHECK(done <= total);
        });
    CHECK(calls == 4);
    CHECK(info.rows == grid.rows);
    CHECK(info.cols == grid.cols);
    const cv::Mat tiff = cv::imread(dir.file("costs.tiff"), cv::IMREAD_UNCHANGED);
    REQUIRE(tiff.type() == CV_32FC1);
    REQUIRE(tiff.rows == grid.rows);
    REQUIRE(tiff.cols == grid.cols);
    for (int s = 0; s < grid.cells(); ++s) {
      REQUIRE(tiff.at<float>(s / grid.cols, s % grid.cols) == static_cast<float>(grid.costs[static_cast<std::size_t>(s)]));
    }
  }
}

TEST_CASE("float TIFFs: BigTIFF reads back too, and bad use is an error") {
  test::TempDir dir;
  std::vector<float> values(7 * 5);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.5f + static_cast<float>(i);
  values[3] = std::numeric_limits<float>::infinity();  // an impassable cell
  for (bool big : {false, true}) {
    FloatTiffWriter out(dir.file("v.tiff"), 7, 5, big);
    CHECK(out.bigTiff() == big);
    out.write(values.data(), 3);
    out.write(values.data() + 15, 3);
    CHECK_THROWS_WITH_AS(out.finish(), doctest::Contains("6 of 7 rows written"), InvalidArgument);
    CHECK_THROWS_WITH_AS(out.write(values.data(), 2), doctest::Contains("2 more rows after 6 of 7"), InvalidArgument);
    out.write(values.data() + 30, 1);
    out.finish();
    const cv::Mat read = cv::imread(dir.file("v.tiff"), cv::IMREAD_UNCHANGED);
    REQUIRE(read.type() == CV_32FC1);
    REQUIRE(read.rows == 7);
    CHECK(std::equal(values.begin(), values.end(), read.ptr<float>(), [](float a, float b) { return a == b; }));
  }
  {
    FloatTiffWriter unfinished(dir.file("w.tiff"), 2, 2);
    unfinished.write(values.data(), 2);
  }  // never finished: nothing is written
  CHECK_FALSE(std::filesystem::exists(dir.file("w.tiff")));
  FloatTiffWriter full("/dev/full", 2, 2);
  full.write(values.data(), 2);
  CHECK_THROWS_WITH_AS(full.finish(), doctest::Contains("cannot write '/dev/full': No space left on device"), Error);
}

TEST_CASE("a damaged JPEG read band by band names the row") {
  test::TempDir dir;
  REQUIRE(cv::imwrite(dir.file("a.jpg"), test::syntheticImage(200, 200, SyntheticSceneParams{}.seed)));
  std::string bytes;
  {
    std::ifstream in(dir.file("a.jpg"), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::ofstream(dir.file("cut.jpg"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  ImageRows rows(dir.file("cut.jpg"));
  const std::string damaged = "'" + dir.file("cut.jpg") + "' is a damaged JPEG at row";
  CHECK_THROWS_WITH_AS(
      [&] {
        while (rows.next() < rows.rows()) rows.read(50);
      }(),
      doctest::Contains(damaged.c_str()), DataError);
  std::ofstream(dir.file("header.jpg"), std::ios::binary) << bytes.substr(0, 40);
  CHECK_THROWS_WITH_AS(ImageRows(dir.file("header.jpg")), doctest::Contains("is a damaged JPEG"), DataError);
  CHECK_THROWS_AS(ImageRows(dir.file("missing.png")), DataError);
}

TEST_CASE("a cost exponent raises every cost the model gives, keeps the cells' order, and is saved with it") {
  const cv::Mat image = test::syntheticImage(120, 160, 7);
  const CostModel plain = test::randomCostModel(image, 3);
  CostModel raised = plain;
  CHECK(raised.costExponent() == 1.0);
  raised.setCostExponent(2.5);
  const CostGrid a = plain.costs(image), b = raised.costs(image);
  REQUIRE(a.costs.size() == b.costs.size());
  for (std::size_t s = 0; s < a.costs.size(); ++s) CHECK(b.costs[s] == std::pow(a.costs[s], 2.5));
  CHECK(raised.costs(raised.features().map(image)).costs == b.costs);  // the feature-map path too
  TileSettings tiles;
  tiles.tile_cells = 20;
  CHECK(raised.costs(image, tiles).costs == b.costs);
  const std::array<double, 2> bounds = plain.costBounds(), raised_bounds = raised.costBounds();
  CHECK(raised_bounds[0] == std::pow(bounds[0], 2.5));
  CHECK(raised_bounds[1] == std::pow(bounds[1], 2.5));
  bool said = false;
  for (const auto& [key, value] : raised.summary()) said |= key == "cost" && value.find("raised to the power 2.5") != std::string::npos;
  CHECK(said);

  test::TempDir dir;
  raised.save(dir.file("raised.mmp"));
  const CostModel loaded = CostModel::load(dir.file("raised.mmp"));
  CHECK(loaded.costExponent() == 2.5);
  CHECK(loaded.costs(image).costs == b.costs);
  CHECK(loaded.info().count("cost_exponent") == 0);  // a setting of the model, not an info entry
  plain.save(dir.file("plain.mmp"));
  CHECK(loadModel(dir.file("plain.mmp")).settings.count("cost_exponent") == 0);  // files as before
  CHECK(loadModel(dir.file("plain.mmp")).version == 2);
  CHECK(loadModel(dir.file("raised.mmp")).version == 3);  // a reader of version 2 refuses it
  CHECK(CostModel::load(dir.file("plain.mmp")).costExponent() == 1.0);

  for (double bad : {0.0, -1.0, 100.0, std::numeric_limits<double>::quiet_NaN()}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(raised.setCostExponent(bad), doctest::Contains("is not in [0.125, 16]"), InvalidArgument);
  }
  CHECK(raised.costExponent() == 2.5);  // a refused exponent changes nothing
  Model damaged = loadModel(dir.file("raised.mmp"));
  damaged.settings["cost_exponent"] = "2x";
  saveModel(dir.file("damaged.mmp"), damaged);
  CHECK_THROWS_WITH_AS(CostModel::load(dir.file("damaged.mmp")),
                       doctest::Contains("setting 'cost_exponent' = '2x' must be a number in [0.125, 16]"), DataError);
}
